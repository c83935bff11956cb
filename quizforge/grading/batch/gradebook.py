"""A batch's gradebook: one CSV row per student, with the grading's seed and the points of every hidden test."""

from __future__ import annotations

import csv
import io
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from quizforge.grading.intake.text_safety import plain

if TYPE_CHECKING:   # the suite runner imports pytest: a third of a second that `quiz set make` does not need
    from quizforge.grading.judge.hidden_suite import SuiteResult

# A cell a spreadsheet would run as a formula (CSV injection) starts with one of these.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> str:
    """`value` as a CSV cell: quoted where needed, and text never read as a formula (numbers,
    negative ones included, stay numbers)."""
    if isinstance(value, str):
        value = plain(value)  # a problem's reason can quote a file name or a message
        text = "'" + value if value.startswith(FORMULA_STARTS) else value
    else:
        text = f"{value:g}" if isinstance(value, float) else str(value)
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow([text])
    return out.getvalue()


def write_atomically(path: Path, text: str) -> None:
    """Write `text` to `path` through a temporary file and a rename: a reader never sees half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def hidden_tests(graded: list[tuple[str, SuiteResult]]) -> list[str]:
    """Every hidden test, in suite order (the first result that has it decides where it goes)."""
    columns: list[str] = []
    for _, result in graded:
        for test in result.tests:
            if test.name not in columns:
                columns.append(test.name)
    return columns


def gradebook_csv(graded: list[tuple[str, SuiteResult]]) -> str:
    columns = hidden_tests(graded)
    lines = [",".join(csv_cell(c) for c in ["student", "score", "max_score", "seed", *columns])]
    for student, result in graded:
        points = {t.name: t.score for t in result.tests}
        seed = "" if result.seed is None else result.seed  # `quiz grade FILE --seed` regrades it alike
        row = [student, result.score, result.max_score, seed, *(points.get(c, "") for c in columns)]
        lines.append(",".join(csv_cell(v) for v in row))
    return "\n".join(lines) + "\n"


def write_gradebook(path: Path, graded: list[tuple[str, SuiteResult]]) -> None:
    write_atomically(path, gradebook_csv(graded))
