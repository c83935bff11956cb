"""The problem-set PDFs read back: what a student and an instructor would see on paper.

A small class is made through `quiz set make`, its keys typeset by `quiz set keys` and its
answers graded by `quiz set grade` (which writes the return sheets); the PDFs are read with
pypdfium2 (text, and each character's box on the page) and checked against the questions
the set drew."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

pdfium = pytest.importorskip("pypdfium2")

SPEC = """
title = "PDF check"
instructions = "Answer every question; calculators allowed."
duration = 30
seed = 11

[[sections]]
name = "By hand"
templates = ["attention.output", "softmax.masked_weights"]
count = 2

[[sections]]
name = "Counting"
templates = ["flops.training", "params.gpt3_layer", "params.model"]
count = 3

[[sections]]
name = "Concepts"
templates = ["concepts.bert_gpt", "concepts.why_sqrt_dk"]
count = 2
"""

DEVANAGARI = "श्रीकृष्ण क्षत्रिय"   # conjuncts: श्र, क्ष, त्र
BENGALI = "অমিত দাস"              # a script no bundled font sets: the name is left to write
ROSTER = ("id,name\n21CS001,Asha Rao\n21CS002,Bilal Khan\n"
          f"21CS003,{DEVANAGARI}\n21CS004,{BENGALI}\n21CS005,முருகன்\n21CS006,\n")


WARNINGS = []   # what `set make` said on stderr


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    import contextlib
    import io

    from quizforge.cli import main

    tmp = tmp_path_factory.mktemp("pdfset")
    (tmp / "spec.toml").write_text(SPEC, "utf-8")
    (tmp / "roster.csv").write_text(ROSTER, "utf-8")
    said = io.StringIO()
    with pytest.raises(SystemExit) as exit_, contextlib.redirect_stderr(said):
        main(["set", "make", str(tmp / "spec.toml"), "--roster", str(tmp / "roster.csv"), "-o", str(tmp / "out")])
    assert exit_.value.code == 0
    WARNINGS.append(said.getvalue())
    with pytest.raises(SystemExit) as exit_:
        main(["set", "keys", str(tmp / "out")])
    assert exit_.value.code == 0
    first = questions(tmp / "out", "21CS001")
    wrong = next(n for n, q in enumerate(first, 1) if q.kind == "MCQ")
    (tmp / "responses.csv").write_text(
        "student,question,answer\n" + "".join(f"21CS001,{n},{_right(q)}\n" for n, q in enumerate(first, 1) if n != wrong)
        + f"21CS001,{wrong},{_wrong_letter(first[wrong - 1])}\n21CS002,1,--3\n", "utf-8")
    with pytest.raises(SystemExit) as exit_:
        main(["set", "grade", str(tmp / "out"), str(tmp / "responses.csv")])
    assert exit_.value.code == 0
    return tmp / "out"


def _right(q) -> str:
    from quizforge.answers import format_number

    return format_number(q.answer, q.decimals).replace(",", "") if q.kind == "NAT" else f'"{q.correct_letters}"'


def _wrong_letter(q) -> str:
    return next(letter for i, letter in enumerate("abcd") if i not in q.correct)


def questions(made: Path, student: str):
    from quizforge.bank.registry import question as regenerate

    record = json.loads((made / "set.json").read_text("utf-8"))
    ids = next(s["questions"] for s in record["students"] if s["id"] == student)
    return [regenerate(qid) for qid in ids]


def pages(pdf: Path) -> list[str]:
    """Each page's text, whitespace runs made single spaces."""
    document = pdfium.PdfDocument(str(pdf))
    texts = [" ".join(page.get_textpage().get_text_range().split()) for page in document]
    document.close()
    return texts


STUDENTS = ("21CS001", "21CS002", "21CS003", "21CS004", "21CS005", "21CS006")
KINDS = ("papers", "keys", "graded/returns")
PDFS = [f"{kind}/{s}.pdf" for kind in KINDS for s in STUDENTS]


@pytest.mark.parametrize("name", PDFS + ["all_papers.pdf", "answer_book.pdf"])
def test_nothing_is_printed_outside_the_page(made, name):
    document = pdfium.PdfDocument(str(made / name))
    for number, page in enumerate(document, 1):
        width, height = page.get_size()
        text = page.get_textpage()
        for i in range(text.count_chars()):
            left, bottom, right, top = text.get_charbox(i)
            if right > left:   # a glyph, not a space or a line end
                assert 0 <= left and right <= width and 0 <= bottom and top <= height, (name, number, i)
    document.close()


@pytest.mark.parametrize("name", PDFS)
def test_thousands_separators_print_as_digit_groups(made, name):
    text = " ".join(pages(made / name))
    assert "(, )" not in text and "(,)" not in text
    assert not re.search(r"\d\s+,\s*\d{3}\b", text)   # "50 , 257": the comma set as punctuation


def test_every_digit_group_in_the_key_prints_as_written(made):
    for student in STUDENTS:
        key = " ".join(pages(made / "keys" / f"{student}.pdf"))
        for q in questions(made, student):
            markdown = " ".join([q.prompt, q.answer_md] + [step.md for step in q.solution])
            for group in re.findall(r"\d{1,3}(?:\{,\}\d{3})+", markdown):
                assert group.replace("{,}", ",") in key, (student, q.id, group)


def test_a_semicolon_after_inline_code_is_kept(made):
    found = 0
    for student in STUDENTS:
        text = " ".join(pages(made / "papers" / f"{student}.pdf"))
        for q in questions(made, student):
            if q.template == "flops.training":
                assert "as in 3.15e21; answers within 1%" in text
                found += 1
    assert found == len(STUDENTS)


def test_no_question_is_split_across_pages(made):
    for student in STUDENTS:
        texts = pages(made / "papers" / f"{student}.pdf")
        qs = questions(made, student)
        for n, q in enumerate(qs, 1):
            heading = f"Q{n}. {q.title}"
            [page] = [t for t in texts if heading in t]   # on exactly one page, with everything after it
            rest = page[page.index(heading):]
            rest = rest[:rest.index(f"Q{n + 1}. ")] if f"Q{n + 1}. " in rest else rest
            assert " ".join(q.instruction().split()) in rest, (student, heading)
            if q.kind == "NAT":
                assert "Answer:" in rest
        for page in texts:   # no section heading alone at the foot of a page
            body = page.rsplit("Page ", 1)[0]
            for section in ("By hand", "Counting", "Concepts"):
                if section in body:
                    assert re.search(r"Q\d+\. ", body[body.rindex(section):]), (student, section)


def test_name_roll_number_and_page_n_of_n_on_every_page(made):
    names = {"21CS001": "Asha Rao", "21CS002": "Bilal Khan"}
    for kind in KINDS:
        for student in STUDENTS:
            texts = pages(made / kind / f"{student}.pdf")
            for n, page in enumerate(texts, 1):
                assert student in page and f"Page {n} of {len(texts)}" in page, (kind, student, n)
                assert names.get(student, "") in page
    # one file for the class: each student's pages are numbered from 1 again
    everyone = pages(made / "all_papers.pdf")
    assert sum("Page 1 of" in page for page in everyone) == len(STUDENTS)
    assert len(everyone) == sum(len(pages(made / "papers" / f"{s}.pdf")) for s in STUDENTS)


def test_a_devanagari_name_prints_with_its_conjuncts(made):
    paper = made / "papers" / "21CS003.pdf"
    assert DEVANAGARI in pages(paper)[0]
    # shaped by a font that has the script: the conjuncts are glyphs of Noto Sans Devanagari
    import pikepdf

    fonts = {str(font.get("/BaseFont")) for page in pikepdf.open(paper).pages
             for font in page.Resources.Font.values()}
    assert any("NotoSansDevanagari" in font for font in fonts), fonts


def test_a_name_in_a_script_without_a_font_is_left_to_write(made):
    first = pages(made / "papers" / "21CS004.pdf")[0]
    assert BENGALI not in first and "(write your name)" in first and "21CS004" in first


def test_options_have_bubbles_and_numbers_an_answer_box(made):
    import pikepdf

    q_kinds = [q.kind for q in questions(made, "21CS001")]
    assert "NAT" in q_kinds and "MCQ" in q_kinds and "MSQ" in q_kinds
    text = " ".join(pages(made / "papers" / "21CS001.pdf"))
    assert text.count("Answer:") == q_kinds.count("NAT")
    # each bubble is a drawn path: count the closed shapes on the pages against the options
    drawn = 0
    for page in pikepdf.open(made / "papers" / "21CS001.pdf").pages:
        for operands, operator in pikepdf.parse_content_stream(page):
            drawn += str(operator) in ("S", "s", "B", "b", "f")   # a stroke or fill: boxes and bubbles
    options = sum(len(q.options) for q in questions(made, "21CS001"))
    assert drawn >= options + q_kinds.count("NAT")


def test_the_key_carries_the_question_its_options_and_why(made):
    from quizforge.text.terminal import markdown_to_terminal

    def plain(markdown: str) -> str:
        return " ".join(markdown_to_terminal(markdown).replace("*", "").replace("`", "").split())

    for student in ("21CS001", "21CS003"):
        key = " ".join(pages(made / "keys" / f"{student}.pdf"))
        for q in questions(made, student):
            assert q.id in key and q.title in key
            if "$" not in q.prompt:
                assert plain(q.prompt)[:60] in key, q.id
            reasons = [o.why for o in q.options if o.why]
            if reasons:
                assert "Why each option is right or wrong." in key
            for why in reasons:
                if "$" not in why:
                    assert plain(why)[:50] in key, (q.id, why)
        assert "Solution." in key


def test_no_figure_or_table_numbers(made):
    for name in ("all_papers.pdf", "answer_book.pdf", "keys/21CS001.pdf", "graded/returns/21CS001.pdf"):
        text = " ".join(pages(made / name))
        assert not re.search(r"\b(Table|Figure) \d+", text)


def test_no_pdf_says_markdown_only(run_quiz, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC, "utf-8")
    code, out, err = run_quiz("set", "make", str(spec), "--variants", "2", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0, err
    assert "papers/ and keys/ as Markdown" in out and "PDF" not in out


def test_every_template_stays_inside_the_margins(tmp_path):
    """Each question of the bank, on the paper and in the key, with its long formulas and
    matrices: every glyph inside the text area (18 mm margins; 45 pt allows for the bubbles)."""
    import typst

    from quizforge.bank.registry import all_templates
    from quizforge.problemsets.typeset import PREAMBLE, font_paths, question_typst

    entries = [question_typst(template.question(seed), 1, with_answer, plain_math=False)
               for template in all_templates() for seed in (3, 4242) for with_answer in (False, True)]
    source = tmp_path / "all.typ"
    source.write_text(PREAMBLE + "\n".join(f"#pagebreak(weak: true)\n{entry}" for entry in entries), "utf-8")
    document = pdfium.PdfDocument(typst.Compiler(str(source), font_paths=font_paths()).compile())
    assert len(document) >= len(entries)
    for number, page in enumerate(document, 1):
        width, height = page.get_size()
        text = page.get_textpage()
        for i in range(text.count_chars()):
            left, bottom, right, top = text.get_charbox(i)
            if right > left:
                assert 45 <= left and right <= width - 45 and 40 <= bottom and top <= height - 45, number


def test_a_formula_the_converter_cannot_take_prints_as_plain_text(tmp_path):
    """A TeX command the table does not know (\\hbar), unbalanced braces and a lone backslash:
    the paper is still typeset, through the helpers `set make` uses, with those formulas as text;
    \\dfrac, once such a command, is typeset as the fraction it is."""
    import dataclasses

    pdfium = pytest.importorskip("pypdfium2")
    from quizforge.bank.registry import question
    from quizforge.problemsets.roster import Student
    from quizforge.problemsets.spec import load_spec
    from quizforge.problemsets.typeset import Typesetting, class_source
    from quizforge.problemsets.variants import Paper, plan

    spec_path = tmp_path / "spec.toml"
    spec_path.write_text('title = "Fallback"\nseed = 1\n[[sections]]\ntemplates = ["attention.score"]\ncount = 1\n',
                         "utf-8")
    spec = load_spec(spec_path)
    slots = plan(spec)
    real = question("attention.score-0001")
    odd = dataclasses.replace(real, prompt=real.prompt + r" Half is $\dfrac{1}{2}$, then ${a$ and $x \\$ and $\hbar$ end.")
    out = tmp_path / "out"
    (out / "papers").mkdir(parents=True)
    (out / "keys").mkdir()
    typesetting = Typesetting(out)
    typesetting.add(None, [Paper(Student("S1", "Asha"), (odd,))], out / "papers",
                    lambda chunk, plain: class_source(spec, slots, chunk, "paper", plain))
    typesetting.wait()
    text = " ".join(page.get_textpage().get_text_range() for page in pdfium.PdfDocument(str(out / "papers" / "S1.pdf")))
    text = " ".join(text.split())
    assert "Half is 1/2" not in text and "then a and x" in text and "hbar end." in text   # as the terminal writes them
    assert text.count("Fallback") >= 1 and "Asha" in text


def test_matrix_entries_print_the_minus_sign_that_math_prints(tmp_path):
    """A negative entry of a matrix (an exhibit, or a matrix key) shows −1 on the page, as the
    formulas around it do, not the hyphen of -1."""
    import typst

    pdfium = pytest.importorskip("pypdfium2")
    from quizforge.bank.registry import question
    from quizforge.problemsets.typeset import PREAMBLE, font_paths, question_typst

    q = question("matrices.attention_output-0003")
    negatives = [v for e in q.exhibits for row in e.matrix for v in row if v.startswith("-")]
    assert negatives
    source = tmp_path / "q.typ"
    source.write_text(PREAMBLE + question_typst(q, 1, with_answer=True, plain_math=False), "utf-8")
    (tmp_path / "q.pdf").write_bytes(typst.compile(str(source), font_paths=font_paths()))
    text = " ".join(page.get_textpage().get_text_range() for page in pdfium.PdfDocument(str(tmp_path / "q.pdf")))
    assert "−" + negatives[0][1:] in text
    assert not re.search(r"(?<![\w)])-\d", text), re.findall(r".{12}(?<![\w)])-\d.{4}", text)


def _body(page: str, student: str) -> str:
    """A page's text after its running head (which ends with the roll number)."""
    return page.split(f"{student} ", 1)[1]


def test_all_papers_prints_double_sided(made):
    """Every paper has an even number of pages, so in all_papers.pdf each starts on a new sheet."""
    everyone = pages(made / "all_papers.pdf")
    starts = [i for i, page in enumerate(everyone) if "Page 1 of" in page]
    assert len(starts) == len(STUDENTS) and all(i % 2 == 0 for i in starts)
    for student in STUDENTS:
        texts = pages(made / "papers" / f"{student}.pdf")
        assert len(texts) % 2 == 0
        for page in texts:
            if "intentionally left blank" in page:
                assert page is texts[-1] and not re.search(r"Q\d+\. ", page)


def test_a_paper_of_odd_length_gets_a_page_saying_it_is_blank(run_quiz, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text('title = "One page"\nseed = 3\n[[sections]]\ntemplates = ["concepts.bert_gpt"]\ncount = 1\n',
                    "utf-8")
    code, _, err = run_quiz("set", "make", str(spec), "--variants", "2", "-o", str(tmp_path / "s"))
    assert code == 0, err
    texts = pages(tmp_path / "s" / "all_papers.pdf")
    assert len(texts) == 4
    for first, second in (texts[:2], texts[2:]):
        assert "Q1. " in first and "Page 1 of 2" in first
        assert "This page is intentionally left blank." in second and "Page 2 of 2" in second
        assert "Q1" not in second


def test_sections_share_pages_and_keys_never_split_a_question(made):
    papers = [pages(made / "papers" / f"{s}.pdf") for s in STUDENTS]
    assert any(sum(section in page for section in ("By hand", "Counting", "Concepts")) >= 2
               for texts in papers for page in texts)
    kept = 0
    for kind in ("keys", "graded/returns"):
        for student in STUDENTS:
            texts = pages(made / kind / f"{student}.pdf")
            for n, page in enumerate(texts[1:], 2):
                # each later page begins with a question (or the section it opens), never mid-entry,
                if re.match(r"((By hand|Counting|Concepts) )?Q\d+\. ", _body(page, student)):
                    kept += 1
                    continue
                # unless that entry is longer than a page: then it is alone on the page before
                # (given a whole page, it still did not fit)
                assert len(re.findall(r"Q\d+\. ", texts[n - 2])) == 1, (kind, student, n)
    assert kept >= 2 * len(STUDENTS)


def test_the_return_sheet_has_the_answers_marks_and_the_key(made):
    first = questions(made, "21CS001")
    sheet = " ".join(pages(made / "graded" / "returns" / "21CS001.pdf"))
    wrong = next(n for n, q in enumerate(first, 1) if q.kind == "MCQ")
    total = sum(q.marks for q in first) - first[wrong - 1].marks
    mcq_penalty = round(first[wrong - 1].marks / 3, 2)
    assert f"Your marks: {total - mcq_penalty:g} of {sum(q.marks for q in first)}" in sheet
    assert sheet.count("Your answer:") == len(first) and "Solution." in sheet
    assert f"Your answer: {_wrong_letter(first[wrong - 1])} Marks: -{mcq_penalty:g}" in sheet
    for q in first:
        assert q.id in sheet
    other = " ".join(pages(made / "graded" / "returns" / "21CS002.pdf"))
    assert "Your answer: --3 Marks: 0 Received ‘--3’, not graded: two signs in a row" in other   # typst's quotes
    assert other.count("Not answered.") == len(questions(made, "21CS002")) - 1


def test_the_answer_book_has_every_students_keys(made):
    book = " ".join(pages(made / "answer_book.pdf"))
    for student in STUDENTS:
        assert student in book
        for q in questions(made, student):
            if q.kind != "NAT":
                continue
            from quizforge.bank.export import accepted_text
            assert accepted_text(q) in book, (student, q.id)


def test_a_name_no_font_sets_is_warned_about_naming_its_paper():
    (said,) = WARNINGS
    assert ("warning: 1 name in a script the bundled fonts do not set (Latin, Greek, Cyrillic, Devanagari, Tamil, "
            "Telugu) left blank for the student to write on the papers of 21CS004") in " ".join(said.split())


def test_the_answer_book_wraps_a_long_key_inside_its_own_column():
    """The book is a monospace table: a matrix key longer than its column goes on lines of its
    own under Key, with Q and Kind blank, and the Accepted column stays where it is."""
    from quizforge.bank.registry import question
    from quizforge.problemsets.typeset import BOOK_CAPS, book_table

    number, matrix = question("softmax.masked_weights-0003"), question("matrices.attention_output-0003")
    table = book_table([number, matrix]).split("\n")
    assert table[0].split() == ["Q", "Kind", "Key", "Accepted"]
    assert table[1].split() == ["1", "NAT", "0.422", "0.421", "to", "0.423"]
    key_at, accepted_at = table[0].index("Key"), table[0].index("Accepted")
    assert accepted_at - key_at <= BOOK_CAPS["Key"] + 2 and table[1].index("0.421") == accepted_at
    rows = table[2:]
    assert len(rows) == 3 and rows[0].split()[:2] == ["2", "NAT"]
    assert all(not row[:key_at].strip() for row in rows[1:])
    assert " ".join(row[key_at:accepted_at].strip() for row in rows) == \
        "[[2.00, 1.00, 1.00], [3.64, 1.00, 3.45], [1.81, 2.41, 2.48]]"
    assert " ".join(row[accepted_at:].strip() for row in rows).strip() == "each entry within ±0.01 of the key's entry"
