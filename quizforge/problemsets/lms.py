"""A problem set for Moodle: Moodle XML and GIFT, delivered by question slot.

Moodle cannot hand a category to one student, so the class's variants are grouped by slot:
one category per question number, holding every distinct variant of that slot, at the same
path in both files (`$course$/top/<set title>/Q1 · <title>`). A quiz with one "random
question from this category" per slot gives each student one variant of every question.

Text is HTML (`format="html"`, GIFT's `[html]`) with MathJax `\\(…\\)` math; the worked
solution is the general feedback. A GATE NAT range becomes its midpoint ± half its width,
computed in decimal from the ends the key prints; a GATE MCQ gives 100% for the key and
−33.33333% for a wrong option. The question ID is the Moodle `idnumber` (XML) or a GIFT
comment, never the name a student sees. What a format cannot express is listed in the
report, never dropped quietly.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from quizforge.problemsets import xmlwrite
from quizforge.problemsets.lmstext import SlotVariants, Variant, category_path, midpoint_and_halfwidth
from quizforge.text.backslash import backslashed

LOSSES = {
    "moodle": [
        "MSQ: Moodle's multiple-answer question gives partial credit (each correct option 100/n %, each wrong "
        "one −100 %) where GATE gives all or nothing.",
        "NAT: the accepted range is exported as its midpoint ± half its width (exact decimals); the decimal "
        "places the question asks for are in its text, not enforced.",
        "A student gets a random variant of each slot, not necessarily the one on their printed paper.",
    ],
    "gift": [
        "The same as Moodle XML, and: GIFT has no idnumber, so each question's ID is in a comment line, "
        "which Moodle drops on import; import moodle.xml to keep the IDs in the question bank.",
    ],
}


def _fractions(question) -> list[str]:
    """Moodle/GIFT grade fractions (percent) of each option: Moodle's own grade steps (33.33333)."""
    n_correct = len(question.correct)
    out = []
    for option in question.options:
        if question.kind == "MCQ":
            out.append("100" if option.correct else "-33.33333")
        else:
            out.append(f"{100 / n_correct:.7g}" if option.correct else "-100")
    return out


# --- Moodle XML ------------------------------------------------------------------------

def _text(parent: ET.Element, tag: str, value: str, fmt: str | None = None) -> ET.Element:
    element = ET.SubElement(parent, tag, {"format": fmt} if fmt else {})
    ET.SubElement(element, "text").text = value
    return element


def _moodle_cloze(title: str, variant: Variant) -> ET.Element:
    """A matrix answer: a Cloze question with one numerical field per entry (lms_matrix)."""
    from quizforge.problemsets.lms_matrix import cloze_text

    q = variant.question
    item = ET.Element("question", {"type": "cloze"})
    _text(item, "name", title)
    _text(item, "questiontext", cloze_text(q, variant.html), "html")
    _text(item, "generalfeedback", variant.solution, "html")
    ET.SubElement(item, "penalty").text = "0"
    ET.SubElement(item, "hidden").text = "0"
    ET.SubElement(item, "idnumber").text = q.id
    return item


def _moodle_question(title: str, variant: Variant) -> ET.Element:
    q = variant.question
    if q.is_matrix:
        return _moodle_cloze(title, variant)
    kind = "numerical" if q.kind == "NAT" else "multichoice"
    item = ET.Element("question", {"type": kind})
    _text(item, "name", title)
    _text(item, "questiontext", variant.html, "html")
    _text(item, "generalfeedback", variant.solution, "html")
    ET.SubElement(item, "defaultgrade").text = str(q.marks)
    ET.SubElement(item, "penalty").text = "0"
    ET.SubElement(item, "hidden").text = "0"
    ET.SubElement(item, "idnumber").text = q.id
    if q.kind == "NAT":
        answer_value, tolerance = midpoint_and_halfwidth(*variant.ends)
        answer = ET.SubElement(item, "answer", {"fraction": "100", "format": "moodle_auto_format"})
        ET.SubElement(answer, "text").text = answer_value
        ET.SubElement(answer, "tolerance").text = tolerance
        _text(answer, "feedback", "", "html")
    else:
        ET.SubElement(item, "single").text = "true" if q.kind == "MCQ" else "false"
        ET.SubElement(item, "shuffleanswers").text = "0"
        ET.SubElement(item, "answernumbering").text = "abc"
        for option, fraction in zip(variant.options, _fractions(q)):
            answer = _text(item, "answer", option, "html")
            answer.set("fraction", fraction)
            _text(answer, "feedback", "", "html")
    return item


def moodle_xml(title: str, groups: list[SlotVariants]) -> str:
    quiz = ET.Element("quiz")
    for group in groups:
        category = ET.SubElement(quiz, "question", {"type": "category"})
        _text(category, "category", category_path(title, group.title))
        _text(category, "info", f"{len(group.variants)} variants of {group.title}: add one random question "
                                "from this category to the quiz.", "html")
        for variant in group.variants:
            quiz.append(_moodle_question(group.title, variant))
    ET.indent(quiz)
    # ElementTree's own declaration (its encoding is the locale's), then the tree as ET.tostring writes it
    declaration = ET.tostring(ET.Element("quiz"), encoding="unicode", xml_declaration=True).split("\n", 1)[0]
    return declaration + "\n" + xmlwrite.tostring(quiz) + "\n"


# --- GIFT --------------------------------------------------------------------------------

def gift_escape(text: str) -> str:
    """GIFT's own escaping: a backslash before ~ = # { } : and before itself; a line break
    as \\n, so a question stays on its lines and no blank line ends it early."""
    return backslashed(text, "~=#{}:").replace("\r", "").replace("\n", "\\n")


def _gift_question(title: str, variant: Variant) -> str:
    q = variant.question
    comment = f"// {title}: question ID {q.id} (on the papers of {', '.join(variant.students)})"
    if q.is_matrix:
        return (f"{comment}\n// left out: a matrix answer needs one numeric field per entry, which GIFT cannot "
                "hold; moodle.xml has it as a Cloze question")
    head = f"::{gift_escape(title)}::[html]{gift_escape(variant.html)}"
    feedback = f"####[html]{gift_escape(variant.solution)}"
    if q.kind == "NAT":
        low, high = variant.ends
        return f"{comment}\n{head} {{#{low}..{high}\n{feedback}\n}}"
    choices = []
    for option, html, fraction in zip(q.options, variant.options, _fractions(q)):
        text = gift_escape(html)
        choices.append(f"={text}" if q.kind == "MCQ" and option.correct else f"~%{fraction}%{text}")
    return f"{comment}\n{head} {{\n" + "\n".join(choices) + f"\n{feedback}\n}}"


def gift(title: str, groups: list[SlotVariants]) -> str:
    """One category per slot that GIFT can hold: a slot of matrix answers gets comments only, not an
    empty category that a quiz's "random question from this category" would find empty."""
    blocks = []
    for group in groups:
        if any(not v.question.is_matrix for v in group.variants):
            blocks.append(f"$CATEGORY: {category_path(title, group.title)}")
        blocks += [_gift_question(group.title, variant) for variant in group.variants]
    return "\n\n".join(blocks) + "\n"


# --- the report ----------------------------------------------------------------------------

def _setup(title: str, duration: int, groups: list[SlotVariants], instructions: str) -> list[str]:
    marks = ", ".join(f"Q{g.slot.number} {g.marks}" for g in groups)
    # Moodle's question formats hold questions, not the quiz: its description is pasted by hand.
    description = (f"Description: paste the set's instructions, \"{instructions}\"" if instructions
                   else "Description: the set has no instructions to give")
    left_out = [f"Q{g.slot.number}" for g in groups if all(v.question.is_matrix for v in g.variants)]
    gift_note = (f" quiz.gift has no category for {', '.join(left_out)} (matrix answers; see below): import "
                 "moodle.xml for those slots." if left_out else "")
    return [
        "# Delivering the set in an LMS", "",
        f"Every format holds one quiz for the whole class: {len(groups)} question slots, each with every variant "
        "the papers use, and the LMS gives each student one variant per slot. The printed papers in papers/ are "
        "separate: a student's LMS variant is drawn at random, not the one on their paper.", "",
        "## Moodle (moodle.xml, or quiz.gift)", "",
        "1. Question bank → Import → Moodle XML format → moodle.xml (GIFT format for quiz.gift). It creates "
        f"one category per slot under \"{title}\".",
        f"2. Add a quiz; {description}; Timing → time limit {duration} minutes.",
        "3. Edit quiz → Add → a random question, once per slot, in order: pick that slot's category, 1 question. "
        f"Set each slot's maximum mark to its marks ({marks}).{gift_note}",
        "4. Keep MathJax on (the \"MathJax\" filter) so the \\( \\) math renders. The worked solution is the "
        "general feedback: its review option decides when students see it.", "",
        "## Canvas (canvas_qti12.zip)", "",
        "1. Settings → Import Course Content → QTI .zip file → canvas_qti12.zip.",
        f"2. It makes one quiz, \"{title}\", time limit {duration} minutes, with one question group per slot "
        "(pick 1 question, the slot's points each) and the set's instructions as its description. Publish it "
        "after a look.", "",
        "## A QTI 2.1 LMS (qti21.zip)", "",
        "1. Import qti21.zip as an IMS content package (QTI 2.1).",
        "2. It holds one test (assessmentTest) with one section per slot that selects 1 item of the slot's "
        f"variants, and a time limit of {duration} minutes (timeLimits; check the LMS kept it). The set's "
        "instructions are a rubric block that the first section shows the candidate. Each item's question ID "
        "is in the package manifest's metadata, for the instructor.", "",
    ]


def loss_report(title: str, duration: int, groups: list[SlotVariants], instructions: str = "") -> str:
    """lms_report.md: how to set up the quiz in each LMS, then what each format cannot express."""
    from quizforge.problemsets.qti import LOSSES as QTI_LOSSES

    from quizforge.problemsets import lms_matrix

    lines = _setup(title, duration, groups, instructions) + ["# What the LMS exports cannot express", ""]
    matrices = lms_matrix.has_matrix(groups)
    for fmt, losses in {**LOSSES, "qti 2.1 and canvas": QTI_LOSSES}.items():
        extra = [lms_matrix.LOSSES[fmt]] if matrices else []
        lines += [f"## {fmt}", ""] + [f"- {loss}" for loss in losses + extra] + [""]
    return "\n".join(lines)
