"""Library errors speak of the library's terms; `quiz` names its own flag for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from quizforge.errors import InputError

REPO = Path(__file__).resolve().parents[2]


def library_errors():
    from quizforge.accounting import reports
    from quizforge.bank.registry import draw
    from quizforge.problemsets.roster import numbered_variants
    from quizforge.reference.presets import get_preset

    yield lambda: reports.flops_report(get_preset("gpt2"), seq_len=4096)
    yield lambda: reports.flops_report(get_preset("gpt2"), seq_len=8, tgt_len=8)
    yield lambda: draw("attention", seed=70000)
    yield lambda: numbered_variants(0)


@pytest.mark.parametrize("call", list(library_errors()))
def test_library_messages_name_no_flag(call):
    with pytest.raises(InputError) as caught:
        call()
    assert "--" not in str(caught.value) and caught.value.param


@pytest.mark.parametrize("args, line", [
    (("calc", "flops", "gpt2", "--seq-len", "4096"),
     "error: --seq-len: 4096 tokens is longer than the model's context of 1024"),
    (("calc", "flops", "gpt2", "--seq-len", "8", "--tgt-len", "8"),
     "error: --tgt-len: a target length only applies to encoder-decoder models"),
    (("ask", "attention", "--seed", "70000"), "error: --seed: seed 70000 is out of range (0..65535)"),
    (("set", "make", str(REPO / "examples" / "quiz1.toml"), "--variants", "0", "-o", "unused"),
     "error: --variants: 0 variants: give from 1 to"),
])
def test_the_cli_names_the_flag(run_quiz, args, line):
    code, out, err = run_quiz(*args)
    assert code == 2 and out == ""
    assert err.startswith(line) and len(err.strip().splitlines()) == 1, err


def test_a_full_output_folder_names_force(run_quiz, tmp_path):
    (tmp_path / "kept.txt").write_text("an earlier set")
    code, _, err = run_quiz("set", "make", str(REPO / "examples" / "quiz1.toml"), "--variants", "2",
                            "-o", str(tmp_path), "--no-pdf")
    assert code == 2 and err.strip() == f"error: {tmp_path} exists and is not empty; choose another folder or pass --force"
    assert [p.name for p in tmp_path.iterdir()] == ["kept.txt"]
