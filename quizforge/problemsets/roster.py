"""The class list: a CSV with columns id and name (email optional), checked row by row."""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

from quizforge.errors import InputError

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


def load_roster(path: Path) -> list[Student]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read ({exc})") from None
    rows = csv.DictReader(io.StringIO(text))
    fields = [f.strip().lower() for f in rows.fieldnames or []]
    if "id" not in fields or "name" not in fields:
        raise InputError(f"{path.name}: the first row must name the columns id and name (email is optional)")
    rows.fieldnames = fields
    students, seen = [], set()
    for n, row in enumerate(rows, 2):
        sid = check_id(row.get("id") or "", f"{path.name} line {n}")
        if sid in seen:
            raise InputError(f"{path.name} line {n}: student {sid!r} is listed twice")
        seen.add(sid)
        students.append(Student(sid, (row.get("name") or "").strip(), (row.get("email") or "").strip()))
        if len(students) > MAX_STUDENTS:
            raise InputError(f"{path.name}: more than {MAX_STUDENTS} students")
    if not students:
        raise InputError(f"{path.name}: no students listed")
    return students


def numbered_variants(k: int) -> list[Student]:
    if not 1 <= k <= MAX_STUDENTS:
        raise InputError(f"{k} variants: give from 1 to {MAX_STUDENTS}", param="variants")
    width = len(str(k))
    return [Student(f"V{i:0{width}d}", f"Variant {i}") for i in range(1, k + 1)]
