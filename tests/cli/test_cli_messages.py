"""What `quiz` says as a learner meets it: suggestions for a misspelt name, topic titles, counts in
billions, the step a slow command is on, a shared grading failure said once (issue 14's small things)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from quizforge.suggest import close_names


@pytest.mark.parametrize("args, suggestion", [
    (("calc", "params", "llama7b"), "did you mean llama-7b?"),
    (("calc", "kv-cache", "LLAMA2_70B", "--seq-len", "8"), "did you mean llama2-70b?"),
    (("ask", "atention"), "did you mean attention?"),
    (("ask", "dims.dk"), "did you mean dims.d_k?"),
    (("explain", "dims.dk-0001"), "did you mean dims.d_k?"),
    (("bank", "list", "--topic", "param"), "did you mean params?"),
    (("challenges", "start", "softmx"), "did you mean softmax?"),
    (("grade", "x.py", "--challenge", "layernorm"), "did you mean layer_norm?"),
])
def test_a_misspelt_name_gets_a_suggestion(run_quiz, args, suggestion):
    code, _, err = run_quiz(*args)
    assert code == 2
    assert err.startswith("error: unknown ") and err.count("\n") == 1
    assert suggestion in err


def test_nothing_close_suggests_nothing():
    assert close_names("nosuch", ["dims", "params", "attention"]) == []
    assert close_names("llama7b", ["llama-7b", "llama2-70b"]) == ["llama-7b"]


TOPIC_ERROR = ("error: unknown topic or template 'nosuch'; topics: dims, params, flops, memory, attention, "
               "softmax, positional, norms, sampling, concepts")


def test_an_unknown_topic_says_topic_or_template_and_lists_the_topics(run_quiz):
    code, _, err = run_quiz("ask", "nosuch")
    assert code == 2 and err.startswith(TOPIC_ERROR) and "did you mean" not in err


def test_practice_with_an_unknown_topic_says_topic_or_template(tmp_path):
    from practice_helpers import run_quiz as run_piped

    done = run_piped(tmp_path, "practice", "--topic", "nosuch", input="")
    assert done.returncode == 2 and done.stderr.startswith(TOPIC_ERROR), done.stderr


def _render(renderable, width: int = 100) -> str:
    from rich.console import Console

    console = Console(width=width, record=True, highlight=False, color_system=None)
    console.print(renderable)
    return console.export_text()


def test_stats_shows_topic_titles_as_json_does(tmp_path):
    from quizforge.tui.charts import stats_view
    from quizforge.practice.stats import compute_stats
    from quizforge.practice.store import Attempt, History

    history = History(tmp_path / "history.db")
    try:
        session = history.start_session("drill", {}, 1_700_000_000.0)
        for topic, outcome in (("params", "correct"), ("attention", "wrong")):
            history.record_attempt(session, "drill", Attempt(question_id=f"{topic}.q-0001", template=f"{topic}.q",
                                                             topic=topic, kind="NAT", outcome=outcome, marks=1),
                                   at=1_700_000_000.0)
        stats = compute_stats(history, 1_700_000_100.0)
    finally:
        history.close()
    assert [t["title"] for t in stats["topics"]] == ["Parameter counts", "Attention by hand"]
    rows = [line for line in _render(stats_view(stats)).splitlines() if "1/1" in line or "0/1" in line]
    assert "Parameter counts" in rows[0] and "Attention by hand" in rows[1]


def test_mock_report_lists_titles_with_the_id_beside():
    from quizforge.tui.mock_report import mock_report_view

    items = [{"id": "dims.d_k-0001", "topic": "dims", "kind": "NAT", "marks": 1, "answer": "64", "key": "64",
              "correct": True, "earned": 1.0, "seconds": 10.0},
             {"id": "concepts.layernorm_batchnorm-00a2", "topic": "concepts", "kind": "MCQ", "marks": 2,
              "answer": None, "key": "b", "correct": None, "earned": 0.0, "seconds": 3.0}]
    per_topic = {"dims": {"questions": 1, "answered": 1, "correct": 1, "score": 1.0, "max": 1.0, "seconds": 10.0},
                 "concepts": {"questions": 1, "answered": 0, "correct": 0, "score": 0.0, "max": 2.0, "seconds": 3.0}}
    result = {"score": 1.0, "max": 3.0, "negative": 0.0, "questions": 2, "answered": 1, "correct": 1,
              "seconds": 13.0, "per_topic": per_topic, "misconceptions": [], "items": items}
    for width in (80, 100):
        text = _render(mock_report_view(result, []), width)
        lines = text.splitlines()
        assert any(line.split()[:2] == ["Dimensions", "and"] for line in lines)   # the topic's title
        assert any(line.split()[:2] == ["Complexity", "and"] for line in lines)
        title_row = next(i for i, line in enumerate(lines) if "Head dimension dₖ" in line)
        assert "dims.d_k-0001" in lines[title_row + 1]
        assert any("concepts.layernorm_batchnorm-00a2" in line for line in lines)


def test_a_missing_vocabulary_names_the_real_flag(run_quiz):
    code, _, err = run_quiz("calc", "params", "--arch", "gpt", "--d-model", "8", "--n-heads", "2", "--d-ff", "8")
    assert code == 2 and err == "error: --arch gpt needs --vocab, --max-len\n"


def test_parameter_counts_are_quoted_in_billions(run_quiz):
    code, out, _ = run_quiz("calc", "params", "llama-7b")
    assert code == 0 and "= 6.74 B parameters" in out and "G parameters" not in out


def test_the_kv_cache_footer_says_bytes_once(run_quiz, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run_quiz("calc", "kv-cache", "gpt2", "--seq-len", "8")
    (footer,) = [line for line in out.splitlines() if "per element" in line]
    assert footer.startswith("total = 2·B·L·bytes·d_head·h·n = 2·1·12·2·64·12·8 ") and footer.count("bytes") == 1


@pytest.mark.parametrize("template", ["memory.kv_cache", "params.gpt3_table", "params.model"])
def test_prompt_text_in_json_has_no_markdown(run_quiz, template):
    """These templates put the model's name in bold."""
    import json

    for seed in range(4):
        code, out, _ = run_quiz("ask", template, "--seed", str(seed), "--json")
        data = json.loads(out)
        assert "**" in data["prompt"]
        for text in [data["prompt_text"], *(o["plain"] for o in data["options"])]:
            assert "**" not in text and "`" not in text and "$" not in text, text


def test_prompt_text_of_a_preset_question_names_the_model_plainly(run_quiz):
    import json

    code, out, _ = run_quiz("ask", "memory.kv_cache", "--seed", "2", "--json")
    data = json.loads(out)
    assert data["prompt"].startswith("**gpt2-medium** has $L = 24$")
    assert data["prompt_text"].startswith("gpt2-medium has L = 24 layers, d_model = 1024")


def test_a_damaged_history_is_copied_aside_once(tmp_path):
    import random

    from quizforge.practice.store import History, HistoryError

    path = tmp_path / "history.db"
    garbage = bytes(random.Random(7).randrange(256) for _ in range(4096))
    path.write_bytes(garbage)
    for _ in range(3):   # three commands in a row meet the same damaged file
        with pytest.raises(HistoryError, match="damaged.*copied to history.db.corrupt-"):
            History(path)
    (copy,) = tmp_path.glob("history.db.corrupt-*.bak")
    assert copy.read_bytes() == garbage and path.read_bytes() == garbage
    path.write_bytes(garbage[:2048])   # damaged differently: that is worth a second copy
    with pytest.raises(HistoryError):
        History(path)
    assert len(list(tmp_path.glob("history.db.corrupt-*.bak"))) == 2


# --- slow work shows progress --------------------------------------------------

@pytest.mark.parametrize("args, step, result", [
    (("calc", "flops", "gpt2", "--seq-len", "8"), "building gpt2 and counting FLOPs", "✓ "),
    (("calc", "kv-cache", "gpt2", "--seq-len", "8"), "building gpt2 and filling its KV cache", "✓ "),
    (("calc", "pe", "--pos", "3", "--d-model", "8"), "working PE(3, ·) for d_model=8", "cos(3.0000)"),
])
def test_slow_calculators_name_their_step_on_a_terminal(tmp_path, args, step, result):
    pexpect = pytest.importorskip("pexpect")
    from practice_helpers import quiz_cmd, quiz_env

    cmd = quiz_cmd(*args)
    child = pexpect.spawn(cmd[0], cmd[1:], env=quiz_env(tmp_path), encoding="utf-8", timeout=60,
                          dimensions=(40, 160))
    try:
        child.expect_exact("importing torch")
        child.expect_exact(step)
        child.expect_exact(result)
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize("args", [("calc", "flops", "gpt2", "--seq-len", "8"),
                                  ("calc", "kv-cache", "gpt2", "--seq-len", "8", "--json")])
def test_piped_calculators_print_nothing_extra(tmp_path, args):
    from practice_helpers import run_quiz as run_piped

    done = run_piped(tmp_path, *args)
    assert done.returncode == 0 and done.stderr == ""
    assert "importing torch" not in done.stdout and "building" not in done.stdout



# --- ask, explain, set make and set grade name their wait on a terminal, and only there -----------

REPO_ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
EXAMPLES = REPO_ROOT / "examples"


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    from quizforge.problemsets.make import make_set

    out = tmp_path_factory.mktemp("set") / "quiz1"
    make_set(EXAMPLES / "quiz1.toml", out, roster=EXAMPLES / "roster.csv", pdf=False)
    return out


def _waits(small_set, tmp_path):
    return {
        "ask": (("ask", "attention.weight", "--seed", "3"), "drawing a question from attention.weight"),
        "explain": (("explain", "attention.weight-0003"), "regenerating attention.weight-0003 and its worked solution"),
        "set make": (("set", "make", str(EXAMPLES / "quiz1.toml"), "--variants", "4", "--no-pdf", "-o",
                      str(tmp_path / "made")), "drawing the papers"),
        "set grade": (("set", "grade", str(small_set), str(EXAMPLES / "responses.csv"), "-o", str(tmp_path / "g")),
                      "grading responses.csv"),
    }


@pytest.mark.parametrize("which", ["ask", "explain", "set make", "set grade"])
def test_slow_commands_name_their_wait_on_a_terminal(small_set, tmp_path, which):
    pexpect = pytest.importorskip("pexpect")
    from practice_helpers import quiz_cmd, quiz_env

    args, wait = _waits(small_set, tmp_path)[which]
    cmd = quiz_cmd(*args)
    child = pexpect.spawn(cmd[0], cmd[1:], env=quiz_env(tmp_path), encoding="utf-8", timeout=90,
                          dimensions=(40, 250))
    try:
        child.expect_exact(wait)
        if which == "set make":
            child.expect(r"[0-4]/4")   # the bar counts the papers
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


@pytest.mark.parametrize("which", ["ask", "explain", "set make", "set grade"])
def test_piped_slow_commands_print_nothing_extra(small_set, tmp_path, which):
    from practice_helpers import run_quiz as run_piped

    args, wait = _waits(small_set, tmp_path)[which]
    done = run_piped(tmp_path, *args, timeout=90)
    assert done.returncode == 0, done.stderr
    assert wait not in done.stderr and wait not in done.stdout
    assert "\x1b" not in done.stderr


def test_make_set_reports_each_paper_then_each_step(tmp_path):
    from quizforge.problemsets.make import make_set

    told = []
    make_set(EXAMPLES / "quiz1.toml", tmp_path / "s", variants=3, pdf=False,
             progress=lambda step, done, total: told.append((step, done, total)))
    assert told == ([("drawing the papers", n, 3) for n in range(4)]
                    + [("writing the papers and keys", n, 3) for n in range(1, 4)]
                    + [("writing the LMS exports", n, 5) for n in range(6)])

# --- grader output ---------------------------------------------------------

def test_a_shared_failure_is_said_once_above_the_grade_table(run_quiz, tmp_path, monkeypatch):
    """(A syntax error is now refused before grading: tests/grading/test_grade_terminal.py. A forbidden call
    still fails every test for one reason.)"""
    monkeypatch.setenv("COLUMNS", "120")
    path = tmp_path / "softmax.py"
    path.write_text("import torch\n\n\ndef softmax(x, dim=-1):\n    return torch.softmax(x, dim)\n")
    code, out, _ = run_quiz("grade", str(path), "--challenge", "softmax")
    reason = "line 5: torch.softmax is forbidden in this challenge"
    assert code == 0
    assert out.count(reason) == 1
    assert out.index(f"Every test failed for one reason: {reason}") < out.index("total")
    rows = [line for line in out.splitlines() if "│ failed " in line]
    assert len(rows) > 1 and all("forbidden" not in row for row in rows)


def test_different_failures_stay_in_their_rows():
    from quizforge.grading.exports.results import shared_failure
    from quizforge.grading.judge.hidden_suite import SuiteResult, TestResult

    alike = [TestResult(f"t{i}", "failed", 0, 1, "forbidden: torch.nn.functional.softmax") for i in range(3)]
    assert shared_failure(SuiteResult("softmax", alike)) == "forbidden: torch.nn.functional.softmax"
    mixed = alike[:2] + [TestResult("t2", "failed", 0, 1, "wrong values")]
    assert shared_failure(SuiteResult("softmax", mixed)) is None
    one_passed = alike[:2] + [TestResult("t2", "passed", 1, 1, "")]
    assert shared_failure(SuiteResult("softmax", one_passed)) is None


def test_calc_attention_labels_v_rows_v1_v2(run_quiz, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_quiz("calc", "attention", "--q", "[[1,0]]", "--k", "[[1,0],[0,1]]", "--v", "[[7,8],[9,10]]")
    assert code == 0
    v_block = out[out.index("\nV\n"):out.index("Step 1")]
    assert [line.split() for line in v_block.splitlines() if line.strip().startswith(("v", "k"))] == [
        ["v1", "7", "8"], ["v2", "9", "10"]]


# --- quiz calc: the spinner starts before torch is imported; bad sizes never wait for it ------

CALC_PROBE = r"""
import sys
import quizforge.render
from quizforge.cli import main

class RecordingProgress:
    def __init__(self, quiet=False):
        pass
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        pass
    def step(self, text):
        heavy = [m for m in ("torch", "sympy") if m in sys.modules]
        print("STEP", text, "|", ",".join(heavy) or "none", file=sys.stderr)

quizforge.render.Progress = RecordingProgress
try:
    main(sys.argv[1:])
except SystemExit as exc:
    print("EXIT", exc.code, "|", ",".join(m for m in ("torch", "sympy") if m in sys.modules) or "none",
          file=sys.stderr)
"""


def _calc_probe(*args: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", CALC_PROBE, "calc", *args], capture_output=True, text=True,
                          timeout=120)
    return [line for line in done.stderr.splitlines() if line.startswith(("STEP", "EXIT", "error"))]


@pytest.mark.parametrize("args, second_step", [
    (("flops", "gpt2", "--seq-len", "8", "--json"), "building gpt2 and counting FLOPs"),
    (("pe", "--pos", "3", "--d-model", "8", "--json"), "working PE(3, ·) for d_model=8"),
    (("attention", "--q", "[[1,0]]", "--k", "[[1,0]]", "--v", "[[2]]", "--json"), "working softmax(QKᵀ/√d_k)V"),
])
def test_calc_names_the_torch_import_before_it_starts(args, second_step):
    lines = _calc_probe(*args)
    assert lines[0] == "STEP importing torch | none"
    assert lines[1].startswith(f"STEP {second_step} | torch")
    assert lines[-1].startswith("EXIT 0 |")


@pytest.mark.parametrize("args, message", [
    (("flops", "gpt2", "--seq-len", "0"), "error: --seq-len must be a positive integer, got 0"),
    (("flops", "gpt2", "--seq-len", "8", "--batch", "-2"), "error: --batch must be a positive integer, got -2"),
    (("flops", "gpt2", "--seq-len", "2000"), "error: --seq-len: 2000 tokens is longer than the model's context of 1024"),
    (("flops", "gpt2", "--seq-len", "8", "--tgt-len", "4"),
     "error: --tgt-len: a target length only applies to encoder-decoder models"),
    (("kv-cache", "bert-base", "--seq-len", "8"), "error: bert-base does not decode autoregressively, so it has no KV cache"),
    (("attention-memory", "gpt2", "--seq-len", "0"), "error: --seq-len must be a positive integer, got 0"),
    (("pe", "--pos", "-1", "--d-model", "4"), "error: --pos: -1 is out of range (allowed 0..1,000,000)"),
    (("attention", "--q", "[[1,0,0]]", "--k", "[[1,0]]", "--v", "[[1]]"),
     "error: Q has d_k=3 columns but K has 2 (QKᵀ needs the same d_k)"),
    # issue 34 item 4: sizes torch would overflow on are refused before it is imported
    (("params", "--arch", "encoder-layer", "--d-model", "100000000000000000000", "--n-heads", "8", "--d-ff", "2048"),
     "error: --d-model: 100,000,000,000,000,000,000 is more than the 131,072 quizforge builds"),
    (("params", "--arch", "mha", "--d-model", "4611686018427387904", "--n-heads", "8"),
     "error: --d-model: 4,611,686,018,427,387,904 is more than the 131,072 quizforge builds"),
    (("params", "gpt2", "--vocab", "9" * 30), f"error: --vocab: {int('9' * 30):,} is more than the 4,194,304 quizforge builds"),
    (("params", "--arch", "ffn", "--d-model", "8", "--d-ff", str(2**20 + 1)),
     "error: --d-ff: 1,048,577 is more than the 1,048,576 quizforge builds"),
    (("flops", "gpt2", "--seq-len", "8", "--batch", str(2**63)),
     "error: --batch: 9,223,372,036,854,775,808 is more than the 65,536 quizforge measures"),
    (("kv-cache", "--arch", "llama", "--d-model", "131072", "--n-heads", "16384", "--d-ff", "8", "--vocab", "8",
      "--seq-len", str(2**24)),
     "error: --batch 1 of 16,777,216 tokens makes attention scores of 4.61e+18 entries, more than the 2.88e+17 "
     "quizforge measures in one tensor; use a smaller --batch or --seq-len"),
])
def test_calc_refuses_bad_sizes_without_importing_torch(args, message):
    assert _calc_probe(*args) == [message, "EXIT 2 | none"]


def test_sizes_round_half_away_from_zero(run_quiz, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    code, out, _ = run_quiz("calc", "kv-cache", "--arch", "gpt", "--d-model", "64", "--n-heads", "4", "--d-ff", "256",
                            "--n-layers", "2", "--vocab", "100", "--max-len", "6400", "--seq-len", "6400",
                            "--dtype", "bf16")
    assert code == 0
    assert "3,276,800 B = 3.13 MiB" in out      # 3.125 MiB exactly
    assert "1,638,400 B = 1.56 MiB" in out      # 1.5625: the third decimal decides
    from quizforge.render.calc import binary_bytes, si

    assert binary_bytes(int(1.125 * 2**30)) == "1.13 GiB" and binary_bytes(1023) == "1023 B"
    assert si(1_125_000) == "1.13 M" and si(2_500_005_000_000, billions="B") == "2.50 T"


def test_an_index_with_an_operator_reads_as_one_subscript(run_quiz):
    code, out, _ = run_quiz("ask", "flops.rnn_attention_counts-0001")
    assert code == 0 and "Wₕ hₜ₋₁ + b" in out and "h_t-1" not in out


def test_a_batch_of_one_is_said_plainly(run_quiz):
    code, out, _ = run_quiz("ask", "memory.kv_cache-0006")
    assert code == 0 and "with a single sequence of 512 cached positions" in " ".join(out.split())
    assert "batch of 1 " not in " ".join(out.split())


LARGEST_ALLOWED = ("--d-model", "131072", "--n-heads", "16", "--d-ff", "1048576", "--vocab", "4194304",
                   "--n-layers", "1024", "--seq-len", "16777216", "--batch", "64", "--json")


@pytest.mark.parametrize("args", [
    ("flops", "--arch", "encoder-decoder", *LARGEST_ALLOWED),
    ("kv-cache", "--arch", "llama", *LARGEST_ALLOWED),
])
def test_calc_measures_the_largest_sizes_it_allows(run_quiz, args):
    """Issue 34 item 4: every bound is one torch can measure on 'meta' (no overflow, no real table)."""
    code, out, err = run_quiz("calc", *args)
    assert code == 0, err
    assert json.loads(out)["closed_form_agrees"] is True


@pytest.mark.parametrize("width", [40, 120])
def test_the_step_bar_keeps_the_whole_count_at_40_and_120_columns(width):
    import io

    from rich.console import Console

    from quizforge.cli.sets import step_progress

    for step in ("typesetting the return sheets", "writing the papers and keys", "drawing the papers"):
        console = Console(file=io.StringIO(), width=width, force_terminal=True, color_system=None)
        bar = step_progress(console)
        bar.add_task(step, total=300, completed=168)
        console.print(bar.get_renderable())
        shown = console.file.getvalue().rstrip("\n")
        assert shown.startswith(f"{step} 168/300") and "━" in shown and len(shown) <= width
