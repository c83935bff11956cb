"""The learner's history: one SQLite file, written one answer at a time.

Every write is its own short transaction, so a killed terminal loses at most the
question on screen. WAL mode and a busy timeout let two sessions share the file.
A file that is not ours to read (corrupt, or from a newer quizforge) is never
overwritten: it is copied aside and the user is told what happened.
"""

from __future__ import annotations

import filecmp
import glob
import json
import os
import shutil
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from quizforge.errors import InputError
from quizforge.practice.mock_sections import SECTION_KINDS

# 1: sessions, attempts, cards, reviews, mocks. 2: tries (every graded answer of an attempt).
# 3: settings (the exam date, fitted FSRS parameters).
# Every table is CREATE IF NOT EXISTS, so opening an older file adds what it lacks and keeps the rest.
SCHEMA_VERSION = 3
_SQLITE_MAGIC = b"SQLite format 3\x00"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id          INTEGER PRIMARY KEY,
    mode        TEXT NOT NULL,                 -- drill | mock | interview
    started_at  REAL NOT NULL,                 -- unix seconds
    ended_at    REAL,
    status      TEXT NOT NULL DEFAULT 'open',  -- open | finished | quit | submitted | timed_out
    settings    TEXT NOT NULL DEFAULT '{}'
);
CREATE TABLE IF NOT EXISTS attempts (
    id            INTEGER PRIMARY KEY,
    session_id    INTEGER NOT NULL REFERENCES sessions(id),
    mode          TEXT NOT NULL,
    answered_at   REAL NOT NULL,
    day           TEXT NOT NULL,               -- the learner's local date, for streaks
    question_id   TEXT NOT NULL,
    template      TEXT NOT NULL,
    topic         TEXT NOT NULL,
    kind          TEXT NOT NULL,               -- MCQ | MSQ | NAT | interview
    marks         INTEGER NOT NULL DEFAULT 0,
    difficulty    INTEGER NOT NULL DEFAULT 0,
    answer        TEXT,                        -- as typed, NULL when nothing was given
    outcome       TEXT NOT NULL,               -- correct | wrong | skipped | revealed | unanswered | rated
    score         REAL NOT NULL DEFAULT 0,     -- GATE marks earned (negative for a wrong MCQ in a mock)
    misconception TEXT,                        -- tag of the mistake the answer matched
    misconception_label TEXT,                  -- its short name, e.g. "forgot the biases"
    hints         INTEGER NOT NULL DEFAULT 0,
    tries         INTEGER NOT NULL DEFAULT 0,
    seconds       REAL NOT NULL DEFAULT 0,
    rating        INTEGER                      -- FSRS rating 1..4, NULL when the schedule was not touched
);
CREATE INDEX IF NOT EXISTS attempts_by_time ON attempts(answered_at);
CREATE INDEX IF NOT EXISTS attempts_by_session ON attempts(session_id);
CREATE TABLE IF NOT EXISTS tries (
    id            INTEGER PRIMARY KEY,
    attempt_id    INTEGER NOT NULL REFERENCES attempts(id),
    n             INTEGER NOT NULL,            -- 1 for the attempt's first graded answer
    answered_at   REAL NOT NULL,
    answer        TEXT NOT NULL,               -- as typed
    correct       INTEGER NOT NULL,            -- 0 | 1
    misconception TEXT                         -- tag of the mistake this answer matched
);
CREATE INDEX IF NOT EXISTS tries_by_attempt ON tries(attempt_id);
CREATE TABLE IF NOT EXISTS cards (
    key            TEXT PRIMARY KEY,           -- template:<id> | misconception:<tag> | interview:<prompt>
    card           TEXT NOT NULL,              -- fsrs Card.to_dict()
    due_at         REAL NOT NULL,
    introduced_at  REAL NOT NULL,
    introduced_day TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS reviews (
    id          INTEGER PRIMARY KEY,
    card_key    TEXT NOT NULL,
    attempt_id  INTEGER REFERENCES attempts(id),
    reviewed_at REAL NOT NULL,
    rating      INTEGER NOT NULL,
    log         TEXT NOT NULL                  -- fsrs ReviewLog.to_dict()
);
CREATE TABLE IF NOT EXISTS mocks (
    session_id  INTEGER PRIMARY KEY REFERENCES sessions(id),
    exam        TEXT NOT NULL,
    paper       TEXT NOT NULL,                 -- JSON list of question IDs
    minutes     REAL NOT NULL,
    elapsed     REAL NOT NULL DEFAULT 0,       -- seconds used, saved at every action
    current     INTEGER NOT NULL DEFAULT 0,
    answers     TEXT NOT NULL DEFAULT '{}',    -- JSON {index: text}
    marked      TEXT NOT NULL DEFAULT '[]',
    visited     TEXT NOT NULL DEFAULT '[]',
    spent       TEXT NOT NULL DEFAULT '{}',    -- JSON {index: seconds on that question}
    result      TEXT                           -- JSON summary once submitted
);
CREATE TABLE IF NOT EXISTS settings (
    name        TEXT PRIMARY KEY,              -- exam | fsrs_parameters
    value       TEXT NOT NULL,                 -- JSON
    saved_at    REAL NOT NULL
);
"""


class HistoryError(InputError):
    """The history file cannot be used as it is; the message says why and where the copy went.
    `another_folder`: the message ends by suggesting another folder (a CLI names its option)."""

    def __init__(self, message: str, another_folder: bool = False):
        super().__init__(message)
        self.another_folder = another_folder


class _Locked(Exception):
    """Another connection holds a lock we cannot wait for through SQLite's busy handler."""


LOCK_WAIT_SECONDS = 15.0


def local_day(at: float) -> str:
    return time.strftime("%Y-%m-%d", time.localtime(at))


@dataclass(frozen=True)
class Try:
    """One graded answer within an attempt (a wrong NAT answer and its second try are two)."""

    answer: str
    at: float
    correct: bool
    misconception: str | None = None


@dataclass(frozen=True)
class Attempt:
    """One answer (or skip, or self-rating) to record."""

    question_id: str
    template: str
    topic: str
    kind: str
    outcome: str
    marks: int = 0
    difficulty: int = 0
    answer: str | None = None
    score: float = 0.0
    misconception: str | None = None
    misconception_label: str | None = None
    hints: int = 0
    tries: int = 0
    seconds: float = 0.0
    rating: int | None = None
    answers: tuple[Try, ...] = ()   # every graded answer, in order; `answer` is the last


@dataclass
class MockState:
    session_id: int
    exam: str
    paper: list[str]
    minutes: float
    elapsed: float = 0.0
    current: int = 0
    answers: dict[int, str] = field(default_factory=dict)
    marked: set[int] = field(default_factory=set)
    visited: set[int] = field(default_factory=set)
    spent: dict[int, float] = field(default_factory=dict)
    result: dict | None = None
    number: int = 0      # the learner's mock number (1, 2, ...): its place among all mocks, oldest first
    sections: str = "marks"   # how its sections group it: "subject", "topic" or "marks" (kept in the session's settings)

    @property
    def remaining(self) -> float:
        return max(0.0, self.minutes * 60 - self.elapsed)


def _backup(path: Path, reason: str) -> Path:
    """Copy the file (and its WAL) aside; the original stays where it is. A damaged file that is
    already copied aside, byte for byte, is not copied again: every command refuses it, and one
    copy is enough."""
    for earlier in sorted(path.parent.glob(f"{glob.escape(path.name)}.{reason}-*.bak")):
        if filecmp.cmp(path, earlier, shallow=False):
            return earlier
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.{reason}-{stamp}.bak")
    n = 1
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.{reason}-{stamp}-{n}.bak")
    shutil.copy2(path, target)
    for suffix in ("-wal", "-shm"):
        side = path.with_name(path.name + suffix)
        if side.exists():
            shutil.copy2(side, target.with_name(target.name + suffix))
    return target


class History:
    """The SQLite history of one learner."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self._db = self._open()

    # --- opening ------------------------------------------------------------

    def _refuse_corrupt(self, detail: str) -> HistoryError:
        copy = _backup(self.path, "corrupt")
        return HistoryError(
            f"history file {self.path} is damaged ({detail}); it was left untouched and copied to {copy.name}. "
            f"Move it away to start a fresh history, or keep the history in another folder", another_folder=True)

    def _open(self) -> sqlite3.Connection:
        """Connect, retrying while another session holds the file: switching to WAL does not
        wait on SQLite's busy timeout, and a lock is not damage."""
        deadline = time.monotonic() + LOCK_WAIT_SECONDS
        while True:
            try:
                return self._connect()
            except _Locked:
                if time.monotonic() > deadline:
                    raise HistoryError(f"history file {self.path} stayed locked by another session for "
                                       f"{LOCK_WAIT_SECONDS:.0f} s; try again when it has finished") from None
                time.sleep(0.05)

    def _connect(self) -> sqlite3.Connection:
        if not self.path.exists():
            # Made 600 before SQLite opens it: SQLite gives its WAL and shared-memory files the same mode.
            try:
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            except FileExistsError:
                pass   # another session made it just now
            except OSError as exc:
                raise HistoryError(f"cannot create history file {self.path}: {exc.strerror or exc}") from None
        if self.path.exists() and self.path.stat().st_size > 0:
            with open(self.path, "rb") as fh:
                if fh.read(16) != _SQLITE_MAGIC:
                    raise self._refuse_corrupt("not an SQLite database")
        try:
            db = sqlite3.connect(self.path, timeout=15, isolation_level=None, check_same_thread=False)
        except sqlite3.Error as exc:
            raise HistoryError(f"cannot open history file {self.path}: {exc}") from None
        try:
            db.execute("PRAGMA busy_timeout = 15000")
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                db.close()
                copy = _backup(self.path, "newer")
                raise HistoryError(
                    f"history file {self.path} was written by a newer quizforge (schema {version}; this one reads "
                    f"{SCHEMA_VERSION}); it was left untouched and copied to {copy.name}. Upgrade quizforge to use it")
            check = db.execute("PRAGMA quick_check").fetchone()[0]
            if check != "ok":
                db.close()
                raise self._refuse_corrupt(check.splitlines()[0][:80])
            db.execute("PRAGMA journal_mode = WAL")
            db.execute("PRAGMA synchronous = NORMAL")
            db.execute("PRAGMA foreign_keys = ON")
            if version < SCHEMA_VERSION:
                with self._write(db):
                    # Re-read under the write lock: another session may have just created it.
                    if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                        tables = db.execute("SELECT count(*) FROM sqlite_master WHERE type='table'").fetchone()[0]
                        if tables and version == 0 and not self._is_ours(db):
                            raise self._refuse_corrupt("an SQLite file that is not a quizforge history")
                        for statement in _SCHEMA.split(";"):
                            if statement.strip():
                                db.execute(statement)
                        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except sqlite3.OperationalError as exc:
            db.close()
            if "locked" in str(exc) or "busy" in str(exc):
                raise _Locked from None
            raise self._refuse_corrupt(str(exc)) from None
        except sqlite3.DatabaseError as exc:
            db.close()
            raise self._refuse_corrupt(str(exc)) from None
        except HistoryError:
            db.close()
            raise
        db.row_factory = sqlite3.Row
        return db

    @staticmethod
    def _is_ours(db: sqlite3.Connection) -> bool:
        names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        return names <= {"sessions", "attempts", "cards", "reviews", "mocks", "tries", "settings"}

    @staticmethod
    @contextmanager
    def _write(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")

    def transaction(self):
        """One atomic write: everything inside lands together or not at all."""
        return self._write(self._db)

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> "History":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # --- sessions -----------------------------------------------------------

    def start_session(self, mode: str, settings: dict[str, Any], at: float) -> int:
        with self.transaction() as db:
            cur = db.execute("INSERT INTO sessions(mode, started_at, settings) VALUES (?, ?, ?)",
                             (mode, at, json.dumps(settings)))
            return int(cur.lastrowid)

    def end_session(self, session_id: int, status: str, at: float, db: sqlite3.Connection | None = None) -> None:
        if db is not None:
            db.execute("UPDATE sessions SET ended_at = ?, status = ? WHERE id = ?", (at, status, session_id))
            return
        with self.transaction() as conn:
            self.end_session(session_id, status, at, conn)

    def reopen_session(self, session_id: int) -> None:
        with self.transaction() as db:
            db.execute("UPDATE sessions SET status = 'open', ended_at = NULL WHERE id = ?", (session_id,))

    def session(self, session_id: int) -> sqlite3.Row | None:
        return self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()

    # --- attempts -----------------------------------------------------------

    def record_attempt(self, session_id: int, mode: str, attempt: Attempt, at: float,
                       db: sqlite3.Connection | None = None) -> int:
        """Insert one attempt. Pass `db` to join a transaction already open."""
        def insert(conn: sqlite3.Connection) -> int:
            cur = conn.execute(
                "INSERT INTO attempts(session_id, mode, answered_at, day, question_id, template, topic, kind, marks,"
                " difficulty, answer, outcome, score, misconception, misconception_label, hints, tries, seconds, rating)"
                " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (session_id, mode, at, local_day(at), attempt.question_id, attempt.template, attempt.topic,
                 attempt.kind, attempt.marks, attempt.difficulty, attempt.answer, attempt.outcome, attempt.score,
                 attempt.misconception, attempt.misconception_label, attempt.hints, attempt.tries, attempt.seconds, attempt.rating))
            attempt_id = int(cur.lastrowid)
            conn.executemany(
                "INSERT INTO tries(attempt_id, n, answered_at, answer, correct, misconception) VALUES (?,?,?,?,?,?)",
                [(attempt_id, n, t.at, t.answer, int(t.correct), t.misconception)
                 for n, t in enumerate(attempt.answers, 1)])
            return attempt_id

        if db is not None:
            return insert(db)
        with self.transaction() as conn:
            return insert(conn)

    def attempts(self, since: float | None = None, mode: str | None = None) -> list[sqlite3.Row]:
        sql, args = "SELECT * FROM attempts WHERE 1=1", []
        if since is not None:
            sql += " AND answered_at >= ?"
            args.append(since)
        if mode is not None:
            sql += " AND mode = ?"
            args.append(mode)
        return self._db.execute(sql + " ORDER BY answered_at, id", args).fetchall()

    def sessions(self) -> list[sqlite3.Row]:
        return self._db.execute("SELECT * FROM sessions ORDER BY started_at, id").fetchall()

    def tries(self) -> dict[int, list[sqlite3.Row]]:
        """Every recorded try, by attempt id, in the order given."""
        out: dict[int, list[sqlite3.Row]] = {}
        for row in self._db.execute("SELECT * FROM tries ORDER BY attempt_id, n, id"):
            out.setdefault(row["attempt_id"], []).append(row)
        return out

    # --- cards (the FSRS schedule) -------------------------------------------

    def cards(self) -> dict[str, sqlite3.Row]:
        return {r["key"]: r for r in self._db.execute("SELECT * FROM cards")}

    def card(self, key: str) -> dict | None:
        row = self._db.execute("SELECT card FROM cards WHERE key = ?", (key,)).fetchone()
        return json.loads(row["card"]) if row else None

    def misconception_templates(self, tags: list[str]) -> list[tuple[str, str, float]]:
        """(tag, template, when it was last hit there) for each template where one of these
        misconceptions was hit."""
        if not tags:
            return []
        marks = ",".join("?" * len(tags))
        rows = self._db.execute(
            f"SELECT misconception, template, max(answered_at) AS at FROM attempts WHERE misconception IN ({marks})"
            " GROUP BY misconception, template", tags).fetchall()
        return [(r["misconception"], r["template"], float(r["at"])) for r in rows]

    def save_card(self, key: str, card: dict, due_at: float, at: float, db: sqlite3.Connection) -> None:
        db.execute(
            "INSERT INTO cards(key, card, due_at, introduced_at, introduced_day) VALUES (?,?,?,?,?)"
            " ON CONFLICT(key) DO UPDATE SET card = excluded.card, due_at = excluded.due_at",
            (key, json.dumps(card), due_at, at, local_day(at)))

    def record_review(self, key: str, attempt_id: int | None, rating: int, log: dict, at: float,
                      db: sqlite3.Connection) -> None:
        db.execute("INSERT INTO reviews(card_key, attempt_id, reviewed_at, rating, log) VALUES (?,?,?,?,?)",
                   (key, attempt_id, at, rating, json.dumps(log)))

    def reviews(self) -> list[sqlite3.Row]:
        return self._db.execute("SELECT * FROM reviews ORDER BY reviewed_at, id").fetchall()

    def card_reviews(self, key: str) -> list[float]:
        """When the card was reviewed, oldest first."""
        return [r[0] for r in self._db.execute(
            "SELECT reviewed_at FROM reviews WHERE card_key = ? ORDER BY reviewed_at, id", (key,))]

    # --- settings -----------------------------------------------------------

    def setting(self, name: str) -> Any:
        """A saved setting (plain JSON), or None."""
        row = self._db.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row["value"])
        except ValueError:
            return None

    def save_setting(self, name: str, value: Any, at: float, db: sqlite3.Connection | None = None) -> None:
        """Save (or, with None, forget) a setting."""
        if db is None:
            with self.transaction() as conn:
                return self.save_setting(name, value, at, conn)
        if value is None:
            db.execute("DELETE FROM settings WHERE name = ?", (name,))
        else:
            db.execute("INSERT INTO settings(name, value, saved_at) VALUES (?,?,?) ON CONFLICT(name) DO UPDATE"
                       " SET value = excluded.value, saved_at = excluded.saved_at", (name, json.dumps(value), at))

    # --- mocks --------------------------------------------------------------

    def create_mock(self, state: MockState) -> None:
        """Insert the mock and give `state` its number."""
        with self.transaction() as db:
            db.execute("INSERT INTO mocks(session_id, exam, paper, minutes) VALUES (?,?,?,?)",
                       (state.session_id, state.exam, json.dumps(state.paper), state.minutes))
            state.number = db.execute("SELECT count(*) FROM mocks WHERE session_id <= ?",
                                      (state.session_id,)).fetchone()[0]

    def save_mock(self, state: MockState, db: sqlite3.Connection | None = None) -> None:
        if db is None:
            with self.transaction() as conn:
                return self.save_mock(state, conn)
        db.execute(
            "UPDATE mocks SET elapsed = ?, current = ?, answers = ?, marked = ?, visited = ?, spent = ?,"
            " result = ? WHERE session_id = ?",
            (state.elapsed, state.current, json.dumps({str(k): v for k, v in state.answers.items()}),
             json.dumps(sorted(state.marked)), json.dumps(sorted(state.visited)),
             json.dumps({str(k): v for k, v in state.spent.items()}),
             json.dumps(state.result) if state.result is not None else None, state.session_id))

    @staticmethod
    def _mock_from_row(row: sqlite3.Row) -> MockState:
        return MockState(
            session_id=row["session_id"], exam=row["exam"], paper=json.loads(row["paper"]),
            minutes=row["minutes"], elapsed=row["elapsed"], current=row["current"],
            answers={int(k): v for k, v in json.loads(row["answers"]).items()},
            marked=set(json.loads(row["marked"])), visited=set(json.loads(row["visited"])),
            spent={int(k): v for k, v in json.loads(row["spent"]).items()},
            result=json.loads(row["result"]) if row["result"] else None, number=row["number"],
            sections=_mock_sections(row["settings"]))

    # A mock's number is its place among all mocks by session id: ids only grow and mocks are
    # never deleted, so the number a learner saw once stays the same.
    _MOCK_COLUMNS = ("m.*, (SELECT count(*) FROM mocks x WHERE x.session_id <= m.session_id) AS number,"
                     " s.started_at AS started_at, s.ended_at AS ended_at, s.status AS status,"
                     " s.settings AS settings")
    _PAUSED = "s.status IN ('open', 'quit') AND m.result IS NULL"

    def open_mock(self) -> MockState | None:
        """The newest mock that was interrupted before it was submitted."""
        paused = self.paused_mocks()
        return paused[-1] if paused else None

    def paused_mocks(self) -> list[MockState]:
        """Mocks paused or interrupted before they were submitted, oldest first."""
        rows = self._db.execute(
            f"SELECT {self._MOCK_COLUMNS} FROM mocks m JOIN sessions s ON s.id = m.session_id"
            f" WHERE {self._PAUSED} ORDER BY s.started_at, s.id").fetchall()
        return [self._mock_from_row(r) for r in rows]

    def mocks(self) -> list[tuple[sqlite3.Row, MockState]]:
        """Every mock with its session row, oldest first."""
        rows = self._db.execute(
            f"SELECT {self._MOCK_COLUMNS} FROM mocks m JOIN sessions s ON s.id = m.session_id"
            " ORDER BY s.started_at, s.id").fetchall()
        return [(r, self._mock_from_row(r)) for r in rows]


def _mock_sections(settings: str | None) -> str:
    """The sections a mock was set with; a mock saved before sections could be chosen: by marks."""
    try:
        chosen = json.loads(settings or "{}").get("sections")
    except (ValueError, AttributeError):
        chosen = None
    return chosen if chosen in SECTION_KINDS else "marks"


class EmptyHistory:
    """Stands in for a history file that does not exist yet, so reading one creates nothing."""

    def attempts(self, since=None, mode=None) -> list:
        return []

    def sessions(self) -> list:
        return []

    def cards(self) -> dict:
        return {}

    def misconception_templates(self, tags) -> list:
        return []

    def tries(self) -> dict:
        return {}

    def reviews(self) -> list:
        return []

    def mocks(self) -> list:
        return []

    def setting(self, name: str):
        return None

    def card_reviews(self, key: str) -> list:
        return []

    def paused_mocks(self) -> list:
        return []

    def close(self) -> None:
        pass


@contextmanager
def read_history(path: Path) -> Iterator[History | EmptyHistory]:
    """The history at `path` for reading, or an empty stand-in when there is no file yet."""
    history = History(path) if path.exists() else EmptyHistory()
    try:
        yield history
    finally:
        history.close()
