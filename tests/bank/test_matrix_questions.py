"""Issue 22 item 3: NAT questions whose answer is a whole matrix (the causal mask, the attention
weights, the output), graded entry by entry through `quiz check`, the drill and the mock, and
shown whole in the terminal at 40 and 120 columns."""

from __future__ import annotations

import io
import json
import math
import re
from decimal import Decimal
from fractions import Fraction

import pytest
from rich.console import Console

from quizforge import answers
from quizforge.answers import matrix_questions
from quizforge.answers.check import check_answer
from quizforge.bank.registry import get_template, question
from quizforge.tui.terminal import EOF
from terminal_support import assert_whole

MATRIX_TEMPLATES = ("matrices.causal_mask", "matrices.attention_weights", "matrices.attention_output")
MASK = "matrices.causal_mask-0000"          # 4×4, 1 where query i may attend to key j
ADDITIVE = "matrices.causal_mask-0001"      # 4×4, 0 and −∞
CACHED = "matrices.causal_mask-0003"        # 2 new queries over 4 cached keys: 2×4
WEIGHTS = "matrices.attention_weights-0000"  # 4×4, no mask
OUTPUT = "matrices.attention_output-0003"   # 3×3, causal


def rows_text(rows, sep: str = "; ") -> str:
    return sep.join(" ".join(str(x) for x in row) for row in rows)


def check_matrix_key(q) -> None:
    """A matrix key's rules, for any seed: stored as shown, accepted as printed, no entry's range
    holding 0 unless the entry is 0, and no modelled mistake accepted as a whole."""
    rows, cols = matrix_questions.shape_of(q.answer)
    assert 2 <= rows <= 16 and 2 <= cols <= 16, q.id
    assert all(len(row) == cols for row in q.answer), q.id
    for row in q.answer:
        for x in row:
            if matrix_questions.is_minus_infinity(x):
                continue
            if q.decimals is not None:
                assert float(answers.round_half_away(x, q.decimals)) == x, (q.id, x)
                if x != 0:
                    assert not answers.nat_range(x, q.decimals).accepts(0), (q.id, x)
            else:
                assert x in (0, 1), (q.id, x)
    assert len(q.misconceptions) >= 4, (q.id, [m.tag for m in q.misconceptions])
    for m in q.misconceptions:
        assert matrix_questions.shape_of(m.value) == (rows, cols), (q.id, m.tag)
        assert matrix_questions.wrong_entries(q.answer, m.value, q.decimals), (q.id, m.tag)
        if q.decimals is not None:    # nor the mistake as its maker types it, to the decimals asked
            typed = [[x if matrix_questions.is_minus_infinity(x) else answers.round_half_away(x, q.decimals) for x in row]
                     for row in m.value]
            assert matrix_questions.wrong_entries(q.answer, typed, q.decimals), (q.id, m.tag, typed)


@pytest.mark.parametrize("template_id", MATRIX_TEMPLATES)
def test_every_mistake_is_named_when_typed_as_a_matrix(template_id):
    """Through check_answer(), as `quiz check` calls it: the key as printed is right; each modelled mistake,
    typed out whole, is wrong, names itself (or every mistake that gives it), and scores 0."""
    template = get_template(template_id)
    for seed in range(40):
        q = template.question(seed)
        assert check_answer(q, q.answer_md).correct, q.id
        for m in q.misconceptions:
            verdict = check_answer(q, matrix_questions.matrix_text(m.value, q.decimals))
            assert not verdict.correct and verdict.marks == 0.0, (q.id, m.tag)
            assert m.feedback in verdict.feedback and verdict.misconception is not None, (q.id, m.tag)


# --- quiz check: the forms people type ----------------------------------------------------------

MASK_ROWS = [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]


@pytest.mark.parametrize("text", [
    "[[1,0,0,0],[1,1,0,0],[1,1,1,0],[1,1,1,1]]",
    "[[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]",
    "1 0 0 0; 1 1 0 0; 1 1 1 0; 1 1 1 1",
    "1,0,0,0;1,1,0,0;1,1,1,0;1,1,1,1",
    "[1 0 0 0; 1 1 0 0; 1 1 1 0; 1 1 1 1]",
    "1 0 0 0\n1 1 0 0\n1 1 1 0\n1 1 1 1",
    "1, 0, 0, 0\r\n1, 1, 0, 0\r\n1, 1, 1, 0\r\n1, 1, 1, 1\n",
])
def test_quiz_check_takes_a_matrix_as_people_type_it(run_quiz, text):
    code, out, err = run_quiz("check", MASK, text, "--json")
    assert code == 0, err
    verdict = json.loads(out)
    assert verdict["correct"] is True and verdict["marks"] == 1.0
    assert verdict["given"] == "[[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]"


def test_quiz_check_names_the_wrong_entries_and_the_mistake(run_quiz):
    transposed = [list(col) for col in zip(*MASK_ROWS)]
    code, out, _ = run_quiz("check", MASK, rows_text(transposed), "--json")
    verdict = json.loads(out)
    assert code == 0 and verdict["correct"] is False and verdict["marks"] == 0.0
    assert verdict["misconception"]["tag"] == "mask-transposed"
    assert "12 of 16 entries are wrong (row, column): (1,2), (1,3), (1,4)" in verdict["feedback"]
    # one wrong entry: named alone, and all or nothing (GATE's NAT marking)
    slip = [row[:] for row in MASK_ROWS]
    slip[2][3] = 1
    code, out, _ = run_quiz("check", MASK, rows_text(slip), "--json")
    verdict = json.loads(out)
    assert verdict["feedback"] == "Not quite: 1 of 16 entries is wrong (row, column): (3,4)."
    assert verdict["marks"] == 0.0 and verdict["misconception"] is None
    # the terminal verdict says the same and shows the key
    code, out, _ = run_quiz("check", MASK, rows_text(slip))
    assert code == 0 and "✗" in out and "(3,4)" in out and "[[1, 0, 0, 0], [1, 1, 0, 0]" in out


@pytest.mark.parametrize("text, needle", [
    ("1 0; 1 1", "expected a 4×4 matrix (4 rows of 4 entries), got 2×2: nothing was graded"),
    ("1 0 0 0; 1 1 0", "row 2 has 3 entries, row 1 has 4 (expected a 4×4 matrix"),
    ("1 0 0 0; 1 x 0 0; 1 1 1 0; 1 1 1 1", "'x' is not a number at position 12 (expected a 4×4 matrix"),
    ("[[1,0,0,0],[1,1,0,0]", "the '[' at position 1 is never closed"),
    ("", "empty input"),
    ("__import__('os')", "is not a number"),
])
def test_quiz_check_refuses_an_unreadable_or_misshapen_matrix_in_one_line(run_quiz, text, needle):
    code, out, err = run_quiz("check", MASK, text)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and needle in err and "Traceback" not in err, err


def test_an_additive_mask_takes_minus_infinity_as_people_write_it(run_quiz):
    q = question(ADDITIVE)
    assert "(write −∞ as -inf)" in q.instruction()
    for minus_infinity in ("-inf", "-∞", "−∞", "-Infinity"):
        rows = [[0 if j <= i else minus_infinity for j in range(4)] for i in range(4)]
        code, out, _ = run_quiz("check", ADDITIVE, rows_text(rows), "--json")
        assert json.loads(out)["correct"] is True, minus_infinity
    # the 0/1 form answers a different question, and is told so
    code, out, _ = run_quiz("check", ADDITIVE, rows_text(MASK_ROWS), "--json")
    verdict = json.loads(out)
    assert verdict["misconception"]["tag"] == "other-form" and "additive mask adds 0" in verdict["feedback"]
    # +inf or a large negative number is not −∞
    code, out, _ = run_quiz("check", ADDITIVE, "0 -1e9 -1e9 -1e9; 0 0 -1e9 -1e9; 0 0 0 -1e9; 0 0 0 0", "--json")
    assert json.loads(out)["correct"] is False
    code, _, err = run_quiz("check", ADDITIVE, "0 inf inf inf; 0 0 inf inf; 0 0 0 inf; 0 0 0 0")
    assert code == 2 and "entries must be finite numbers" in err


def test_a_cached_decoding_mask_is_the_lower_triangle_shifted_right():
    q = question(CACHED)
    assert "2 new queries (the last 2 of 4 positions) attend to all 4 keys" in q.prompt and "n_q" not in q.prompt
    assert check_answer(q, "1 1 1 0; 1 1 1 1").correct
    verdict = check_answer(q, "1 0 0 0; 1 1 0 0")
    assert verdict.misconception.tag == "top-left-aligned" and "(1,2), (1,3)" in verdict.feedback


def _weights_by_hand(q) -> list[list[float]]:
    """softmax(QKᵀ/√d_k) row by row from the exhibits, independently of the bank's code."""
    Q, K = ([[float(x) for x in row] for row in e.matrix] for e in q.exhibits[:2])
    scores = [[sum(a * b for a, b in zip(qi, kj)) / math.sqrt(len(qi)) for kj in K] for qi in Q]
    out = []
    for row in scores:
        e = [math.exp(s - max(row)) for s in row]
        out.append([x / sum(e) for x in e])
    return out


def test_weights_matrix_is_graded_entry_by_entry_with_the_gate_range():
    q = question(WEIGHTS)
    assert "No mask is applied" in q.prompt and q.decimals == 2
    by_hand = _weights_by_hand(q)
    key = [[float(answers.round_half_away(x, 2)) for x in row] for row in by_hand]
    assert [list(row) for row in q.answer] == key
    assert q.answer_md == matrix_questions.matrix_text(key, 2)
    # every entry at either end of its range (key ± 0.01) is right; one entry 0.02 off is not
    for shift in (Fraction(1, 100), Fraction(-1, 100)):
        moved = [[Fraction(str(x)) + shift for x in row] for row in key]
        assert check_answer(q, rows_text([[str(x) for x in row] for row in moved])).correct
    off = [[str(x) for x in row] for row in key]
    off[1][2] = str(Fraction(off[1][2]) + Fraction(2, 100))
    verdict = check_answer(q, rows_text(off))
    assert not verdict.correct and "1 of 16 entries is wrong (row, column): (2,3)" in verdict.feedback
    # transposed, and softmax down each column: both told apart and named
    transposed = [[key[j][i] for j in range(4)] for i in range(4)]
    assert check_answer(q, rows_text(transposed)).misconception.tag == "weights-transposed"
    Q, K = ([[float(x) for x in row] for row in e.matrix] for e in q.exhibits[:2])
    scores = [[sum(a * b for a, b in zip(qi, kj)) for kj in K] for qi in Q]
    scaled = [[s / math.sqrt(len(Q[0])) for s in row] for row in scores]
    wrong_axis = [[math.exp(scaled[i][j]) / sum(math.exp(scaled[r][j]) for r in range(4)) for j in range(4)]
                  for i in range(4)]
    verdict = check_answer(q, rows_text([[f"{x:.2f}" for x in row] for row in wrong_axis]))
    assert verdict.misconception.tag == "softmax-wrong-axis" and "over the keys" in verdict.feedback
    unscaled = [[math.exp(x) / sum(math.exp(t) for t in row) for x in row] for row in scores]
    assert check_answer(q, rows_text([[f"{x:.2f}" for x in row] for row in unscaled])).misconception.tag == "no-sqrt-dk"


def test_output_matrix_is_the_weights_times_v():
    q = question(OUTPUT)
    assert "A causal mask is applied" in q.prompt
    V = [[float(x) for x in row] for row in q.exhibits[2].matrix]
    Q, K = ([[float(x) for x in row] for row in e.matrix] for e in q.exhibits[:2])
    out = []
    for i, qi in enumerate(Q):
        s = [sum(a * b for a, b in zip(qi, K[j])) / math.sqrt(len(qi)) for j in range(i + 1)]
        e = [math.exp(x - max(s)) for x in s]
        out.append([sum(e[j] / sum(e) * V[j][c] for j in range(i + 1)) for c in range(len(V[0]))])
    assert [list(row) for row in q.answer] == [[float(answers.round_half_away(x, 2)) for x in row] for row in out]
    assert check_answer(q, rows_text([[f"{x:.4f}" for x in row] for row in out], "\n")).correct


def test_json_and_markdown_carry_the_shape_and_the_key(run_quiz):
    code, out, _ = run_quiz("ask", WEIGHTS, "--json")
    asked = json.loads(out)
    assert asked["answer_shape"] == [4, 4] and "answer" not in asked
    assert asked["instruction"].startswith("Enter the 4×4 matrix, each entry rounded to 2 decimal places")
    code, out, _ = run_quiz("explain", ADDITIVE, "--json")
    explained = json.loads(out)
    assert explained["answer_matrix"][0] == ["0", "-inf", "-inf", "-inf"]
    assert explained["accepted"] == "each entry exactly as in the key"
    code, out, _ = run_quiz("explain", ADDITIVE, "--markdown")
    assert ("**Answer:** $$\\begin{bmatrix} 0 & -\\infty & -\\infty & -\\infty \\\\ 0 & 0 & -\\infty & -\\infty"
            in out)


# --- the drill and the mock, at 40 and 120 columns ------------------------------------------------

class Typist:
    """A reader that answers what is on screen: `plan(question, prompt)` gives each line."""

    interactive = False

    def __init__(self, plan, question_of):
        self.plan, self.question_of, self.prompts = plan, question_of, []

    def prepare(self):
        pass

    def read(self, prompt="", *, deadline=None, status=None):
        self.prompts.append(prompt)
        return self.plan(self.question_of(), prompt)


def _entries(q) -> list[str]:
    """Every number the learner works from or is told: the exhibits and the key's entries."""
    pieces = [x for e in q.exhibits for row in e.matrix for x in row]
    return pieces + [matrix_questions.entry_text(x, q.decimals) for row in q.answer for x in row]


@pytest.mark.parametrize("width", (40, 120))
def test_drill_takes_rows_one_per_line_names_wrong_entries_then_grades(tmp_path, width, monkeypatch):
    from quizforge.practice import drill as engine
    from quizforge.practice import scheduler
    from quizforge.tui.drill_screen import DrillScreen
    from quizforge.practice.store import History

    # The transpose is wrong at (1, 2) only where the weights a₁₂ and a₂₁ differ: about 1 draw in 55
    # has them equal (issue 34 item 14 met -0069), so the drill draws a variant where they differ.
    monkeypatch.setattr(scheduler.secrets, "randbelow", lambda n: 0)
    key = question("matrices.attention_weights-0000").answer
    assert key[0][1] != key[1][0]
    lines: list[str] = []

    def plan(q, prompt):
        if prompt.startswith("row "):
            return lines.pop(0)
        if prompt.startswith("Enter next"):
            return "e" if not seen_solution else "q"
        step = len([p for p in typist.prompts if p == "answer › "])
        key = [[matrix_questions.entry_text(x, q.decimals) for x in row] for row in q.answer]
        if step == 1:
            return "1 2 3 4 5; 6 7 8 9 10"         # no matrix here is 2×5: refused, not a try
        if step == 2:                                 # the transpose, typed one row per line
            rows = [" ".join(col) for col in zip(*key)]
            lines.extend(rows[1:])
            return rows[0]
        return matrix_questions.matrix_text(q.answer, q.decimals)

    seen_solution = False
    with History(tmp_path / "history.db") as history:
        drill = engine.Drill(history, engine.DrillOptions(topic="matrices.attention_weights", count=2))
        typist = Typist(plan, lambda: drill.current.question)
        out = io.StringIO()
        screen = DrillScreen(drill, typist, Console(file=out, width=width, color_system=None, highlight=False))
        original = screen._draw

        def draw(events):
            nonlocal seen_solution
            seen_solution = seen_solution or any(isinstance(e, engine.SolutionShown) for e in events)
            return original(events)

        screen._draw = draw
        screen.run()
        text = out.getvalue()
        (attempt,) = history.attempts()
    q = question(attempt["question_id"])
    n = len(q.answer)
    assert f"expected a {n}×{n} matrix ({n} rows of {n} entries), got 2×5" in " ".join(text.split())
    assert [p for p in typist.prompts if p.startswith("row ")] == [f"row {r} of {n} › " for r in range(2, n + 1)]
    retry = " ".join(text.split())
    assert "One more try" in retry and "(row, column): (1,2)" in retry and "the transpose" in retry
    assert "✓ Correct." in text and "Answer" in text
    assert attempt["outcome"] == "correct" and attempt["tries"] == 2
    assert_whole(text, _entries(q), width)


@pytest.mark.parametrize("width", (40, 120))
def test_mock_takes_matrix_answers_and_its_report_shows_them_whole(tmp_path, width):
    from quizforge.tui.mock_report import mock_report_view
    from quizforge.tui.mock_screen import MockExam
    from quizforge.practice.store import History, MockState

    paper = [MASK, OUTPUT]
    script = ["1 0 0 0", "1 1 0 0", "1 1 1 0", "1 1 1 1",        # Q1, one row per line
              "1 2; 3 4",                                          # Q2: the wrong shape, refused
              question(OUTPUT).answer_md, "submit", "submit"]

    def plan(q, prompt):
        return script.pop(0) if script else EOF

    with History(tmp_path / "history.db") as history:
        session_id = history.start_session("mock", {}, 0.0)
        state = MockState(session_id, "gate", paper, 10)
        history.create_mock(state)
        out = io.StringIO()
        exam = MockExam(history, Typist(plan, lambda: None), Console(file=out, width=width, color_system=None,
                                                                   highlight=False), state)
        try:
            assert exam.run() == "submitted"
            result, _ = exam.engine.finish()
        finally:
            exam.prefetcher.close()
    text = out.getvalue()
    assert state.answers[0] == "1 0 0 0\n1 1 0 0\n1 1 1 0\n1 1 1 1"
    assert "saved: [[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]]" in " ".join(text.split())
    assert "expected a 3×3 matrix (3 rows of 3 entries), got 2×2" in " ".join(text.split())
    assert result["correct"] == 2 and result["score"] == 3.0
    for q in map(question, paper):
        assert_whole(text, [x for e in q.exhibits for row in e.matrix for x in row], width)
    console = Console(width=width, record=True, highlight=False, color_system=None)
    console.print(mock_report_view(result, []))
    report = console.export_text()
    assert "[[1, 0, 0, 0]," in report and "1 1 0 0" not in report   # the rows typed, as they were read
    for entry in ["1.00", "3.64", "3.45", "2.48"]:   # entries of the output's key, never split
        assert re.search(rf"(?<![\d.]){re.escape(entry)}(?!\d)", report), (entry, report)
    assert max(len(line.rstrip()) for line in report.splitlines()) <= width


# --- problem sets: PDF, Moodle, GIFT, QTI 2.1, Canvas ---------------------------------------------

SPEC = """title = "Matrices"
duration = 20
seed = 5

[[sections]]
name = "Whole matrices"
templates = ["matrices.attention_output", "matrices.attention_weights", "matrices.causal_mask"]   # named: a topic skips the fixed-fact mask
count = 3
"""


@pytest.fixture(scope="module")
def matrix_set(tmp_path_factory):
    from quizforge.problemsets.make import make_set

    folder = tmp_path_factory.mktemp("matrixset")
    (folder / "spec.toml").write_text(SPEC, "utf-8")
    (folder / "roster.csv").write_text("id,name\nS1,Asha\nS2,Bilal\n", "utf-8")
    make_set(folder / "spec.toml", folder / "out", roster=folder / "roster.csv", pdf=True)
    from quizforge.problemsets.sheets import write_keys

    write_keys(folder / "out", [])   # the keys as PDF, as `quiz set keys` writes them
    record = json.loads((folder / "out" / "set.json").read_text("utf-8"))
    return folder / "out", {s["id"]: [question(i) for i in s["questions"]] for s in record["students"]}


def _ranges(q) -> dict[str, tuple[str, str]]:
    """Each entry's accepted range, from the key: the entry ± one step (exact: the entry itself)."""
    out = {}
    for r, row in enumerate(q.answer, 1):
        for c, x in enumerate(row, 1):
            if matrix_questions.is_minus_infinity(x):
                out[f"r{r}c{c}"] = ("-inf", "-inf")
            elif q.decimals:
                step = Fraction(1, 10**q.decimals)
                c_ = Fraction(str(x))
                out[f"r{r}c{c}"] = (f"{float(c_ - step):.{q.decimals}f}", f"{float(c_ + step):.{q.decimals}f}")
            else:
                out[f"r{r}c{c}"] = (str(x), str(x))
    return out


def test_pdf_papers_have_a_box_per_entry_and_keys_print_the_matrix(matrix_set):
    import pikepdf
    pdfium = pytest.importorskip("pypdfium2")

    out, papers = matrix_set
    questions = papers["S1"]
    assert {q.template for q in questions} == set(MATRIX_TEMPLATES)
    paper = pdfium.PdfDocument(str(out / "papers" / "S1.pdf"))
    text = " ".join(" ".join(p.get_textpage().get_text_range().split()) for p in paper)
    assert text.count("Answer:") == 3
    # on paper the grid of boxes is explained, not how to type a matrix at a prompt
    assert text.count("one entry in each box") == 3 and "between rows" not in text
    boxes = 0
    for page in pikepdf.open(out / "papers" / "S1.pdf").pages:
        for _, operator in pikepdf.parse_content_stream(page):
            boxes += str(operator) in ("S", "s", "B", "b", "f")
    # The boxes are drawn as a grid: a rule above, below and between the rows, and beside every column.
    assert boxes >= sum(len(q.answer) + 1 + len(q.answer[0]) + 1 for q in questions)
    key = pdfium.PdfDocument(str(out / "keys" / "S1.pdf"))
    key_text = " ".join(" ".join(p.get_textpage().get_text_range().split()) for p in key)
    for q in questions:
        assert q.id in key_text
        for row in q.answer:
            for x in row:
                assert ("−∞" if matrix_questions.is_minus_infinity(x) else matrix_questions.entry_text(x, q.decimals)) \
                    in key_text, (q.id, x)


def cloze_subquestions(text: str) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each Cloze field as Moodle's multianswer import reads it: its type and its (fraction, answer)
    alternatives, split at unescaped '~' and unescaped as Moodle does."""
    found = []
    for kind, body in re.findall(r"\{1:(NUMERICAL|SHORTANSWER):((?:\\.|[^}])*)\}", text):
        alternatives = []
        for part in re.split(r"(?<!\\)~", body):
            fraction, answer = re.match(r"(=|%-?\d+%)?(.*)", part, re.S).groups()
            alternatives.append(("100" if fraction in ("=", None) else fraction.strip("%"),
                                 re.sub(r"\\(.)", r"\1", answer)))
        found.append((kind, alternatives))
    return found


def moodle_field_size(alternatives) -> int:
    """Moodle's multianswer renderer: a field is as wide as its longest answer (the answer text
    alone; a numerical tolerance is not part of it), before its own random 0–15 %."""
    return max(len(answer.split(":")[0] if ":" in answer else answer) for _, answer in alternatives)


def test_moodle_gives_each_entry_a_cloze_field_with_its_range(matrix_set):
    import xml.etree.ElementTree as ET

    from lms_support import moodle_accepts

    out, papers = matrix_set
    items = [i for i in ET.parse(out / "moodle.xml").getroot() if i.get("type") != "category"]
    assert items and all(i.get("type") == "cloze" for i in items)
    for item in items:
        q = question(item.findtext("idnumber"))
        assert q.instruction("fields") in item.findtext("questiontext/text")   # one entry per field, not rows
        assert "between rows" not in item.findtext("questiontext/text")
        fields = cloze_subquestions(item.findtext("questiontext/text"))
        ranges = list(_ranges(q).values())
        assert len(fields) == len(ranges)
        for (kind, alternatives), (low, high) in zip(fields, ranges):
            right = [answer for fraction, answer in alternatives if fraction == "100"]
            assert all(fraction in ("100", "0") for fraction, _ in alternatives)
            if kind == "SHORTANSWER":
                if low == "-inf":
                    assert {"-inf", "−∞"} <= set(right)
                else:
                    assert low in right and high in right and "-inf" not in right
                continue
            ((answer, tolerance),) = [a.split(":") for a in right]
            assert moodle_accepts(answer, tolerance, low) and moodle_accepts(answer, tolerance, high)
            assert not moodle_accepts(answer, tolerance, str(Decimal(high) + Decimal("0.001")))
            assert not moodle_accepts(answer, tolerance, str(Decimal(low) - Decimal("0.001")))
            for fraction, padding in alternatives:   # the 0 % answer that widens a field accepts nothing right
                if fraction == "0":
                    value, margin = padding.split(":")
                    assert not any(moodle_accepts(value, margin, end) for end in (low, high))
    gift = (out / "quiz.gift").read_text("utf-8")
    assert "::" not in gift and gift.count("// left out: a matrix answer needs one numeric field per entry") == len(items)
    assert "$CATEGORY" not in gift      # no empty category for "a random question from this category" to find
    report = (out / "lms_report.md").read_text("utf-8")
    assert "Matrix answers are Cloze questions with one numerical field per entry" in report
    assert "Matrix answers are left out of quiz.gift" in report and "fill-in-multiple-blanks" in report
    assert "quiz.gift has no category for Q1, Q2, Q3 (matrix answers; see below)" in report


def test_no_moodle_or_qti_field_shows_the_matrix_answer_by_its_width_or_type(tmp_path):
    """Over many seeds of every matrix template: within a question, every Cloze field is of one type
    and Moodle draws it one width; every QTI 2.1 entry is of one baseType and expected length."""
    import xml.etree.ElementTree as ET

    from quizforge.problemsets.lms import moodle_xml
    from quizforge.problemsets.lmstext import by_slot
    from quizforge.problemsets.qti import QTI21, _matrix_item21, _xml
    from quizforge.problemsets.roster import Student
    from quizforge.problemsets.variants import Paper, Slot

    additive = 0
    for template_id in MATRIX_TEMPLATES:
        template = get_template(template_id)
        questions = [template.question(seed) for seed in range(60)]
        additive += sum(q.uses_minus_infinity for q in questions)
        papers = [Paper(Student(f"S{n}", ""), (q,)) for n, q in enumerate(questions)]
        (group,) = by_slot([Slot(1, "s", template_id)], papers)
        root = ET.fromstring(moodle_xml("t", [group]))
        for item in root.iter("question"):
            if item.get("type") != "cloze":
                continue
            fields = cloze_subquestions(item.findtext("questiontext/text"))
            assert len({kind for kind, _ in fields}) == 1, item.findtext("idnumber")
            assert len({moodle_field_size(alternatives) for _, alternatives in fields}) == 1, item.findtext("idnumber")
        for variant in group.variants:
            # the item as its file holds it (its HTML, the entry fields among it, written as it is)
            element = ET.fromstring(_xml(_matrix_item21("I_1", "t", variant), QTI21, indent=False))
            declarations = element.findall("{http://www.imsglobal.org/xsd/imsqti_v2p1}responseDeclaration")
            assert len({d.get("baseType") for d in declarations}) == 1, variant.question.id
            lengths = {e.get("expectedLength") for e in element.iter(
                "{http://www.imsglobal.org/xsd/imsqti_v2p1}textEntryInteraction")}
            assert len(lengths) == 1, variant.question.id
    assert additive >= 5


@pytest.mark.filterwarnings("ignore:.* is deprecated, use:DeprecationWarning")   # pyslet's own old names
def test_qti21_scores_a_matrix_all_or_nothing_entry_by_entry(matrix_set):
    import xml.etree.ElementTree as ET
    import zipfile

    from pyslet.qtiv2.variables import BaseType
    from lms_support import CP, check_qti_xhtml, pyslet_item, pyslet_score

    out, _ = matrix_set
    archive = zipfile.ZipFile(out / "qti21.zip")
    manifest = ET.fromstring(archive.read("imsmanifest.xml"))
    checked = additive = 0
    for resource in manifest.findall("cp:resources/cp:resource[@type='imsqti_item_xmlv2p1']", CP):
        q = question(resource.findtext(".//lom:entry", namespaces=CP))
        check_qti_xhtml(ET.fromstring(archive.read(resource.get("href"))))
        body = archive.read(resource.get("href")).decode()
        assert "one entry in each field, row by row" in body and "between rows" not in body
        item = pyslet_item(archive.read(resource.get("href")))
        ranges = {f"RESPONSE_{name}": ends for name, ends in _ranges(q).items()}
        assert {d.identifier for d in item.ResponseDeclaration} == set(ranges)
        full = (float(q.marks), float(q.marks))
        (base_type,) = {d.baseType for d in item.ResponseDeclaration}   # one type for every entry
        typed = (lambda text: text) if base_type == BaseType.string else float  # noqa: E731
        for end in (0, 1):   # every entry at the low end of its range, then at the high end
            values = {k: (v[end] if v[end] == "-inf" else typed(v[end])) for k, v in ranges.items()}
            assert pyslet_score(item, values) == full, q.id
        finite = next(k for k, v in ranges.items() if v[0] != "-inf")
        beyond = dict(values, **{finite: typed(str(Decimal(ranges[finite][1]) + Decimal("0.001")))})
        assert pyslet_score(item, beyond)[0] == 0                   # one entry out: nothing (GATE)
        assert pyslet_score(item, {})[0] == 0
        infinite = [k for k, v in ranges.items() if v[0] == "-inf"]
        if infinite:
            additive += 1
            assert base_type == BaseType.string
            assert pyslet_score(item, dict(values, **{k: "−∞" for k in infinite})) == full
            assert pyslet_score(item, dict(values, **{infinite[0]: "-1e9"}))[0] == 0
        checked += 1
    assert checked >= 3 and additive >= 1


def test_canvas_blanks_accept_the_values_of_each_range(matrix_set):
    import xml.etree.ElementTree as ET
    import zipfile

    from lms_support import C12

    out, _ = matrix_set
    archive = zipfile.ZipFile(out / "canvas_qti12.zip")
    (quiz,) = [n for n in archive.namelist() if n.endswith(".xml") and "meta" not in n and "manifest" not in n]
    items = list(ET.fromstring(archive.read(quiz)).iter(f"{{{C12['c']}}}item"))
    assert items
    for item in items:
        fields = {f.findtext("c:fieldlabel", namespaces=C12): f.findtext("c:fieldentry", namespaces=C12)
                  for f in item.iter(f"{{{C12['c']}}}qtimetadatafield")}
        assert fields["question_type"] == "fill_in_multiple_blanks_question"
        lids = item.findall(".//c:response_lid", C12)
        text = item.findtext("c:presentation/c:material/c:mattext", namespaces=C12)
        assert "one entry in each field, row by row" in text and "between rows" not in text
        labels = {lab.get("ident"): lab.findtext(".//c:mattext", namespaces=C12)
                  for lid in lids for lab in lid.iter(f"{{{C12['c']}}}response_label")}
        scored = {e.text for e in item.iter(f"{{{C12['c']}}}varequal")}
        assert scored == set(labels)
        for lid in lids:
            name = lid.get("ident").removeprefix("response_")
            assert f"[{name}]" in text
            accepted = {lab.findtext(".//c:mattext", namespaces=C12) for lab in lid.iter(f"{{{C12['c']}}}response_label")}
            if "-inf" in accepted:
                assert {"-∞", "−∞"} <= accepted
                continue
            low, high = Decimal(min(accepted, key=Decimal)), Decimal(max(accepted, key=Decimal))
            assert high - low in (Decimal("0.02"), Decimal(0))
            assert all(len(a.split(".")[-1]) <= 2 for a in accepted if "." in a)


def test_each_medium_gets_its_own_matrix_instruction():
    q = question(ADDITIVE)
    assert q.instruction() == q.instruction("terminal") and "';' between rows" in q.instruction()
    assert q.instruction("paper") == "Write the 4×4 matrix with exact entries (an entry may be −∞): one entry in each box."
    assert q.instruction("fields") == ("Type the 4×4 matrix with exact entries (type −∞ as -inf): one entry in each "
                                       "field, row by row.")
    with pytest.raises(ValueError, match="no instruction for the medium 'radio'"):
        q.instruction("radio")


def test_the_readme_sentences_on_matrix_answers_hold():
    """The README's matrix sentences: the topic and its three templates, and every form it shows."""
    from pathlib import Path

    from quizforge.bank.registry import templates_for

    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text("utf-8").split())
    assert "The topic `matrices` asks for whole matrices by hand" in readme
    assert {t.id for t in templates_for("matrices")} == set(MATRIX_TEMPLATES)
    sentence = readme[readme.index("A matrix answer is typed as"):]
    sentence = sentence[:sentence.index("as for any NAT.")]
    forms = re.findall(r"`([^`]+)`", sentence)
    assert forms == ["[[1,0],[1,1]]", "1 0; 1 1", 'quiz check ID "1 0" "1 1"', "-inf", "−∞"]
    q = question("matrices.attention_weights-0003")        # a 2×2 key: [[0.50, 0.50], [0.95, 0.05]]
    verdicts = [check_answer(q, text) for text in (forms[0], forms[1], "1 0\n1 1")]
    assert {v.given for v in verdicts} == {"[[1, 0], [1, 1]]"}
    assert all(v.feedback == verdicts[0].feedback and "(2,1) and (2,2)" in v.feedback for v in verdicts)
    assert check_answer(q, "[[0.5, 0.5], [0.95, 0.05]]").correct


def test_set_grade_marks_matrix_answers_and_a_misshapen_one_wrong(run_quiz, matrix_set, tmp_path):
    import csv

    out, papers = matrix_set
    s1, s2 = papers["S1"], papers["S2"]
    mistake = s2[0].misconceptions[0]
    rows = [("student", "question", "answer")]
    rows += [("S1", n, q.answer_md) for n, q in enumerate(s1, 1)]                  # all right
    rows += [("S2", 1, matrix_questions.matrix_text(mistake.value, s2[0].decimals)),  # a modelled mistake
             ("S2", 2, "1 2; 3 4; 5 6; 7 8; 9 10; 11 12; 13 14; 15 16; 17 18"),   # no key here is 9×2
             ("S2", 3, "\n".join(" ".join(matrix_questions.entry_text(x, s2[2].decimals) for x in row)
                                 for row in s2[2].answer))]                        # right, a row per line
    with (tmp_path / "responses.csv").open("w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows(rows)
    code, text, err = run_quiz("set", "grade", str(out), str(tmp_path / "responses.csv"), "-o", str(tmp_path / "g"))
    assert code == 0, err
    book = {r["student"]: r for r in csv.DictReader((tmp_path / "g" / "gradebook.csv").open(encoding="utf-8"))}
    assert float(book["S1"]["total"]) == float(book["S1"]["max"]) == sum(q.marks for q in s1)
    assert float(book["S2"]["total"]) == s2[2].marks                                 # all or nothing per matrix
    assert list(csv.DictReader((tmp_path / "g" / "rejects.csv").open(encoding="utf-8"))) == []
    n, m = matrix_questions.shape_of(s2[1].answer)
    feedback = (tmp_path / "g" / "feedback" / "S2.md").read_text("utf-8")
    assert f"a 9×2 matrix where a {n}×{m} matrix" in feedback   # a wrong answer on a paper, not a reject
    assert mistake.feedback in feedback and "(row, column)" in feedback


@pytest.mark.parametrize("width", (40, 120))
@pytest.mark.parametrize("qid", [ADDITIVE, CACHED, WEIGHTS, OUTPUT])
def test_explain_ends_with_the_key_as_a_matrix_whole_at_any_width(run_quiz, monkeypatch, qid, width):
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run_quiz("explain", qid)
    assert code == 0, err
    q = question(qid)
    shown = out[out.rindex("\nAnswer\n"):]                 # the key, after the worked solution
    grid = shown[:shown.index("accepted:")]
    rows = [line.split() for line in grid.splitlines()[2:] if line.strip()]
    wanted = [[matrix_questions.entry_text(x, q.decimals) for x in row] for row in q.answer]
    flat = [x for row in rows for x in row]
    assert flat == [x for row in wanted for x in row], shown   # every entry, whole, in order
    assert f"accepted: {matrix_questions.accepted_text(q)}" in " ".join(shown.split())
    assert max(len(line) for line in out.splitlines()) <= width


# --- commands and mistakes at a row prompt (issue 34 item 8) ---------------------------------------

def test_a_drill_row_prompt_takes_commands_cancels_on_an_empty_row_and_names_a_bad_row(tmp_path):
    """Through a pipe, as typed: a row that is not a row is refused with its number and the row as
    typed, then asked for again; an empty row cancels and says so; `h` at a row prompt is a hint."""
    from practice_helpers import Piped

    with Piped(tmp_path, "--topic", "matrices.causal_mask", "--count", "1") as quiz:
        quiz.expect("answer ›", timeout=90)
        q = question(quiz.current)
        rows = [" ".join(matrix_questions.entry_text(x, q.decimals) for x in row) for row in q.answer]
        n = len(rows)
        quiz.send(rows[0])
        quiz.expect(f"row 2 of {n} ›")
        quiz.send("1 q")
        _, said = quiz.expect(f"row 2 of {n} ›")
        assert "✗ row 2 ('1 q'): 'q' is not a number" in " ".join(said.split())
        assert "type row 2 again, or press Enter to cancel" in " ".join(said.split())
        quiz.send("")
        _, said = quiz.expect("answer ›")
        assert "matrix cancelled at row 2: the 1 row typed so far is dropped; type the answer again" in \
            " ".join(said.split())
        quiz.send(rows[0])
        quiz.expect(f"row 2 of {n} ›")
        quiz.send("h")
        _, said = quiz.expect("answer ›")
        assert "hint 1/" in said
        quiz.send(rows[0])
        for r in range(2, n + 1):
            quiz.expect(f"row {r} of {n} ›")
            quiz.send(rows[r - 1])
        quiz.expect("✓ Correct.")
        quiz.proc.stdin.close()   # the end of input ends the session, whichever prompt comes next
        assert quiz.wait() == 0
    assert quiz.text.count("is not a number") == 1   # the bad row never reached the grader


@pytest.mark.parametrize("width", (40, 80, 120))
def test_a_mock_row_prompt_takes_every_command(tmp_path, width):
    """`q` typed at "row 2 of 4" pauses the mock (issue 34 saw it taken as a row); `l` shows the
    palette; an empty row cancels without saving a short matrix."""
    from quizforge.tui.mock_screen import MockExam
    from quizforge.practice.store import History, MockState

    script = ["1 0 0 0", "l",            # the palette, from row 2
              "1 0 0 0", "",             # cancelled at row 2: nothing saved
              "1 0 0 0", "1 1 0 0", "1 1 x 0", "1 1 1 0", "q"]   # a bad row 3, typed again; then pause at row 4

    with History(tmp_path / "history.db") as history:
        session_id = history.start_session("mock", {}, 0.0)
        state = MockState(session_id, "gate", [MASK, OUTPUT], 10)
        history.create_mock(state)
        out = io.StringIO()
        typist = Typist(lambda q, prompt: script.pop(0) if script else EOF, lambda: None)
        exam = MockExam(history, typist, Console(file=out, width=width, color_system=None, highlight=False), state)
        try:
            assert exam.run() == "paused"
        finally:
            exam.prefetcher.close()
    text = " ".join(out.getvalue().split())
    assert [p for p in typist.prompts if p.startswith("row ")] == \
        ["row 2 of 4 › ", "row 2 of 4 › ", "row 2 of 4 › ", "row 3 of 4 › ", "row 3 of 4 › ", "row 4 of 4 › "]
    assert "answered" in text and "not visited" in text                 # the palette was drawn
    assert "matrix cancelled at row 2: the 1 row typed so far is dropped" in text
    assert "✗ row 3 ('1 1 x 0'): 'x' is not a number" in text
    assert text.count("is not a number") == 1
    assert 0 not in state.answers and not script
