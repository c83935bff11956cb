"""Typing a matrix answer one row per line at a prompt that reads single lines.

When a matrix question's answer starts with a bare row of the right width (no brackets,
no ';'), the screen asks for the remaining rows ("row 2 of 4 › ") and hands the rows on
as one answer, joined by line breaks, which the matrix parser reads as rows. Anything
else (a whole matrix on one line, a command, a wrong width) is passed on as typed.
"""

from __future__ import annotations

from typing import Callable

from quizforge.practice.terminal import EOF, TIMEOUT


def rows_to_come(question, line: str) -> int:
    """How many more lines to read after `line`: 0 unless it is the first row of a matrix answer."""
    if not getattr(question, "is_matrix", False) or any(ch in line for ch in "[];"):
        return 0
    from quizforge.bank.matrix_answers import shape_of
    from quizforge.errors import InputError
    from quizforge.answers.matrices import parse_matrix

    rows, cols = shape_of(question.answer)
    try:
        first = parse_matrix(line, "row", allow_minus_infinity=True)
    except InputError:
        return 0
    return rows - 1 if rows > 1 and len(first) == 1 and len(first[0]) == cols else 0


def complete(question, line: str, read: Callable[[str], str]) -> str:
    """The whole answer: `line`, then the further rows `read(prompt)` returns; an empty line,
    the end of input or a deadline stops early (the short matrix is then refused by its shape)."""
    more = rows_to_come(question, line)
    lines = [line]
    for n in range(more):
        row = read(f"row {n + 2} of {more + 1} › ")
        if row in (EOF, TIMEOUT) or not row.strip():
            break
        lines.append(row)
    return "\n".join(lines)
