"""Typing a matrix answer one row per line at a prompt that reads single lines.

When a matrix question's answer starts with a bare row of the right width (no brackets,
no ';'), the screen asks for the remaining rows ("row 2 of 4 › ") and hands the rows on
as one answer, joined by line breaks, which the matrix parser reads as rows. Anything
else (a whole matrix on one line, a command, a wrong width) is passed on as typed.

At a row prompt, a command of the screen is that command (the rows typed so far are
dropped), an empty row cancels the matrix and says so, and a row that is not a row of
the matrix is refused with its number and the row as typed, then asked for again.
"""

from __future__ import annotations

from typing import Callable

from quizforge.answers.matrices import parse_matrix
from quizforge.answers.matrix_questions import shape_of
from quizforge.errors import InputError
from quizforge.tui.terminal import EOF, TIMEOUT


def rows_to_come(question, line: str) -> int:
    """How many more lines to read after `line`: 0 unless it is the first row of a matrix answer."""
    if not getattr(question, "is_matrix", False) or any(ch in line for ch in "[];"):
        return 0

    rows, cols = shape_of(question.answer)
    try:
        first = parse_matrix(line, "row", allow_minus_infinity=True)
    except InputError:
        return 0
    return rows - 1 if rows > 1 and len(first) == 1 and len(first[0]) == cols else 0


def row_problem(row: str, number: int, cols: int) -> str:
    """Why `row` cannot be row `number` of a matrix `cols` wide, naming the row as typed; '' if it can."""
    shown = f"row {number} ({row.strip()!r})"
    if any(ch in row for ch in "[];"):
        return f"{shown} is not one row: type its {cols} entries separated by spaces"
    try:
        parsed = parse_matrix(row, f"row {number}", allow_minus_infinity=True)
    except InputError as exc:
        return f"{shown}: {str(exc).removeprefix(f'row {number}: ')}"
    if len(parsed[0]) != cols:
        return f"{shown} has {len(parsed[0])} entries; each row has {cols}"
    return ""


def complete(question, line: str, read: Callable[[str], str], is_command: Callable[[str], bool],
             say: Callable[[str], None]) -> str | None:
    """The whole answer: `line`, then the further rows `read(prompt)` returns. A command typed at a
    row prompt is returned as typed (so is the end of input or a deadline); an empty row cancels,
    says so through `say`, and gives None."""
    more = rows_to_come(question, line)
    if not more:
        return line

    cols = shape_of(question.answer)[1]
    lines = [line]
    while len(lines) <= more:
        number = len(lines) + 1
        row = read(f"row {number} of {more + 1} › ")
        if row in (EOF, TIMEOUT) or is_command(row.strip().lower()):
            return row
        if not row.strip():
            kept = len(lines)
            say(f"matrix cancelled at row {number}: the {kept} row{'s' * (kept != 1)} typed so far "
                "{verb} dropped; type the answer again".format(verb="are" if kept != 1 else "is"))
            return None
        problem = row_problem(row, number, cols)
        if problem:
            say(f"✗ {problem}; type row {number} again, or press Enter to cancel")
            continue
        lines.append(row)
    return "\n".join(lines)
