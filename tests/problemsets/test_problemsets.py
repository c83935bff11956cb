"""`quiz set make` and `quiz set grade`: fair variants, keys, LMS exports, GATE marking of
returned answers, and bad specs, rosters and responses refused in one line."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from quizforge.bank.registry import question as regenerate
from quizforge.problemsets.make import make_set

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "quiz1.toml"
ROSTER = REPO / "examples" / "roster.csv"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("set") / "quiz1"
    make_set(EXAMPLE, out, roster=ROSTER)
    return out


def record(folder: Path) -> dict:
    return json.loads((folder / "set.json").read_text())


def test_every_student_gets_a_paper_and_a_key(made):
    ids = [row["id"] for row in csv.DictReader(ROSTER.open())]
    assert sorted(p.stem for p in (made / "papers").glob("*.md")) == sorted(ids)
    assert sorted(p.stem for p in (made / "keys").glob("*.md")) == sorted(ids)
    paper = (made / "papers" / "21CS001.md").read_text()
    assert "**Name:** Asha Rao" in paper and "**Roll number:** 21CS001" in paper
    assert paper.count("### Q") == 7 and "**Answer:**" not in paper
    key = (made / "keys" / "21CS001.md").read_text()
    first = record(made)["students"][0]["questions"][0]
    assert f"`{first}`" in key and "**Solution.**" in key and "quiz explain ID" in key


def test_variants_differ_but_share_their_structure(made):
    students = record(made)["students"]
    shapes = set()
    for s in students:
        qs = [regenerate(q) for q in s["questions"]]
        shapes.add(tuple((q.template, q.kind, q.marks, q.difficulty) for q in qs))
    assert len(shapes) == 1  # same templates, kinds, marks and difficulty, in the same order
    assert len({tuple(s["questions"]) for s in students}) == len(students)  # different numbers
    marks = {q: regenerate(q).marks for q in students[0]["questions"][3:]}
    assert sorted(marks.values()) == [1, 1, 2, 2]  # the Counting section's marks mix


CLASS = [("21CS001", "Asha Rao"), ("21CS002", "Bilal Khan"), ("21CS004", "चारु शर्मा"), ("21CS005", "Dev Iyer"),
         ("21CS007", "தமிழ் செல்வி"), ("21CS008", "Farah Ali")]


def _make_for(run_quiz, tmp_path, name: str, students, *pdf: str) -> Path:
    roster = tmp_path / f"{name}.csv"
    roster.write_text("id,name\n" + "".join(f"{i},{n}\n" for i, n in students), encoding="utf-8")
    out = tmp_path / name
    code, _, err = run_quiz("set", "make", str(EXAMPLE), "--roster", str(roster), *pdf, "-o", str(out))
    assert code == 0, err
    return out


def _paper_texts(out: Path, student_id: str) -> tuple:
    questions = next(s["questions"] for s in record(out)["students"] if s["id"] == student_id)
    return ((out / "papers" / f"{student_id}.md").read_bytes(), (out / "keys" / f"{student_id}.md").read_bytes(),
            tuple(questions))


def test_a_paper_depends_only_on_its_student_not_on_the_roster(run_quiz, tmp_path):
    """A student inserted in roll order, one appended and one removed: every other paper and key is
    the same byte for byte, and so are its question IDs (what `set grade` reads)."""
    before = _make_for(run_quiz, tmp_path, "before", CLASS, "--no-pdf")
    grown = [*CLASS[:2], ("21CS003", "Late Comer"), *CLASS[2:], ("21CS009", "Last One")]
    shrunk = [s for s in CLASS if s[0] != "21CS002"]
    for name, students in (("grown", grown), ("shrunk", shrunk), ("alone", CLASS[-1:])):
        after = _make_for(run_quiz, tmp_path, name, students, "--no-pdf")
        kept = [i for i, _ in students if i in dict(CLASS)]
        assert kept
        for student_id in kept:
            assert _paper_texts(after, student_id) == _paper_texts(before, student_id), (name, student_id)
    alone = record(tmp_path / "alone")["students"][0]
    assert [regenerate(q).template for q in alone["questions"]] == [s["template"] for s in record(before)["slots"]]


def test_a_grown_roster_keeps_each_printed_pdf_paper_as_it_was(run_quiz, tmp_path):
    pdfium = pytest.importorskip("pypdfium2")

    def text(out: Path, student_id: str) -> list[str]:
        document = pdfium.PdfDocument(str(out / "papers" / f"{student_id}.pdf"))
        return [page.get_textpage().get_text_range() for page in document]

    before = _make_for(run_quiz, tmp_path, "before", CLASS[:3])
    after = _make_for(run_quiz, tmp_path, "after", [*CLASS[:1], ("21CS0015", "Late Comer"), *CLASS[1:3]])
    for student_id, _ in CLASS[:3]:
        assert text(after, student_id) == text(before, student_id), student_id


def test_a_rerun_gives_the_same_bytes(made, tmp_path):
    again = tmp_path / "again"
    make_set(EXAMPLE, again, roster=ROSTER)
    for path in made.rglob("*"):
        if path.is_file():
            assert (again / path.relative_to(made)).read_bytes() == path.read_bytes(), path


def test_keys_table_matches_the_questions(made):
    rows = json.loads((made / "keys.json").read_text())
    assert len(rows) == 3 * 7
    for row in rows[:7]:
        q = regenerate(row["question_id"])
        assert row["marks"] == q.marks and row["kind"] == q.kind
    table = list(csv.DictReader((made / "keys.csv").open()))
    assert [r["question_id"] for r in table] == [r["question_id"] for r in rows]


def test_returned_answers_are_graded_the_gate_way(made, tmp_path, run_quiz):
    students = record(made)["students"]
    ada = [regenerate(q) for q in students[0]["questions"]]
    rows = [("student", "question", "answer")] + [("21CS001", n, _right(q)) for n, q in enumerate(ada, 1)]
    bob = [regenerate(q) for q in students[1]["questions"]]
    wrong_mcq = next(n for n, q in enumerate(bob, 1) if q.kind == "MCQ")
    rows.append(("21CS002", wrong_mcq, _wrong(bob[wrong_mcq - 1])))
    rows += [("21CS002", 1, "0.5"), ("21CS002", 1, "0.6"), ("nobody", 1, "a"), ("21CS003", 99, "a"),
             ("21CS003", 2, "banana")]
    responses = tmp_path / "responses.csv"
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    responses.write_text(buffer.getvalue())
    code, out, err = run_quiz("set", "grade", str(made), str(responses), "-o", str(tmp_path / "graded"))
    assert code == 0, err
    book = {r["student"]: r for r in csv.DictReader((tmp_path / "graded" / "gradebook.csv").open())}
    assert float(book["21CS001"]["total"]) == float(book["21CS001"]["max"]) == sum(q.marks for q in ada)
    marks = bob[wrong_mcq - 1].marks
    assert float(book["21CS002"][f"Q{wrong_mcq}"]) == pytest.approx(-marks / 3, abs=1e-4)  # GATE: a third off
    rejects = list(csv.DictReader((tmp_path / "graded" / "rejects.csv").open()))
    reasons = " ".join(r["reason"] for r in rejects)
    assert len(rejects) == 4 and "a second answer to question 1" in reasons and "unknown student 'nobody'" in reasons
    assert "no question '99'" in reasons and "cannot read 'banana'" in reasons
    stats = json.loads((tmp_path / "graded" / "item_stats.json").read_text())
    assert stats[0]["question"] == 1 and 0 <= stats[0]["facility"] <= 1
    feedback = (tmp_path / "graded" / "feedback" / "21CS001.md").read_text()
    assert f"**Total:** {sum(q.marks for q in ada):g}" in feedback


def _right(q) -> str:
    if q.kind == "NAT":
        from quizforge.answers import format_number

        return format_number(q.answer, q.decimals)
    return q.correct_letters


def _wrong(q) -> str:
    return next(letter for i, letter in enumerate("abcd") if i not in q.correct)


def test_item_statistics_by_hand():
    from types import SimpleNamespace

    from quizforge.problemsets.responses import item_statistics

    option = lambda text, right=False: SimpleNamespace(md=text, correct=right, value=None, misconception=None)  # noqa: E731
    q = SimpleNamespace(kind="MCQ", id="x", prompt="?", exhibits=(),
                        options=[option("yes", True), option("no"), option("maybe"), option("?")])
    students = {s: {"questions": ["x"]} for s in "ABCD"}
    verdict = lambda ok, given: SimpleNamespace(correct=ok, given=given, misconception=None)  # noqa: E731
    verdicts = {"A": {1: verdict(True, "a")}, "B": {1: verdict(True, "a")}, "C": {1: verdict(False, "b")},
                "D": {1: verdict(False, "c")}}
    totals = {"A": 2, "B": 1, "C": 0, "D": -1}
    (item,) = item_statistics(students, verdicts, totals, {"x": q})
    assert item["facility"] == 0.5 and item["discrimination"] == 1.0  # top 27% (A) right, bottom (D) wrong
    assert item["choices"] == {"✓ yes": 2, "✗ maybe": 1, "✗ no": 1}  # by what the option says
    assert item["variants"] == [{"question_id": "x", "students": 4, "answered": 4, "facility": 0.5}]


@pytest.mark.parametrize("spec, message", [
    ('title = "t"\n[[sections]]\ntemplates = ["nope.nothing"]\ncount = 1\n', "unknown template 'nope.nothing'"),
    ('title = "t"\n[[sections]]\ntopics = ["softmax"]\ncount = 40\n', "asks for 40 questions but only"),
    ('title = "t"\n[[sections]]\ntopics = ["params"]\ncount = 2\nmarks = { 1 = 1, 3 = 1 }\n', "carry 1 or 2 marks"),
    ('title = "t"\n[[sections]]\ntopics = ["params"]\ncount = 2\nmarks = { 1 = 3 }\n', "adds up to 3 questions"),
    ('title = "t"\n[[sections]]\ntopics = ["nope"]\ncount = 1\n', "unknown topic 'nope'"),
    ('title = \n', "not valid TOML"),
])
def test_a_bad_spec_is_one_line_and_writes_nothing(run_quiz, tmp_path, spec, message):
    path = tmp_path / "spec.toml"
    path.write_text(spec)
    out = tmp_path / "out"
    code, _, err = run_quiz("set", "make", str(path), "--variants", "2", "-o", str(out))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not out.exists() and [p.name for p in tmp_path.iterdir()] == ["spec.toml"]


def test_a_roster_with_a_student_twice_is_refused(run_quiz, tmp_path):
    roster = tmp_path / "roster.csv"
    roster.write_text("id,name\nx1,A\nx1,B\n")
    code, _, err = run_quiz("set", "make", str(EXAMPLE), "--roster", str(roster), "-o", str(tmp_path / "o"))
    assert code == 2 and "line 3: student 'x1' is listed twice" in err


def test_no_pdf_writes_everything_else(run_quiz, tmp_path):
    code, out, err = run_quiz("set", "make", str(EXAMPLE), "--variants", "2", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0, err
    assert not list((tmp_path / "s").rglob("*.pdf")) and (tmp_path / "s" / "moodle.xml").exists()
    assert sorted(p.name for p in (tmp_path / "s" / "papers").iterdir()) == ["V1.md", "V2.md"]


def test_numbered_variants(tmp_path):
    make_set(EXAMPLE, tmp_path / "v", variants=4)
    assert sorted(p.name for p in (tmp_path / "v" / "papers").glob("*.md")) == ["V1.md", "V2.md", "V3.md", "V4.md"]


def test_papers_and_keys_are_typeset_as_pdf(made, run_quiz, tmp_path):
    from pypdf import PdfReader

    qids = record(made)["students"][0]["questions"]
    paper = PdfReader(made / "papers" / "21CS001.pdf")
    text = " ".join(page.extract_text() for page in paper.pages)
    assert "Roll number: 21CS001" in text and "Asha Rao" in text
    assert len(paper.pages) % 2 == 0   # padded for double-sided printing
    for qid in qids:
        assert regenerate(qid).title in text
        assert qid not in text  # the paper does not give away the ID that regenerates the key
    assert not list((made / "keys").glob("*.pdf"))   # keys as PDF only on request:
    code, out, err = run_quiz("set", "keys", str(made), "21cs001", "-o", str(tmp_path / "keys"))
    assert code == 0, err
    assert out == f"1 answer key as PDF in {tmp_path / 'keys'}\n"
    assert [p.name for p in (tmp_path / "keys").iterdir()] == ["21CS001.pdf"]
    key = " ".join(page.extract_text() for page in PdfReader(tmp_path / "keys" / "21CS001.pdf").pages)
    assert all(qid in key for qid in qids) and "Answer:" in key and "Solution." in key
    everyone = PdfReader(made / "all_papers.pdf")  # the class's papers in one file, each its own pages
    assert len(everyone.pages) == sum(len(PdfReader(made / "papers" / f"{s}.pdf").pages)
                                      for s in ("21CS001", "21CS002", "21CS003"))
    assert "Bilal Khan" not in text and "Bilal Khan" in " ".join(p.extract_text() for p in everyone.pages)


def test_latex_math_becomes_typst_math():
    from quizforge.text.typst import tex_to_typst

    assert tex_to_typst(r"\frac{QK^\top}{\sqrt{d_k}}") == "frac(Q K^(top), sqrt(d_(k)))"
    assert tex_to_typst(r"\operatorname{softmax}(x) \cdot 2") == 'op("softmax")(x) dot.c 2'
    assert tex_to_typst(r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}") == 'mat(delim: "[", 1, 2; 3, 4)'
    assert tex_to_typst(r"a_{j1}") == "a_(j 1)"
    assert tex_to_typst(r"QK^\top/\sqrt{d_k}") == r"Q K^(top)\/ sqrt(d_(k))"  # a slash, not a fraction


def test_every_template_typesets_without_falling_back():
    import typst

    from quizforge.bank.registry import all_templates
    from quizforge.problemsets.typeset import PREAMBLE, question_typst

    import re

    from quizforge.text.typst import tex_to_typst

    math = re.compile(r"\$\$(.+?)\$\$|(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)
    for template in all_templates():
        for seed in (3, 4242):
            q = template.question(seed)
            for with_answer in (False, True):  # the paper's question, and the key's solution
                typst.compile((PREAMBLE + question_typst(q, 1, with_answer, plain_math=False)).encode())
            # every formula is typeset as math: none falls back to plain text
            texts = [q.prompt, q.answer_md, *(o.md for o in q.options), *(o.why for o in q.options),
                     *(s.title for s in q.solution), *(s.md for s in q.solution)]
            for match in (m for text in texts for m in math.finditer(text)):
                tex_to_typst(match.group(1) or match.group(2))


def test_a_code_listing_keeps_its_lines_on_the_paper(tmp_path):
    import typst
    from pypdf import PdfReader

    from quizforge.problemsets.typeset import PREAMBLE, question_typst

    q = regenerate("attention.softmax_axis_bug-0001")
    pdf = tmp_path / "q.pdf"
    pdf.write_bytes(typst.compile((PREAMBLE + question_typst(q, 1, False, plain_math=False)).encode()))
    lines = PdfReader(pdf).pages[0].extract_text().splitlines()
    # each line of the listing stands alone, as written, not reflowed into the prose around it
    assert "weights = torch.softmax(scores, dim=2)" in [line.strip() for line in lines]
    assert any(line.strip().startswith("scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)") for line in lines)


def test_inline_code_with_quotes_and_backslashes_is_kept_exactly():
    import typst

    from quizforge.problemsets.typeset import PREAMBLE
    from quizforge.text.typst import markdown_to_typst

    source = markdown_to_typst('Call `f("a\\b")` here.')
    assert '#raw("f(\\"a\\\\b\\")")' in source
    typst.compile((PREAMBLE + source).encode())


def test_attention_weights_are_drawn_as_a_heatmap_in_the_key():
    from quizforge.bank.registry import get_template
    from quizforge.problemsets.typeset import question_typst

    q = get_template("attention.weight").question(5)
    assert "darker is more weight" in question_typst(q, 1, with_answer=True, plain_math=False)
    assert "darker is more weight" not in question_typst(q, 1, with_answer=False, plain_math=False)


def test_math_typst_refuses_is_set_as_plain_text_in_that_share(tmp_path, monkeypatch):
    from pypdf import PdfReader

    from quizforge.text import typst

    monkeypatch.setattr(typst, "tex_to_typst", lambda latex: "#)")   # no formula compiles
    typst.markdown_to_typst.cache_clear()
    try:
        make_set(EXAMPLE, tmp_path / "set", variants=5)
    finally:
        typst.markdown_to_typst.cache_clear()
    pdfs = sorted((tmp_path / "set" / "papers").glob("*.pdf"))
    assert [p.stem for p in pdfs] == ["V1", "V2", "V3", "V4", "V5"]
    assert "Roll number: V3" in PdfReader(pdfs[2]).pages[0].extract_text()
    assert "V3" in " ".join(page.extract_text() for page in PdfReader(tmp_path / "set" / "answer_book.pdf").pages)
    assert not list(tmp_path.glob(".set.*"))   # the staging folder went into place


def test_the_progress_counts_every_step(tmp_path):
    told = []
    make_set(EXAMPLE, tmp_path / "s", variants=5, progress=lambda step, done, total: told.append((step, done, total)))
    steps = list(dict.fromkeys(step for step, _, _ in told))
    assert steps == ["drawing the papers", "writing the papers and keys", "writing the LMS exports",
                     "typesetting the PDFs"]
    for step in steps:
        counts = [(done, total) for s, done, total in told if s == step]
        assert all(total is not None and 0 <= done <= total for done, total in counts), step
        assert counts[-1][0] == counts[-1][1] and len({done for done, _ in counts}) > 1, step


def test_set_keys_counts_the_students_typeset_and_refuses_an_unknown_one(made, tmp_path, run_quiz):
    from quizforge.problemsets.sheets import write_keys

    told = []
    done = write_keys(made, ["21cs002", "21CS003"], tmp_path / "k", progress=lambda n, total: told.append((n, total)))
    assert done == {"keys": 2, "out": str(tmp_path / "k")} and told[0] == (0, 2) and told[-1] == (2, 2)
    assert sorted(p.name for p in (tmp_path / "k").iterdir()) == ["21CS002.pdf", "21CS003.pdf"]
    code, _, err = run_quiz("set", "keys", str(made), "21CS009")
    assert code == 2 and err == "error: no student '21CS009' in this set (3 students, from 21CS001 to 21CS003)\n"
