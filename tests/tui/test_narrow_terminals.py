"""A number the learner computes with never disappears, however narrow the terminal.

Every matrix entry of a question (its exhibits and its worked solution) must appear, row by
row and in order, after its row label, in what `quiz ask`, `quiz explain` and
`quiz calc attention` print at 40, 60 and 80 columns.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
import uuid

import pytest

from quizforge.bank.registry import all_templates

WIDTHS = (40, 60, 80)
SEEDS = (1, 2, 7, 42, 0x7F3A)
_SPLIT = re.compile(r"[\s│╭╮╰╯─,:=]+")


def _tokens(text: str) -> list[str]:
    return [t for t in _SPLIT.split(text) if t]


def _row_forms(label: str | None, row: list[str], col_labels: list[str], r: int) -> list[list[str]]:
    """The token sequences a row may show as: a table row, or the compact 'label: col = x' list."""
    entries = [tok for cell in row for tok in _tokens(cell)]
    table = ([label] if label else []) + entries
    compact = _tokens(label or f"row {r + 1}")
    for col, cell in zip(col_labels, row):
        compact += _tokens(col) + _tokens(cell)
    if not col_labels:
        compact = _tokens(label or f"row {r + 1}") + entries
    return [table, compact]


def _find(tokens: list[str], forms: list[list[str]], start: int) -> int:
    for i in range(start, len(tokens)):
        for form in forms:
            if tokens[i : i + len(form)] == form:
                return i + len(form)
    return -1


def assert_matrices_shown(text: str, matrices: list[dict]) -> None:
    """Each matrix's rows appear in order; side-by-side matrices may interleave their rows."""
    tokens = _tokens(text)
    start = 0
    for m in matrices:
        labels = m.get("row_labels") or [None] * len(m["matrix"])
        cursor, first = start, None
        for r, row in enumerate(m["matrix"]):
            forms = _row_forms(labels[r], row, m.get("col_labels") or [], r)
            end = _find(tokens, forms, cursor)
            assert end >= 0, f"row {r + 1} of {m['title']!r} ({row}) is not shown whole:\n{text}"
            first = end if first is None else first
            cursor = end
        start = first - 1 - len(m["matrix"][0])  # the next matrix starts after this one's first row began


def _quiz(run_quiz, monkeypatch, width: int, *args: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run_quiz(*args)
    assert code == 0, err
    return out


MATRIX_TEMPLATES = [t.id for t in all_templates()
                    if any(s.matrix is not None for s in (lambda q: q.exhibits + q.solution)(t.question(1)))]


def test_the_matrix_templates_are_found():
    assert {"attention.score", "attention.weight", "attention.output"} <= set(MATRIX_TEMPLATES)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("template", MATRIX_TEMPLATES)
def test_ask_and_explain_show_every_matrix_entry(run_quiz, monkeypatch, template, width):
    for seed in SEEDS:
        data = json.loads(_quiz(run_quiz, monkeypatch, width, "ask", template, "--seed", str(seed),
                                "--json", "--with-answer"))
        exhibits = data.get("exhibits", [])
        solution = [s for s in data["solution"] if "matrix" in s]
        assert exhibits or solution
        asked = _quiz(run_quiz, monkeypatch, width, "ask", template, "--seed", str(seed))
        assert "…" not in asked
        assert_matrices_shown(asked, exhibits)
        explained = _quiz(run_quiz, monkeypatch, width, "explain", data["id"])
        assert_matrices_shown(explained, exhibits + solution)
        assert max(len(line) for line in explained.splitlines()) <= width


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("q, k, v", [
    ("[[1,0],[0,1],[1,1]]", "[[1,0],[0,1],[1,1]]", "[[1,2],[3,4],[5,6]]"),
    ("[[1,-2,3,0,1,1,2,-1]]", "[[1,0,1,1,1,1,1,1],[0,1,1,1,-1,1,1,1]]", "[[10,-20,30],[1/3,0.5,-7]]"),
    ("[[0.25,-1.5,2,3],[1,1,1,1]]", "[[1,2,3,4],[4,3,2,1],[0,0,0,1]]", "[[1,2,3,4,5,6],[6,5,4,3,2,1],[9,9,9,9,9,9]]"),
])
def test_calc_attention_shows_every_given_entry(run_quiz, monkeypatch, width, q, k, v):
    from quizforge.answers.matrices import format_fraction, parse_matrix

    data = json.loads(_quiz(run_quiz, monkeypatch, width, "calc", "attention", "--q", q, "--k", k, "--v", v, "--json"))
    text = _quiz(run_quiz, monkeypatch, width, "calc", "attention", "--q", q, "--k", k, "--v", v)
    given = []
    for name, typed in (("Q", q), ("K", k), ("V", v)):
        m = parse_matrix(typed, name)
        cols = [f"col {c + 1}" for c in range(len(m[0]))] if name == "V" else [f"d{c + 1}" for c in range(len(m[0]))]
        given.append({"title": name, "matrix": [[format_fraction(x) for x in row] for row in m],
                      "row_labels": [f"{name.lower()}{i + 1}" for i in range(len(m))], "col_labels": cols})
    assert_matrices_shown(text, given)
    output = {"title": "O", "matrix": [[f"{x:.4f}" for x in row] for row in data["output"]],
              "row_labels": [f"q{i + 1}" for i in range(len(data["output"]))],
              "col_labels": [f"col {c + 1}" for c in range(len(data["output"][0]))]}
    assert_matrices_shown(text.split("O (rounded)")[-1] if "O (rounded)" in text else text.split("O = A·V")[-1],
                          [output])
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= width


def test_a_truncated_row_is_caught():
    """The checker itself fails on what issue 14 saw: `v1 2 0` for the row `v1 2 2 0`."""
    with pytest.raises(AssertionError):
        assert_matrices_shown("V\n v1   2      0\n v2   2      4", [
            {"title": "V", "matrix": [["2", "2", "0"], ["2", "2", "4"]], "row_labels": ["v1", "v2"]}])
    assert_matrices_shown("V\n v1   2   2   0\n v2   2   2   4", [
        {"title": "V", "matrix": [["2", "2", "0"], ["2", "2", "4"]], "row_labels": ["v1", "v2"]}])


def test_box_title_is_never_cut(run_quiz, monkeypatch):
    """A title too long for the border moves inside the box, whole."""
    from rich.console import Console

    from quizforge.bank.registry import question
    from quizforge.render.question import question_panel

    q = question("attention.output-0002")
    for width in WIDTHS:
        console = Console(width=width, record=True, highlight=False)
        console.print(question_panel(q, "10/10 · review (early)"))
        text = console.export_text()
        flat = " ".join(text.replace("│", " ").split())
        assert "…" not in text
        assert f"{q.title} · {q.kind} · {q.marks} mark" in flat.replace("  ", " ") or \
            all(word in flat for word in (q.title.split() + [q.kind, "10/10", "review", "(early)"]))


def test_the_issue_example_at_50_columns(run_quiz, monkeypatch):
    """Issue 14 saw `v1 2 0` here; the row is `v1 2 2 0`."""
    text = _quiz(run_quiz, monkeypatch, 50, "ask", "attention.score", "--seed", "1")
    rows = [" ".join(_tokens(line)) for line in text.splitlines()]
    assert any(row.endswith("q1 0 0 k1 1 0 v1 2 2 0") for row in rows), text
    assert any(row.endswith("q2 1 -1 k2 2 1 v2 2 2 4") for row in rows), text


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_drill_question_in_a_40x12_pane_shows_q_k_and_v(tmp_path):
    """In a real 40×12 terminal the drill's attention question shows every entry of Q, K and V
    (scrolled into the pane's history where the pane is too short, never dropped)."""
    from practice_helpers import quiz_env, shown_ids

    from quizforge.bank.registry import question

    socket = f"quizforge-test-{uuid.uuid4().hex[:12]}"
    tmux = ["tmux", "-L", socket]
    env = quiz_env(tmp_path)
    env.pop("TMUX", None)
    command = " ".join(["env", f"QUIZFORGE_HOME={tmp_path}", "NO_COLOR=1", sys.executable, "-m", "quizforge",
                        "practice", "--topic", "attention.score", "--count", "1"])

    def screen() -> str:
        return subprocess.run([*tmux, "capture-pane", "-p", "-J", "-S", "-", "-t", "quiz"], capture_output=True,
                              text=True, env=env, timeout=10).stdout

    try:
        subprocess.run([*tmux, "-f", "/dev/null", "new-session", "-d", "-x", "40", "-y", "12", "-s", "quiz",
                        command], check=True, env=env, timeout=10)
        deadline = time.monotonic() + 20
        text = ""
        while time.monotonic() < deadline and "answer ›" not in text:
            time.sleep(0.2)
            text = screen()
        assert "answer ›" in text, text
        (qid,) = shown_ids(text)
        exhibits = [{"title": e.title, "matrix": e.matrix, "row_labels": e.row_labels, "col_labels": e.col_labels}
                    for e in question(qid).exhibits]
        assert [e["title"] for e in exhibits] == ["Q", "K", "V"]
        assert_matrices_shown(text, exhibits)
        assert max(len(line) for line in text.splitlines()) <= 40
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, env=env, timeout=10)


def _whole_ids(text: str) -> set[str]:
    return set(re.findall(r"(?<![\w.…])([a-z]+\.[a-z0-9_]+)(?![\w.…])", text))


@pytest.mark.parametrize("width", WIDTHS)
def test_bank_list_never_cuts_a_template_id(run_quiz, monkeypatch, width):
    text = _quiz(run_quiz, monkeypatch, width, "bank", "list")
    assert "…" not in text
    assert {t.id for t in all_templates()} <= _whole_ids(text)
    assert max(len(line.rstrip()) for line in text.splitlines()) <= width


def test_bank_list_piped_never_cuts_a_template_id(tmp_path):
    from practice_helpers import run_quiz as run_piped

    done = run_piped(tmp_path, "bank", "list")
    assert done.returncode == 0, done.stderr
    assert "dims.gqa_groups" in done.stdout and "dims.gqa_grou…" not in done.stdout
    assert {t.id for t in all_templates()} <= _whole_ids(done.stdout)
