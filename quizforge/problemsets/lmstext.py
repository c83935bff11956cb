"""What every LMS export shares: questions as HTML with MathJax math (through `quizforge.text.html`),
the titles students see, the printed NAT range ends, and the class's variants grouped by question slot.

A student sees "Q1 · Attention weights", the template's title; the question ID (which
`quiz explain` turns into the worked answer) goes only where an instructor alone looks.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation, localcontext
from functools import lru_cache

from quizforge.problemsets.variants import Paper, Slot
from quizforge.text.html import inline_html, shared_html, to_html
from quizforge.text.matrix import tex_matrix


def student_title(number: int, question) -> str:
    """What a student may see as the question's name: its number and its template's title."""
    return f"Q{number} · {question.title}"


def question_html(question) -> str:
    """The question as a student reads it: prompt, matrices, how to answer."""
    parts = [question.prompt] + [tex_matrix(e, f"\\mathbf{{{e.title}}} = ") for e in question.exhibits]
    return to_html("\n\n".join(parts)) + "\n" + shared_html(f"*{question.instruction('fields')}*", False)


def solution_html(question) -> str:
    """The worked solution, for the LMS's general feedback: the key, each step in a numbered
    list (a step with a displayed matrix keeps it inside its item), why each option."""
    from quizforge.bank.export import _step_markdown, accepted_text, answer_markdown
    from quizforge.bank.question import LETTERS

    answer = f"**Answer:** {answer_markdown(question)}" + (
        f" (accepted: {accepted_text(question)})" if question.kind == "NAT" else "")
    parts = [to_html(answer)]
    if question.solution:
        parts.append("<ol>")
        for step in question.solution:
            text = _step_markdown(step).strip()
            one_line = "\n" not in text  # a step with a displayed matrix is two paragraphs
            parts.append(f"<li>{shared_html(text, one_line)}</li>")
        parts.append("</ol>")
    reasons = [(i, o) for i, o in enumerate(question.options) if o.why]
    if reasons:
        parts += [shared_html("**Why each option is right or wrong.**", False), "<ul>"]
        for i, option in reasons:
            reason = f"({LETTERS[i]}) {'✓' if option.correct else '✗'} {option.why}"
            parts.append(f"<li>{shared_html(reason, True)}</li>")
        parts.append("</ul>")
    return "\n".join(parts)


# --- NAT ranges ------------------------------------------------------------------------------

def _decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def range_ends(question) -> tuple[str, str]:
    """The accepted NAT range's ends exactly as the key prints them ('0.49', '0.51'; '4.158e23'),
    without thousands separators: what every LMS compares a typed answer with. (An exact key
    of 1/3 prints, and so exports, as 0.333333333333.)"""
    from quizforge.answers.question_keys import numeric_key

    ends = []
    for printed in numeric_key(question).printed_ends():  # the key's own printing, one computation
        printed = printed.replace(",", "")
        if _decimal(printed) is None and "/" in printed:
            # An exact fraction (1/3) has no decimal an LMS can compare: its 12 significant digits.
            from fractions import Fraction

            printed = f"{float(Fraction(printed)):.12g}"
        if _decimal(printed) is None:
            raise ValueError(f"{question.id}: the range end {printed!r} is not a number an LMS can read")
        ends.append(printed)
    return ends[0], ends[1]


def _plain(value: Decimal) -> str:
    """A decimal as a short string every LMS parses: '0.49', '1050000', '1.0395E+24'."""
    text = format(value.normalize(), "f") if abs(value.adjusted()) < 16 else str(value.normalize())
    return "0" if text in ("-0", "0E+0") else text


@lru_cache(maxsize=16384)   # each export asks for the same ranges
def midpoint_and_halfwidth(low: str, high: str) -> tuple[str, str]:
    """The range as an answer ± a tolerance (Moodle's numerical), computed exactly in decimal."""
    lo, hi = Decimal(low), Decimal(high)
    with localcontext() as context:
        context.prec = 60  # enough that neither sum nor difference is rounded
        return _plain((lo + hi) / 2), _plain((hi - lo) / 2)


# --- delivery by slot -------------------------------------------------------------------------

@dataclass(frozen=True)
class Variant:
    """One distinct question of a slot, rendered once for every export."""

    question: object              # quizforge.bank.question.Question
    students: tuple[str, ...]     # whose paper has it
    html: str                     # the question as a student reads it
    solution: str                 # the worked solution (general feedback)
    options: tuple[str, ...]      # each option as inline HTML
    ends: tuple[str, str] | None  # NAT: the printed range ends (a matrix answer: per entry, lms_matrix)


@dataclass(frozen=True)
class SlotVariants:
    """One question slot of the set and every distinct variant the class was given for it."""

    slot: Slot
    title: str                    # "Q1 · Attention weights"
    marks: int
    variants: tuple[Variant, ...]  # in roster order of first use


def by_slot(slots: list[Slot], papers: list[Paper]) -> list[SlotVariants]:
    """The class's questions grouped by slot, each distinct one rendered once."""
    grouped = []
    for index, slot in enumerate(slots):
        order: dict[str, object] = {}
        holders: dict[str, list[str]] = {}
        for paper in papers:
            question = paper.questions[index]
            order.setdefault(question.id, question)
            holders.setdefault(question.id, []).append(paper.student.id)
        variants = tuple(Variant(q, tuple(holders[q.id]), question_html(q), solution_html(q),
                                 tuple(inline_html(o.md) for o in q.options),
                                 range_ends(q) if q.kind == "NAT" and not q.is_matrix else None)
                         for q in order.values())
        first = variants[0].question
        grouped.append(SlotVariants(slot, student_title(slot.number, first), first.marks, variants))
    return grouped


def category_path(set_title: str, slot_title: str) -> str:
    """A Moodle category path, the same in Moodle XML and GIFT ('/' inside a name is doubled)."""
    return "$course$/top/" + "/".join(part.replace("/", "//") for part in (set_title, slot_title))
