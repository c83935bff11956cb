"""Export a learner's history as CSV (one row per attempt) or JSON (everything).

Every answer ever given is exported: an attempt's `answer` is its last, and its tries
list every graded answer with its time (a wrong NAT answer, then the second try).
Attempts saved before tries were stored (schema 1), and mock and interview answers,
have one try made from the attempt itself, numbered with its `tries` count: an old
"96" on try 2 reads as try 2, since the first was never saved.

CSV: a header, then every attempt in the order answered, with every column of the
`attempts` table and `answered_at_iso` (local time, ISO 8601 with its UTC offset)
after `answered_at`, then `answers` and `answers_at`: the tries' answers and their
local ISO times, each a JSON list (["1", "96"]). Quoting is the csv module's. A text cell that a spreadsheet
would read as a formula (it starts with = + - @, a tab or a carriage return) gets a
leading single quote, unless it is a plain number such as "-3" or "+1.5e9"; so a
typed answer "=HYPERLINK(...)" is exported as "'=HYPERLINK(...)".

JSON: `{"format": "quizforge-history", "version": 1, "exported_at": ISO, "sessions",
"attempts", "cards", "reviews", "mocks", "settings"}`, the rows as objects with their JSON
columns (settings, card, log, paper, answers, ...) parsed; text is exported as typed.
`settings` holds the exam date (`exam`: `{"date", "target"}`) and the parameters fitted by
`quiz stats --fit` (`fsrs_parameters`), each null when not set. Each attempt has `tries`: `{"n", "answer", "answered_at", "answered_at_iso",
"correct", "misconception"}` for every graded answer, in order.
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
import tempfile
from datetime import datetime
from pathlib import Path
from typing import Any, TextIO

from quizforge.errors import InputError

FORMATS = ("csv", "json")
EXPORT_FORMAT = "quizforge-history"
EXPORT_VERSION = 1   # attempts gained `tries`: an addition, readers of 1 still work

ATTEMPT_COLUMNS = (
    "id", "session_id", "mode", "answered_at", "day", "question_id", "template", "topic", "kind", "marks",
    "difficulty", "answer", "outcome", "score", "misconception", "misconception_label", "hints", "tries",
    "seconds", "rating",
)
CSV_COLUMNS = ATTEMPT_COLUMNS[:4] + ("answered_at_iso",) + ATTEMPT_COLUMNS[4:] + ("answers", "answers_at")

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


def check_format(fmt: str) -> str:
    name = (fmt or "").strip().lower()
    if name not in FORMATS:
        raise InputError(f"unknown export format {fmt!r}; formats: {', '.join(FORMATS)}")
    return name


def iso(at: float | None) -> str | None:
    """Local time with its offset, to the second: 2025-03-14T09:26:53+05:30."""
    if at is None:
        return None
    return datetime.fromtimestamp(float(at)).astimezone().isoformat(timespec="seconds")


def safe_cell(value: Any) -> Any:
    """A text cell that cannot run as a spreadsheet formula; numbers pass as they are."""
    if isinstance(value, str) and value.startswith(_FORMULA_START) and not _PLAIN_NUMBER.fullmatch(value):
        return "'" + value
    return value


def _parse(text: Any) -> Any:
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text  # keep what is there rather than lose it


def _row(row) -> dict[str, Any]:
    return {k: row[k] for k in row.keys()}


def finite(value: Any) -> Any:
    """`value` with every nan or infinity inside it as None: JSON has no such numbers, and a row
    written before --minutes refused them ('minutes': NaN in a session's settings) must not
    make the export unreadable."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def _tries(attempt, recorded: list) -> list[dict[str, Any]]:
    """The attempt's graded answers: as recorded, or the one the attempt row itself keeps."""
    if recorded:
        return [{"n": t["n"], "answer": t["answer"], "answered_at": t["answered_at"],
                 "answered_at_iso": iso(t["answered_at"]), "correct": bool(t["correct"]),
                 "misconception": t["misconception"]} for t in recorded]
    if attempt["answer"] is None:
        return []
    return [{"n": max(1, attempt["tries"] or 0), "answer": attempt["answer"], "answered_at": attempt["answered_at"],
             "answered_at_iso": iso(attempt["answered_at"]), "correct": attempt["outcome"] == "correct",
             "misconception": attempt["misconception"]}]


def _csv(history, stream: TextIO) -> int:
    writer = csv.writer(stream)
    writer.writerow(CSV_COLUMNS)
    n = 0
    tries = history.tries()
    for row in history.attempts():
        values = _row(row)
        values["answered_at_iso"] = iso(values["answered_at"])
        given = _tries(row, tries.get(row["id"], []))
        values["answers"] = json.dumps([t["answer"] for t in given], ensure_ascii=False)
        values["answers_at"] = json.dumps([t["answered_at_iso"] for t in given])
        writer.writerow([safe_cell(values.get(c)) for c in CSV_COLUMNS])
        n += 1
    return n


def _json(history, stream: TextIO) -> int:
    tries = history.tries()
    attempts = [_row(r) | {"tries": _tries(r, tries.get(r["id"], []))} for r in history.attempts()]
    sessions = []
    for r in history.sessions():
        entry = _row(r)
        entry["settings"] = _parse(entry.get("settings"))
        sessions.append(entry)
    cards = []
    for key, r in sorted(history.cards().items()):
        entry = _row(r)
        entry["card"] = _parse(entry["card"])
        cards.append(entry)
    reviews = []
    for r in history.reviews():
        entry = _row(r)
        entry["log"] = _parse(entry["log"])
        reviews.append(entry)
    mocks = []
    for row, state in history.mocks():
        mocks.append({
            "session_id": state.session_id, "exam": state.exam, "paper": state.paper, "minutes": state.minutes,
            "elapsed": state.elapsed, "current": state.current,
            "answers": {str(k): v for k, v in sorted(state.answers.items())},
            "marked": sorted(state.marked), "visited": sorted(state.visited),
            "spent": {str(k): v for k, v in sorted(state.spent.items())},
            "result": state.result, "started_at": row["started_at"], "ended_at": row["ended_at"],
            "status": row["status"],
        })
    payload = {
        "format": EXPORT_FORMAT, "version": EXPORT_VERSION,
        "exported_at": datetime.now().astimezone().isoformat(timespec="seconds"),
        "sessions": sessions, "attempts": attempts, "cards": cards, "reviews": reviews, "mocks": mocks,
        "settings": {name: history.setting(name) for name in ("exam", "fsrs_parameters")},
    }
    json.dump(finite(payload), stream, indent=2, ensure_ascii=False, allow_nan=False)
    stream.write("\n")
    return len(attempts)


def export_history(history, fmt: str, stream: TextIO) -> int:
    """Write the history to `stream` as `fmt` (csv or json); return the number of attempts written.

    Open a file `stream` with newline="" for CSV, as the csv module asks.
    """
    name = check_format(fmt)
    return _csv(history, stream) if name == "csv" else _json(history, stream)


def _file_mode(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def export_to_file(history, fmt: str, target: Path) -> int:
    """Write into a temporary file beside `target`, then rename it over `target`."""
    if target.is_dir():
        raise InputError(f"{target} is a folder; name a file", param="output")
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"{target}: folder {folder} does not exist", param="output")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write to {folder}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            n = export_history(history, fmt, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(target))
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
    return n
