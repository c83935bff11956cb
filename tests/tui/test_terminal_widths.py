"""Issue 23, items 12-14: a name the user must type, and a number, are never cut or split at 40, 80 or
120 columns. Where a table cannot show them whole it falls back to lines that wrap at spaces."""

from __future__ import annotations

import json
import re

import pytest

from terminal_support import assert_whole, whole_on_a_line

WIDTHS = (40, 80, 120)


def _quiz(run_quiz, monkeypatch, width: int, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run_quiz(*args)
    assert code == 0, err
    return out


def test_the_checker_catches_a_cut_and_a_split():
    assert not whole_on_a_line("│ vaswa… │", "vaswani-base")
    assert not whole_on_a_line("137,438,953,47\n2 FLOPs", "137,438,953,472")
    assert not whole_on_a_line("gpt2-medium", "gpt2")
    assert whole_on_a_line("│ gpt2 │ 124,439,808 │", "124,439,808")


@pytest.mark.parametrize("width", WIDTHS)
def test_calc_presets_shows_every_name_and_number_whole(run_quiz, monkeypatch, width):
    presets = json.loads(_quiz(run_quiz, monkeypatch, width, "calc", "presets", "--json"))
    text = _quiz(run_quiz, monkeypatch, width, "calc", "presets")
    pieces = []
    for name, cfg in presets.items():
        pieces.append(name)
        pieces += [f"{cfg[key]:,}" for key in ("d_model", "n_heads", "d_ff", "vocab_size") if key in cfg]
    assert {"vaswani-base", "gpt2"} <= set(presets)
    assert_whole(text, pieces, width)


def test_calc_presets_keeps_its_table_where_it_fits(run_quiz, monkeypatch):
    text = _quiz(run_quiz, monkeypatch, 120, "calc", "presets")
    assert re.search(r"name\s+┃\s+arch\s+┃\s+layers", text), text


@pytest.mark.parametrize("width", WIDTHS)
def test_calc_params_shows_every_count_whole(run_quiz, monkeypatch, width):
    report = json.loads(_quiz(run_quiz, monkeypatch, width, "calc", "params", "gpt2", "--json"))
    text = _quiz(run_quiz, monkeypatch, width, "calc", "params", "gpt2")
    counts = [f"{n:,}" for n in report["breakdown"].values()] + [f"{report['total']:,}", "85,056,000"]
    assert "124,439,808" in counts
    assert_whole(text, counts, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_calc_flops_shows_every_count_whole(run_quiz, monkeypatch, width):
    report = json.loads(_quiz(run_quiz, monkeypatch, width, "calc", "flops", "gpt2", "--seq-len", "64", "--json"))
    text = _quiz(run_quiz, monkeypatch, width, "calc", "flops", "gpt2", "--seq-len", "64")
    counts = [f"{n:,}" for n in report["breakdown"].values()] + [f"{report['forward']:,}", f"{report['training']:,}"]
    assert_whole(text, counts, width)


@pytest.mark.parametrize("width", WIDTHS)
def test_challenges_list_shows_every_id_and_name_whole(run_quiz, monkeypatch, width):
    rows = json.loads(_quiz(run_quiz, monkeypatch, width, "challenges", "list", "--json"))
    text = _quiz(run_quiz, monkeypatch, width, "challenges", "list")
    names = [name for row in rows for name in [row["id"], *row["names"]]]
    assert {"GroupedQueryAttention", "sinusoidal_positional_encoding"} <= set(names)
    body = text.split("Start one with")[0]   # the closing hint is a sentence, free to wrap
    assert_whole(body, names, width)
    for row in rows:   # each title is there, if wrapped
        assert " ".join(row["title"].split()) in " ".join(body.replace("│", " ").split())


@pytest.fixture
def stats_history(tmp_path, monkeypatch):
    """A history with every section of `quiz stats`: topics, due cards, misconceptions, mocks, a paused mock."""
    import quizforge.cli.stats as stats_cli
    from history_support import NOW, add_card, at, attempt, mock, record
    from quizforge.practice.store import History

    h = History(tmp_path / "history.db")
    wrong = lambda template, tag, label: attempt(template.split(".")[0], "wrong", template,  # noqa: E731
                                                 misconception=tag, misconception_label=label)
    record(h, at(-8), wrong("params.projections", "extra-bias", "forgot the biases"), attempt("params", "correct"))
    record(h, at(-3), wrong("concepts.efficient_attention", "concepts.efficient_attention_linear",
                            "thought linear attention is exact"), attempt("attention", "wrong"),
           attempt("softmax", "correct"))
    add_card(h, "template:params.q", at(-1), at(-1))
    mock(h, at(-3), 40, 100)
    mock(h, at(-2), 50.5, 100)
    mock(h, at(-1), 0, 0, result=False)
    h.close()
    monkeypatch.setattr(stats_cli, "_now", lambda: NOW)
    return tmp_path


@pytest.mark.parametrize("width", WIDTHS)
def test_stats_shows_every_name_date_and_number_whole(run_quiz, monkeypatch, stats_history, width):
    stats = json.loads(_quiz(run_quiz, monkeypatch, width, "stats", "--data-dir", str(stats_history), "--json"))
    text = _quiz(run_quiz, monkeypatch, width, "stats", "--data-dir", str(stats_history))
    pieces = [f"{t['correct']}/{t['answered']}" for t in stats["topics"]]
    for m in stats["misconceptions"]:
        pieces += [m["tag"], m["last_hit"], *m["templates"]]
    for m in stats["mocks"]["history"]:
        pieces += [m["day"], f"{m['score']:g}", f"{m['percent']:.1f}"]
    pieces += [m["day"] for m in stats["mocks"]["paused"]] + [stats["window"]["first"], stats["window"]["last"]]
    assert "concepts.efficient_attention_linear" in pieces and "2025-03-17" in pieces
    assert_whole(text, pieces, width)
    words = set(text.split())
    for t in stats["topics"]:   # a title may wrap at a space, never lose a word
        assert set(t["title"].split()) <= words, t["title"]


def test_wrap_status_breaks_only_between_items():
    from quizforge.tui.terminal import wrap_status

    status = "⏱ 4:55 left  ·  question 1 of 3  ·  answered 0  ·  marked 0"
    assert wrap_status(status, 38).splitlines() == [" ⏱ 4:55 left  ·  question 1 of 3 ", " answered 0  ·  marked 0 "]
    assert wrap_status(status, 78) == f" {status} "


@pytest.mark.parametrize("width", (40, 80, 120))
def test_mock_key_help_and_footer_are_whole_in_a_real_terminal(tmp_path, width):
    """In a tmux pane of each width, the mock's key help keeps every key with its label, and the
    footer (the prompt_toolkit toolbar) shows the clock and every count whole."""
    import shutil
    import subprocess
    import sys
    import time
    import uuid

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    from practice_helpers import quiz_env

    socket = f"quizforge-test-{uuid.uuid4().hex[:12]}"
    tmux = ["tmux", "-L", socket]
    env = quiz_env(tmp_path)
    env.pop("TMUX", None)
    command = " ".join(["env", f"QUIZFORGE_HOME={tmp_path}", "NO_COLOR=1", sys.executable, "-m", "quizforge",
                        "practice", "--mock", "gate", "--questions", "3", "--minutes", "5"])

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-J", "-S", "-", "-t", "quiz"], capture_output=True,
                              text=True, env=env, timeout=10).stdout

    try:
        subprocess.run([*tmux, "-f", "/dev/null", "new-session", "-d", "-x", str(width), "-y", "30", "-s", "quiz",
                        command], check=True, env=env, timeout=10)
        deadline = time.monotonic() + 30
        text = ""
        while time.monotonic() < deadline and not re.search(r"marked \d", text):
            time.sleep(0.2)
            text = screen()
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, env=env, timeout=10)
    for item in ("n next", "p previous", "g N go to", "m mark for review", "x clear", "l palette", "q pause"):
        assert whole_on_a_line(text, item), f"{item!r} is split at {width} columns:\n{text}"
    assert re.search(r"⏱ \d+:\d\d left", text), text
    for item in ("question 1 of 3", "answered 0", "marked 0"):
        assert whole_on_a_line(text, item), f"{item!r} is cut at {width} columns:\n{text}"


@pytest.mark.parametrize("width", WIDTHS)
def test_mock_report_never_splits_a_key_or_an_answer(width):
    """Issue 23 saw `137,438,953,47` / `2 FLOPs` at 120 columns."""
    from rich.console import Console
    from test_mock_report_widths import ITEMS, RESULT

    from quizforge.tui.mock_report import mock_report_view

    items = ITEMS + [{"id": "flops.layer-0001", "topic": "flops", "kind": "NAT", "marks": 2, "answer": "1.37e11",
                      "key": "137,438,953,472 FLOPs", "correct": True, "earned": 2.0, "seconds": 5.0}]
    console = Console(width=width, record=True, highlight=False, color_system=None)
    console.print(mock_report_view(dict(RESULT, items=items), []))
    text = console.export_text()
    words = [w for item in items for w in [item["id"], *(item["answer"] or "").split(), *item["key"].split()]]
    assert {"137,438,953,472", "12345678901234567890"} <= set(words)
    assert_whole(text, words, width)
    if width == 120:   # still the tables, where they fit
        assert re.search(r"#\s+question\s+your answer\s+key\s+marks", text), text


@pytest.mark.parametrize("width", WIDTHS)
def test_grade_table_never_breaks_a_test_name(width):
    """Issue 23 saw `test_fl|oat64_i|nput` at 40 columns."""
    from rich.console import Console

    from quizforge.cli import grade_view
    from quizforge.grading.judge.hidden_suite import SuiteResult
    from quizforge.grading.judge.hidden_suite import TestResult as Case

    result = SuiteResult("softmax", tests=[
        Case("test_float64_input_keeps_its_dtype", "passed", 2.0, 2.0),
        Case("test_rows_sum_to_one[batched]", "failed", 0.0, 3.0, "row 2 sums to 1.5, expected 1"),
        Case("test_large_logits_do_not_overflow", "skipped", 0.0, 1.0, "not applicable"),
    ], duration=1.25, sandbox={"mode": "isolated", "isolated": True, "namespaces": [], "notes": [], "workers": 1})
    console = Console(width=width, record=True, highlight=False, color_system=None)
    console.print(grade_view.table(result))
    text = console.export_text()
    pieces = [t.name for t in result.tests] + ["2/2", "0/3", "0/1", "2/6", "1/3"]
    assert_whole(text, pieces, width)
    assert set("row 2 sums to 1.5, expected 1".split()) <= set(text.replace("│", " ").split())   # may wrap
