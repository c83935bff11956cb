"""Issue 32 item 4: a number with thousands separators inside math is one number in every medium
("4,294,967,296", never "4, 294, 967, 296"): the bank writes it one way (`math_number`), and the
terminal, typst, the LMS HTML and Moodle XML / GIFT all show it whole."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from quizforge.text.terminal import markdown_to_terminal
from quizforge.bank.registry import all_templates, get_template
from quizforge.bank.steps import math_number, math_numbers
from quizforge.problemsets.lmstext import by_slot, question_html, solution_html
from quizforge.text.html import inline_html
from quizforge.problemsets.roster import Student
from quizforge.text.typst import tex_to_typst
from quizforge.problemsets.variants import Paper, Slot

SEEDS = range(12)
MATH = re.compile(r"\$\$(.+?)\$\$|(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)
HTML_MATH = re.compile(r"\\\((.+?)\\\)|\\\[(.+?)\\\]", re.DOTALL)
# In TeX math (LaTeX, MathJax) a comma between digits is punctuation, set with a space after it.
SPACED_IN_TEX = re.compile(r"\d,\d")
GROUPED = re.compile(r"\d{1,3}(?:\{,\}\d{3})+")


def markdown_fields(q) -> list[str]:
    return ([q.prompt, q.answer_md] + [o.md for o in q.options] + [o.why for o in q.options]
            + [s.title for s in q.solution] + [s.md for s in q.solution] + [e.md for e in q.exhibits]
            + list(q.hints) + [m.feedback for m in q.misconceptions])


def test_math_number_braces_only_thousands_commas():
    assert math_number("4,294,967,296") == "4{,}294{,}967{,}296"
    assert math_number("49,152.00") == "49{,}152.00"
    assert math_number("1{,}050") == "1{,}050" and math_number("0.25") == "0.25"
    # a pair in math keeps its spaced comma; text outside math is left as it is
    assert math_numbers("1,000 and $(2, 100)$ and $n = 16,777,216$") == "1,000 and $(2, 100)$ and $n = 16{,}777{,}216$"


@pytest.mark.parametrize("template", all_templates(), ids=lambda t: t.id)
def test_no_number_in_math_is_split_in_any_medium(template):
    questions = [template.question(seed) for seed in SEEDS]
    for q in questions:
        for text in filter(None, markdown_fields(q)):
            for match in MATH.finditer(text):
                tex = match.group(1) or match.group(2)
                assert not SPACED_IN_TEX.search(tex), (q.id, tex)                       # LaTeX / MathJax source
                typst = re.sub(r'"[^"]*"', "", tex_to_typst(tex))                     # typst spaces a bare comma too
                assert not SPACED_IN_TEX.search(typst), (q.id, tex, typst)
            terminal = markdown_to_terminal(text)
            assert "{,}" not in terminal, (q.id, terminal)
            for number in GROUPED.findall(text):   # each grouped number shows whole, with plain commas
                assert number.replace("{,}", ",") in terminal, (q.id, number, terminal)
        html = question_html(q) + solution_html(q) + "".join(inline_html(o.md) for o in q.options)
        for match in HTML_MATH.finditer(html):
            assert not SPACED_IN_TEX.search(match.group(1) or match.group(2)), (q.id, match.group(0))


def test_moodle_xml_and_gift_write_grouped_numbers_as_one_number():
    from quizforge.problemsets.lms import gift, moodle_xml

    template = get_template("concepts.efficient_attention")
    questions = [template.question(seed) for seed in range(40)]
    papers = [Paper(Student(f"S{n}", ""), (q,)) for n, q in enumerate(questions)]
    groups = by_slot([Slot(1, "s", template.id)], papers)
    texts = [t.text or "" for t in ET.fromstring(moodle_xml("t", groups)).iter("text")]
    texts.append(gift("t", groups).replace("\\{", "{").replace("\\}", "}"))
    grouped = 0
    for text in texts:
        for match in HTML_MATH.finditer(text):
            assert not SPACED_IN_TEX.search(match.group(0)), match.group(0)
            grouped += "{,}" in match.group(0)
    assert grouped >= 10   # the n² of this template: 16{,}777{,}216 and the like


def test_a_typeset_paper_prints_the_number_whole(tmp_path):
    """The PDF itself, read back: n² is one number, not digit groups split by spaces."""
    pdfium = pytest.importorskip("pypdfium2")
    import typst

    from quizforge.problemsets.typeset import PREAMBLE, question_typst

    template = get_template("concepts.efficient_attention")
    q = next(q for q in map(template.question, range(200)) if "n^2 = " in q.prompt and "{,}" in q.prompt)
    printed = re.search(r"n\^2 = ([\d{},]+)", q.prompt).group(1).replace("{,}", ",")
    source = tmp_path / "q.typ"
    source.write_text(PREAMBLE + "\n" + question_typst(q, 1, with_answer=False, plain_math=False), "utf-8")
    (tmp_path / "q.pdf").write_bytes(typst.compile(str(source), font_paths=_fonts()))
    text = " ".join(page.get_textpage().get_text_range() for page in pdfium.PdfDocument(str(tmp_path / "q.pdf")))
    assert printed in text.replace("\u2009", "").replace("\r\n", " "), text[:300]


def _fonts() -> list[str]:
    from quizforge.problemsets.typeset import font_paths

    return font_paths()
