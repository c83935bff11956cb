"""A problem set for learning management systems: Moodle XML and GIFT, and what they lose.

Each student's variant becomes a category (Moodle) or a block of questions (GIFT) named by
the student's id, so every student can be given their own. Math stays LaTeX for MathJax
(`\\(…\\)` inline, `\\[…\\]` displayed). A GATE NAT range becomes its midpoint ± half its
width; a GATE MCQ gives 100% for the key and −33.33333% for a wrong option. What a format
cannot express is listed in the report, never dropped quietly.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from fractions import Fraction

from quizforge.problemsets.variants import Paper

LOSSES = {
    "moodle": [
        "MSQ: Moodle's multiple-answer question gives partial credit (each correct option 100/n %, each wrong "
        "one −100 %) where GATE gives all or nothing.",
        "NAT: the accepted range is exported as its midpoint ± half its width; the decimal places the question "
        "asks for are in its text, not enforced.",
    ],
    "gift": [
        "MSQ: GIFT gives partial credit (each correct option 100/n %, each wrong one −100 %) where GATE gives all "
        "or nothing.",
        "NAT: the accepted range {#low..high} is kept; the decimal places asked for are in the text only.",
        "Matrices and math stay LaTeX: the LMS needs its MathJax filter on to show them.",
    ],
}


def _math(markdown: str) -> str:
    """$$…$$ → \\[…\\] and $…$ → \\(…\\): the delimiters MathJax reads in an LMS."""
    text = re.sub(r"\$\$(.+?)\$\$", r"\\[\1\\]", markdown, flags=re.S)
    return re.sub(r"(?<!\\)\$(.+?)(?<!\\)\$", r"\\(\1\\)", text, flags=re.S)


def _prompt(question) -> str:
    from quizforge.bank.export import _bmatrix

    parts = [question.prompt] + [_bmatrix(e, f"\\mathbf{{{e.title}}} = ") for e in question.exhibits]
    parts.append(f"*{question.instruction()}*")
    return _math("\n\n".join(parts))


def _nat_range(question) -> tuple[Fraction, Fraction]:
    from quizforge.bank.grading import numeric_key

    key = numeric_key(question)
    if key.low is not None and key.high is not None:
        return Fraction(key.low), Fraction(key.high)
    value = Fraction(key.value)
    if key.mode == "abs":
        return value - Fraction(key.tol), value + Fraction(key.tol)
    if key.mode == "rel":
        return value - abs(value) * Fraction(key.tol), value + abs(value) * Fraction(key.tol)
    return value, value


def _num(x: Fraction) -> str:
    return repr(float(x)) if x.denominator != 1 else str(x.numerator)


def _fractions(question) -> list[str]:
    """Moodle/GIFT grade fractions (percent) of each option."""
    n_correct = len(question.correct)
    out = []
    for option in question.options:
        if question.kind == "MCQ":
            out.append("100" if option.correct else "-33.33333")
        else:
            out.append(f"{100 / n_correct:.5g}" if option.correct else "-100")
    return out


# --- Moodle XML ------------------------------------------------------------------------

def _text(parent: ET.Element, tag: str, value: str, fmt: str | None = None) -> ET.Element:
    element = ET.SubElement(parent, tag, {"format": fmt} if fmt else {})
    ET.SubElement(element, "text").text = value
    return element


def moodle_xml(title: str, papers: list[Paper]) -> str:
    quiz = ET.Element("quiz")
    for paper in papers:
        category = ET.SubElement(quiz, "question", {"type": "category"})
        _text(category, "category", f"$course$/{title}/{paper.student.id}")
        for number, q in enumerate(paper.questions, 1):
            kind = "numerical" if q.kind == "NAT" else "multichoice"
            item = ET.SubElement(quiz, "question", {"type": kind})
            _text(item, "name", f"Q{number} {q.id}")
            _text(item, "questiontext", _prompt(q), "markdown")
            ET.SubElement(item, "defaultgrade").text = str(q.marks)
            ET.SubElement(item, "penalty").text = "0"
            ET.SubElement(item, "idnumber").text = f"{paper.student.id}-Q{number}"
            if q.kind == "NAT":
                low, high = _nat_range(q)
                answer = ET.SubElement(item, "answer", {"fraction": "100"})
                ET.SubElement(answer, "text").text = _num((low + high) / 2)
                ET.SubElement(answer, "tolerance").text = _num((high - low) / 2)
            else:
                ET.SubElement(item, "single").text = "true" if q.kind == "MCQ" else "false"
                ET.SubElement(item, "shuffleanswers").text = "0"
                ET.SubElement(item, "answernumbering").text = "abc"
                for option, fraction in zip(q.options, _fractions(q)):
                    answer = _text(item, "answer", _math(option.md), "markdown")
                    answer.set("fraction", fraction)
    ET.indent(quiz)
    return ET.tostring(quiz, encoding="unicode", xml_declaration=True) + "\n"


# --- GIFT --------------------------------------------------------------------------------

def _gift_escape(text: str) -> str:
    # A blank line ends a GIFT question: paragraphs are kept apart by single line breaks.
    return re.sub(r"\n\s*\n+", "\n", re.sub(r"([~=#{}:\\])", r"\\\1", text))


def gift(papers: list[Paper]) -> str:
    blocks = []
    for paper in papers:
        blocks.append(f"$CATEGORY: {_gift_escape(paper.student.id)}")
        for number, q in enumerate(paper.questions, 1):
            head = f"::Q{number} {q.id}::[markdown]{_gift_escape(_prompt(q))}"
            if q.kind == "NAT":
                low, high = _nat_range(q)
                body = f"{{#{_num(low)}..{_num(high)}}}"
            else:
                choices = []
                for option, fraction in zip(q.options, _fractions(q)):
                    text = _gift_escape(_math(option.md))
                    choices.append(f"={text}" if q.kind == "MCQ" and option.correct else f"~%{fraction}%{text}")
                body = "{\n" + "\n".join(choices) + "\n}"
            blocks.append(f"{head} {body}")
    return "\n\n".join(blocks) + "\n"


def loss_report() -> str:
    from quizforge.problemsets.qti import LOSSES as QTI_LOSSES

    lines = ["# What the LMS exports cannot express", ""]
    for fmt, losses in {**LOSSES, "qti 2.1 and canvas": QTI_LOSSES}.items():
        lines += [f"## {fmt}", ""] + [f"- {loss}" for loss in losses] + [""]
    return "\n".join(lines)
