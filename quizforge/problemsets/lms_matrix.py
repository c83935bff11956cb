"""Matrix answers in the LMS exports: one answer field per entry wherever the format has them.

A matrix answer cannot be one numeric field. Each entry keeps its own GATE range (the key's
entry ± one step at the question's decimals, exactly the range `quiz check` applies). Every
field of one matrix has the same type and the same width, so the boxes tell nothing of the
answer (an LMS that sizes a box by its answer would otherwise draw the −∞ cells wide):

- Moodle XML: a Cloze (multianswer) question, one field per entry. Moodle sizes a field by its
  longest answer, so each field also lists a 0 % answer as long as the matrix's longest one.
  A matrix with no −∞ has NUMERICAL fields (midpoint ± half-width of the entry's printed range);
  one with −∞ has SHORTANSWER fields throughout, each listing the texts its range accepts.
- QTI 2.1: one textEntryInteraction per entry, all float (compared with the range's ends) or,
  in a matrix with −∞, all string (matched with those texts); the item scores all or nothing.
- Canvas: a fill-in-multiple-blanks question; Canvas compares blanks as text, so each blank
  lists the values of its range written to the question's decimals (0.49, 0.5, 0.50, .5, 0.51).
- GIFT has no question with several numeric fields: a matrix question is left out of it,
  with a comment in its place, and the report says so.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from decimal import Decimal

from quizforge.answers.matrix_questions import entry_ends, is_minus_infinity, shape_of
from quizforge.problemsets.lmstext import midpoint_and_halfwidth

MINUS_INFINITY_WRITINGS = ("-inf", "-∞", "−∞", "-infinity")

LOSSES = {
    "moodle": "Matrix answers are Cloze questions with one numerical field per entry (text fields listing the "
              "accepted values in a matrix with −∞), each worth an equal share of the marks: a matrix with a "
              "wrong entry earns partial credit where GATE gives all or nothing.",
    "gift": "Matrix answers are left out of quiz.gift (a comment marks each one): GIFT has no question with "
            "several numeric fields. Import moodle.xml for a set with matrix questions.",
    "qti 2.1 and canvas": "Canvas: a matrix answer is a fill-in-multiple-blanks question, compared as text: each "
                          "blank accepts the values of its GATE range written with at most the question's decimals "
                          "(0.49, 0.5, 0.50, .5, 0.51), not one written with more (0.505), and Canvas gives "
                          "partial credit per blank. QTI 2.1 keeps GATE's all-or-nothing: one field per entry "
                          "(numeric, or text listing the accepted values in a matrix with −∞), the marks only "
                          "when every entry is in its range.",
}


@dataclass(frozen=True)
class EntryField:
    row: int                 # 1-based
    col: int
    low: str                 # the printed ends of the entry's range ('-inf' twice for −∞)
    high: str
    minus_infinity: bool

    @property
    def name(self) -> str:
        """An NCName-safe name: 'r1c2'."""
        return f"r{self.row}c{self.col}"


def fields(question) -> list[EntryField]:
    """One field per entry, row by row."""
    return [EntryField(r, c, *entry_ends(x, question.decimals), is_minus_infinity(x))
            for r, row in enumerate(question.answer, 1) for c, x in enumerate(row, 1)]


def has_matrix(groups) -> bool:
    return any(v.question.is_matrix for g in groups for v in g.variants)


# --- Moodle Cloze ------------------------------------------------------------------------------

def text_fields(question) -> bool:
    """Whether every field of the matrix is compared as text: one −∞ entry makes them all so, as no
    numeric field takes '-inf' and a field's type must not tell which entries those are."""
    return any(f.minus_infinity for f in fields(question))


def _cloze_escape(text: str) -> str:
    """Cloze's own escaping inside an answer: a backslash before } # ~ / " and itself."""
    return "".join("\\" + ch if ch in '}#~/"\\' else ch for ch in text)


def _numeric_padding(question, width: int) -> str:
    """A number `width` characters long that no entry's range holds: the 0 % answer that widens a
    field to the matrix's widest."""
    ranges = [(Decimal(f.low), Decimal(f.high)) for f in fields(question) if not f.minus_infinity]
    for digit in "98765432":
        for text in (digit * width, "-" + digit * (width - 1)):
            if text != "-" and not any(low <= Decimal(text) <= high for low, high in ranges):
                return text
    raise ValueError(f"{question.id}: no padding number of {width} characters lies outside every range")


def cloze_fields(question) -> list[str]:
    """One Cloze field per entry, row by row, all of one type and one width (see the module)."""
    entries = fields(question)
    if text_fields(question):
        answers = [blank_answers(question, f) for f in entries]
        width = max(len(a) for field_answers in answers for a in field_answers)
        padding = "_" * width   # a 0 % answer no one types, as wide as the widest answer
        return ["{1:SHORTANSWER:" + "~".join(f"={_cloze_escape(a)}" for a in field_answers)
                + f"~%0%{padding}}}" for field_answers in answers]
    ranges = [midpoint_and_halfwidth(f.low, f.high) for f in entries]
    width = max(len(answer) for answer, _ in ranges)
    padding = _numeric_padding(question, width)
    return [f"{{1:NUMERICAL:={answer}:{tolerance}~%0%{padding}:0}}" for answer, tolerance in ranges]


def entry_table(question, cell) -> str:
    """The answer grid as an HTML table, `cell(field)` in each place."""
    rows, cols = shape_of(question.answer)
    by_place = {(f.row, f.col): f for f in fields(question)}
    head = "".join(f"<th>column {c}</th>" for c in range(1, cols + 1))
    body = "".join("<tr><th>row {r}</th>{cells}</tr>".format(
        r=r, cells="".join(f"<td>{cell(by_place[(r, c)])}</td>" for c in range(1, cols + 1)))
        for r in range(1, rows + 1))
    return f"<table><tbody><tr><th></th>{head}</tr>{body}</tbody></table>"


def cloze_text(question, html_text: str) -> str:
    """The question as a student reads it, then one Cloze field per entry in a grid."""
    by_name = dict(zip((f.name for f in fields(question)), cloze_fields(question)))
    return html_text + "\n" + entry_table(question, lambda f: by_name[f.name])


# --- Canvas: blanks compared as text -------------------------------------------------------------

def _writings(value: Decimal, places: int) -> list[str]:
    """How a value is written with at most `places` decimals: '0.50', '0.5', '.5', '.50'."""
    out: list[str] = []
    for p in range(places, -1, -1):
        if value != value.quantize(Decimal(1).scaleb(-p)):
            break
        text = f"{value:.{p}f}"
        out.append(text)
        if text.lstrip("-").startswith("0."):
            out.append(text.replace("0.", ".", 1))
    return out


def blank_answers(question, field: EntryField) -> list[str]:
    """Every text a Canvas blank accepts: the range's values at the question's decimals, each written
    with as few or as many of those decimals as a person would."""
    if field.minus_infinity:
        return list(MINUS_INFINITY_WRITINGS)
    places = question.decimals or 0
    low, high, step = Decimal(field.low), Decimal(field.high), Decimal(1).scaleb(-places)
    values, value = [], low
    while value <= high:
        values.append(value)
        value += step
    seen: list[str] = []
    for v in values:
        for text in _writings(v if v != 0 else abs(v), places):
            if text not in seen:
                seen.append(text)
    return seen


def blank_text(question, html_text: str) -> str:
    """The question with one [rXcY] blank per entry in a grid (Canvas's fill-in-multiple-blanks)."""
    return html_text + "\n" + entry_table(question, lambda f: html.escape(f"[{f.name}]"))
