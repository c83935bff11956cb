"""Matrix answers: a NAT question whose key is a whole matrix, read, compared and explained.

The learner types the matrix the way people write one (`[[1,0],[1,1]]`, `1 0; 1 1`, or
one row per line), read by `quizforge.answers.matrices.parse_matrix` (never evaluated). Each
entry is judged by GATE's range rule at the question's decimals (`answers.nat_range`:
c ± 10^-N, only c itself at N = 0); a −∞ entry (an additive mask) must be −∞.

Marks are GATE's for a NAT: all of them when every entry is right, none otherwise, and
never negative. The feedback is partial: it names the wrong entries by (row, column),
counting from 1, and the modelled mistake the whole matrix matches (transposed, softmax
over the wrong axis, ...). A matrix of the wrong shape, or one that cannot be read, is an
`AnswerError` naming the expected shape: it is not an attempt.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

from quizforge import answers
from quizforge.answers.matrices import format_fraction, parse_matrix
from quizforge.answers.verdict import Verdict, shown_answer
from quizforge.bank.question import Misconception, Question
from quizforge.errors import InputError

Entry = Any                        # Fraction, float, int, or float('-inf')
Grid = tuple[tuple[Entry, ...], ...]
MAX_LISTED = 6                     # wrong entries named one by one; past this, a count


def is_minus_infinity(x: Entry) -> bool:
    return isinstance(x, float) and math.isinf(x) and x < 0


def shape_of(rows: Sequence[Sequence[Entry]]) -> tuple[int, int]:
    return len(rows), len(rows[0]) if rows else 0


def shape_text(rows: int, cols: int) -> str:
    """'3×4 matrix (3 rows of 4 entries)'."""
    return (f"{rows}×{cols} matrix ({rows} row{'s' if rows != 1 else ''} of {cols} "
            f"entr{'ies' if cols != 1 else 'y'})")


def entry_text(x: Entry, decimals: int | None) -> str:
    """An entry as the key prints it: '0.50', '1', '-inf' (parseable back)."""
    if is_minus_infinity(x):
        return "-inf"
    # No thousands separators: inside a matrix a comma separates entries.
    return answers.format_number(x, decimals).replace(",", "") if decimals is not None else format_fraction(Fraction(x))


def matrix_text(rows: Sequence[Sequence[Entry]], decimals: int | None) -> str:
    """'[[0.50, 0.50], [0.27, 0.73]]': one line, typed back as an answer unchanged."""
    return "[" + ", ".join("[" + ", ".join(entry_text(x, decimals) for x in row) + "]" for row in rows) + "]"


def formatter(decimals: int | None):
    """A Draft.fmt for matrix keys."""
    return lambda rows: matrix_text(rows, decimals)


def entry_latex(x: Entry, decimals: int | None) -> str:
    return "-\\infty" if is_minus_infinity(x) else entry_text(x, decimals)


def entry_ok(key: Entry, given: Entry, decimals: int | None) -> bool:
    """GATE's range rule on one entry; −∞ only matches −∞."""
    if is_minus_infinity(key) or is_minus_infinity(given):
        return is_minus_infinity(key) and is_minus_infinity(given)
    if decimals is None:
        return Fraction(given) == Fraction(key)
    return answers.nat_range(key, decimals).accepts(Fraction(given))


def entry_ends(key: Entry, decimals: int | None) -> tuple[str, str]:
    """The accepted range of one entry as its printed ends ('0.49', '0.51'; '1', '1'; '-inf', '-inf')."""
    if is_minus_infinity(key):
        return "-inf", "-inf"
    if decimals is None:
        text = entry_text(key, None)
        return text, text
    low, high = answers.nat_range(key, decimals).printed_ends()
    return low.replace(",", ""), high.replace(",", "")


def wrong_entries(key: Sequence[Sequence[Entry]], given: Sequence[Sequence[Entry]],
                  decimals: int | None) -> list[tuple[int, int]]:
    """(row, column) of every entry outside its range, counting from 1; same shapes assumed."""
    return [(r, c) for r, (krow, grow) in enumerate(zip(key, given), 1)
            for c, (k, g) in enumerate(zip(krow, grow), 1) if not entry_ok(k, g, decimals)]


def matches(key: Sequence[Sequence[Entry]], given: Sequence[Sequence[Entry]], decimals: int | None) -> bool:
    """Whether `given` would be marked correct against `key`: same shape, every entry in range
    (stopping at the first entry out of range: templates ask this of every mistake of every draw)."""
    return shape_of(key) == shape_of(given) and all(
        entry_ok(k, g, decimals) for krow, grow in zip(key, given) for k, g in zip(krow, grow))


def distinct_mistakes(key: Grid, decimals: int | None, misconceptions: list[Misconception]) -> list[Misconception]:
    """The modelled mistakes a learner could be told apart by: same shape as the key, and at
    least one entry outside the key's range (a mistake the key accepts could not be named)."""
    return [m for m in misconceptions
            if m.value is not None and shape_of(m.value) == shape_of(key) and not matches(key, m.value, decimals)]


def read(question: Question, text: str) -> Grid:
    """The learner's matrix, of the question's shape; AnswerError (one line) when it cannot be
    read or has another shape, so that it does not count as a try."""
    rows_wanted, cols_wanted = shape_of(question.answer)
    try:
        rows = _parse(text)
    except answers.AnswerError as e:
        raise answers.AnswerError(f"{e} (expected a {shape_text(rows_wanted, cols_wanted)})") from None
    if shape_of(rows) != (rows_wanted, cols_wanted):
        got_rows, got_cols = shape_of(rows)
        raise answers.AnswerError(f"expected a {shape_text(rows_wanted, cols_wanted)}, "
                                  f"got {got_rows}×{got_cols}: nothing was graded")
    return rows


def _parse(text: str) -> Grid:
    """-inf is always readable, so that the additive form given for a 0/1 mask can be named."""
    try:
        return tuple(tuple(row) for row in parse_matrix(text, "matrix", allow_minus_infinity=True))
    except InputError as e:
        raise answers.AnswerError(str(e)) from None


def _positions(cells: list[tuple[int, int]]) -> str:
    shown = [f"({r},{c})" for r, c in cells[:MAX_LISTED]]   # no space: a narrow terminal never splits one
    more = len(cells) - len(shown)
    if more:
        return ", ".join(shown) + f" and {more} more"
    return shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]


def feedback(question: Question, given: Grid) -> tuple[bool, str, Misconception | None]:
    """(correct, what the learner is told, the mistake the whole matrix matches)."""
    key, decimals = question.answer, question.decimals
    wrong = wrong_entries(key, given, decimals)
    if not wrong:
        return True, "Correct.", None
    total = len(key) * len(key[0])
    where = (f"{len(wrong)} of {total} entries {'is' if len(wrong) == 1 else 'are'} wrong "
             f"(row, column): {_positions(wrong)}")
    hits = [m for m in question.misconceptions if m.value is not None and matches(m.value, given, decimals)]
    if len(hits) > 1:
        return False, ("Not quite: the whole matrix matches more than one mistake — "
                       + "; or ".join(m.feedback for m in hits) + f". {where[0].upper()}{where[1:]}."), hits[0]
    if hits:
        return False, (f"Not quite: the whole matrix matches a known mistake: {hits[0].feedback}. "
                       f"{where[0].upper()}{where[1:]}."), hits[0]
    return False, f"Not quite: {where}.", None


def accepted_text(question: Question) -> str:
    """What is accepted, in words (the per-entry ranges are the key's entries ± one step)."""
    if question.decimals:
        step = answers.format_number(Fraction(1, 10**question.decimals), question.decimals)
        return f"each entry within ±{step} of the key's entry"
    return "each entry exactly as in the key"


def check(question: Question, text: str) -> Verdict:
    """The verdict on a matrix answer; raises answers.AnswerError when it cannot be read."""
    given = read(question, text)
    correct, said, hit = feedback(question, given)
    return Verdict(question.id, correct, answers.gate_score("NAT", question.marks, correct), question.marks,
                   said, hit, matrix_text(given, None), shown_answer(question), accepted_text(question))


def bmatrix(rows: Sequence[Sequence[Entry]], decimals: int | None) -> str:
    """The key as LaTeX for Markdown and LMS text."""
    body = " \\\\ ".join(" & ".join(entry_latex(x, decimals) for x in row) for row in rows)
    return f"\\begin{{bmatrix}} {body} \\end{{bmatrix}}"


def read_any_shape(text: str) -> Grid:
    """A matrix of whatever shape; AnswerError when the text is not a matrix."""
    return _parse(text)


TRANSPOSED = Misconception("transposed", "transposed the matrix",
                           "that is the key transposed: its rows written as columns")


def check_any_shape(question: Question, text: str) -> Verdict:
    """The verdict on a matrix written on a paper: there a readable matrix of another shape is
    an answer, and a wrong one (named as the key transposed where it is), not a slip to retype.
    Raises answers.AnswerError only when the text is not a matrix at all."""
    rows, cols = shape_of(question.answer)
    try:
        given = _parse(text)
    except answers.AnswerError as e:
        raise answers.AnswerError(f"{e} (expected a {shape_text(rows, cols)})") from None
    if shape_of(given) == (rows, cols):
        return check(question, text)
    got_rows, got_cols = shape_of(given)
    asked = f"a {got_rows}×{got_cols} matrix where a {shape_text(rows, cols)} was asked"
    hit = None
    if (got_rows, got_cols) == (cols, rows) and matches(question.answer, tuple(zip(*given)), question.decimals):
        said, hit = f"Not quite: {TRANSPOSED.feedback}, {asked}.", TRANSPOSED
    elif (got_rows, got_cols) == (cols, rows):
        said = f"Not quite: {asked}; rows and columns are swapped, and its entries are wrong too."
    else:
        said = f"Not quite: {asked}."
    return Verdict(question.id, False, answers.gate_score("NAT", question.marks, False), question.marks,
                   said, hit, matrix_text(given, None), shown_answer(question), accepted_text(question))
