"""The class list: a CSV with columns id and name (email optional), checked row by row."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from quizforge.errors import InputError
from quizforge.problemsets.tables import read_table

MAX_STUDENTS = 5000


@dataclass(frozen=True)
class Student:
    id: str
    name: str
    email: str = ""


def check_id(value: str, where: str) -> str:
    value = value.strip()
    if not value or len(value) > 64 or not all(c.isalnum() or c in "-_." for c in value) or value.startswith("."):
        raise InputError(f"{where}: {value!r} is not a usable student id (letters, digits, - _ . only)")
    return value


def read_roster(path: Path) -> tuple[list[Student], str]:
    """The class list, and how the file was read (said back, as `set grade` says how it read
    the responses): comma, semicolon or tab; UTF-8, UTF-16 or cp1252. Roll numbers that differ
    only in case are refused: grading matches roll numbers whatever their case, so they could
    not be told apart."""
    table = read_table(path, columns="id and name (email is optional)")
    fields = [f.lower() for f in table.header]
    if "id" not in fields or "name" not in fields:
        raise InputError(f"{path.name}: the first row must name the columns id and name (email is optional)")
    column = {name: fields.index(name) for name in ("id", "name", "email") if name in fields}

    def cell(cells: list[str], name: str) -> str:
        return cells[column[name]].strip() if name in column and column[name] < len(cells) else ""

    students, seen = [], {}
    for n, cells in table.rows:
        sid = check_id(cell(cells, "id"), f"{path.name} line {n}")
        folded = sid.casefold()
        if folded in seen:
            earlier = seen[folded]
            same = "" if earlier == sid else f" (as {earlier!r}: roll numbers are matched whatever their case)"
            raise InputError(f"{path.name} line {n}: student {sid!r} is listed twice{same}")
        seen[folded] = sid
        students.append(Student(sid, cell(cells, "name"), cell(cells, "email")))
        if len(students) > MAX_STUDENTS:
            raise InputError(f"{path.name}: more than {MAX_STUDENTS} students")
    if not students:
        raise InputError(f"{path.name}: no students listed")
    return students, table.described(path.name, numbers=False)  # a roster holds no numbers


def numbered_variants(k: int) -> list[Student]:
    if not 1 <= k <= MAX_STUDENTS:
        raise InputError(f"{k} variants: give from 1 to {MAX_STUDENTS}", param="variants")
    width = len(str(k))
    return [Student(f"V{i:0{width}d}", f"Variant {i}") for i in range(1, k + 1)]
