"""Content files a teacher edits: every shipped file loads, and a malformed entry fails with
the file and the line it is on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from quizforge.datafiles import ContentError
from quizforge.practice import interview_bank as ib

GOOD = '''id = "demo"
title = "A demo chain"
topic = "attention"

[[prompt]]
id = "demo.first"
question = "What is attention?"
model_answer = "A weighted average of values."
key_points = ["weights from a softmax"]

[[prompt]]
id = "demo.second"
question = "Why scale?"
model_answer = "To keep the softmax out of saturation."
key_points = ["variance d_k"]
pitfalls = ["overflow"]
'''


def _write(tmp_path: Path, text: str, name: str = "01-demo.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_shipped_chain_file_loads():
    files = sorted(ib.CHAIN_DIR.glob("*.toml"))
    assert len(files) == 10
    chains = [ib.load_chain(f) for f in files]
    assert [c.id for c in chains] == [c.id for c in ib.CHAINS]
    assert ib.prompt("attention.implement").model_answer.startswith("Attention is softmax(QKᵀ/√d_k)·V.")


def test_a_good_file_loads_into_chains_and_prompts(tmp_path):
    chain = ib.load_chain(_write(tmp_path, GOOD))
    assert chain.id == "demo" and [p.id for p in chain.prompts] == ["demo.first", "demo.second"]
    assert chain.prompts[1].pitfalls == ("overflow",) and chain.prompts[0].pitfalls == ()


@pytest.mark.parametrize("broken, line, words", [
    (GOOD.replace('key_points = ["variance d_k"]\n', ""), 11, "missing 'key_points'"),
    (GOOD.replace('key_points = ["variance d_k"]', 'key_points = "variance d_k"'), 15, "list of non-empty strings"),
    (GOOD.replace('id = "demo.second"', 'id = "other.second"'), 12, "must be demo.<step>"),
    (GOOD.replace('id = "demo.second"', 'id = "demo.first"'), 12, "appears twice"),
    (GOOD.replace('pitfalls = ["overflow"]', 'pitfals = ["overflow"]'), 16, "unknown field 'pitfals'"),
    (GOOD.replace('topic = "attention"', 'topic = "cooking"'), 3, "unknown topic 'cooking'"),
    (GOOD.replace('question = "Why scale?"', 'question = "Why scale?'), 13, "not valid TOML"),
    (GOOD.replace('model_answer = "A weighted average of values."', 'model_answer = "  "'), 8, "non-empty string"),
    (GOOD.split("[[prompt]]")[0], 1, "at least 1 [[prompt]]"),
])
def test_a_malformed_entry_names_file_and_line(tmp_path, broken, line, words):
    path = _write(tmp_path, broken)
    with pytest.raises(ContentError) as e:
        ib.load_chain(path)
    message = str(e.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert words in message and "\n" not in message


def test_two_files_with_one_chain_id_are_refused(tmp_path):
    _write(tmp_path, GOOD)
    _write(tmp_path, GOOD, "02-again.toml")
    with pytest.raises(ContentError, match="02-again.toml:1: chain id 'demo' is used by another file"):
        ib.load_chains(tmp_path)


def test_loading_the_bank_stays_off_torch_and_sympy():
    code = ("import sys, quizforge.practice.interview_bank as ib; "
            "assert ib.CHAINS; print('torch' in sys.modules, 'sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_chain_files_ship_as_package_data():
    pyproject = (Path(__file__).parents[1] / "pyproject.toml").read_text()
    assert '"practice/interviews/*.toml"' in pyproject
