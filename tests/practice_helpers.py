"""Shared helpers for the end-to-end `quiz practice` tests: the right and wrong answers
to a question ID, a small line-by-line driver for a piped subprocess, and reading history."""

from __future__ import annotations

import codecs
import json
import os
import re
import select
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from quizforge.answers import AnswerError, format_number
from quizforge.answers.check import check_answer
from quizforge.bank.question import LETTERS
from quizforge.bank.registry import question

QUESTION_ID = re.compile(r"[a-z]+\.[a-z0-9_]+-[0-9a-f]{4}")
# The question ID sits in the panel's bottom border: ╰──── dims.d_k-8220 ─╯
_BORDER_ID = re.compile(r"╰─*\s*(?:\x1b\[[0-9;]*m)*([a-z]+\.[a-z0-9_]+-[0-9a-f]{4})")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b[()][A-Z0-9]|\x1b[=>]")

DRILL_PROMPT = "answer › "
NEXT_PROMPT = "Enter next · e worked solution · q quit › "
MOCK_PROMPT = "answer or command › "


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)


def shown_ids(text: str) -> list[str]:
    """Question IDs printed in panel borders, in order."""
    return _BORDER_ID.findall(strip_ansi(text))


def right_answer(question_id: str) -> str:
    """The key as a learner would type it, checked to be graded correct."""
    q = question(question_id)
    if q.is_matrix:
        text = q.answer_md                      # '[[1, 0], [1, 1]]': the key as it prints
    else:
        text = q.correct_letters if q.kind != "NAT" else format_number(q.answer, q.decimals)
    assert check_answer(q, text).correct, (question_id, text)
    return text


def wrong_answer(question_id: str) -> str:
    """A readable answer that is graded wrong."""
    q = question(question_id)
    if q.is_matrix:
        text = "; ".join(" ".join(["9"] * len(row)) for row in q.answer)   # the right shape, every entry wrong
    elif q.kind == "NAT":
        text = "123456789"
    else:
        i = next(i for i in range(len(q.options)) if frozenset({i}) != q.correct)
        text = LETTERS[i]
    verdict = check_answer(q, text)
    assert not verdict.correct, (question_id, text)
    return text


def expected_marks(question_id: str, text: str | None) -> float:
    """GATE marks for one answer (0 when unanswered), as the grader gives them."""
    if text is None:
        return 0.0
    return check_answer(question(question_id), text).marks


def is_unreadable(question_id: str, text: str) -> bool:
    try:
        check_answer(question(question_id), text)
    except AnswerError:
        return True
    return False


def quiz_env(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES")}
    env.update(QUIZFORGE_HOME=str(home), PYTHONUNBUFFERED="1", NO_COLOR="1", PYTHONIOENCODING="utf-8")
    env.update(extra)
    return env


def quiz_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "quizforge", *args]


def run_quiz(home: Path, *args: str, input: str | None = None, timeout: float = 30) -> subprocess.CompletedProcess:
    return subprocess.run(quiz_cmd(*args), input=input, capture_output=True, text=True, encoding="utf-8",
                          env=quiz_env(home), timeout=timeout)


class Piped:
    """`quiz practice` on a pipe, driven a line at a time: wait for a prompt, then answer."""

    def __init__(self, home: Path, *args: str):
        self.proc = subprocess.Popen(quiz_cmd("practice", *args), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=quiz_env(home))
        self.text = ""
        self.pos = 0
        self.eof = False
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.current: str | None = None   # the question ID most recently shown

    def _fill(self, until: float) -> None:
        wait = max(0.0, until - time.monotonic())
        ready, _, _ = select.select([self.proc.stdout], [], [], wait)
        if not ready:
            return
        chunk = os.read(self.proc.stdout.fileno(), 65536)
        if not chunk:
            self.eof = True
            self.text += self._decoder.decode(b"", final=True)
            return
        self.text += self._decoder.decode(chunk)

    def expect(self, pattern: str, timeout: float = 15, literal: bool = True) -> tuple[re.Match, str]:
        """Wait until `pattern` appears after what was already read; returns the match and the
        text read since the last expect (the segment), and notes the latest question ID in it."""
        regex = re.compile(re.escape(pattern) if literal else pattern)
        until = time.monotonic() + timeout
        while True:
            m = regex.search(self.text, self.pos)
            if m:
                segment = self.text[self.pos:m.end()]
                self.pos = m.end()
                ids = shown_ids(segment)
                if ids:
                    self.current = ids[-1]
                return m, segment
            if self.eof or time.monotonic() >= until:
                raise AssertionError(f"{'EOF' if self.eof else 'timeout'} waiting for {pattern!r}; "
                                     f"output so far:\n{self.text}")
            self._fill(until)

    def send(self, line: str) -> None:
        self.proc.stdin.write((line + "\n").encode("utf-8"))
        self.proc.stdin.flush()

    def read_rest(self, timeout: float = 15) -> str:
        """Everything until the process closes its output; returns the unread part."""
        until = time.monotonic() + timeout
        while not self.eof:
            if time.monotonic() >= until:
                raise AssertionError(f"no end of output after {timeout} s; output so far:\n{self.text}")
            self._fill(until)
        rest, self.pos = self.text[self.pos:], len(self.text)
        return rest

    def wait(self, timeout: float = 15) -> int:
        self.read_rest(timeout)
        return self.proc.wait(timeout=timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass

    def __enter__(self) -> "Piped":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def db_rows(home: Path, sql: str, args=()) -> list[dict]:
    """Rows of a query on the history, read with a plain connection (no History side effects)."""
    db = sqlite3.connect(home / "history.db", timeout=15)
    db.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in db.execute(sql, args)]
    finally:
        db.close()


def mock_row(home: Path) -> dict:
    (row,) = db_rows(home, "SELECT * FROM mocks")
    for col in ("paper", "answers", "marked", "visited", "spent"):
        row[col] = json.loads(row[col])
    row["result"] = json.loads(row["result"]) if row["result"] else None
    return row


def integrity(home: Path) -> str:
    return db_rows(home, "PRAGMA integrity_check")[0]["integrity_check"]


class ScriptedLines:
    """A reader for the practice screens that plays typed lines back, then reports end of input
    (which pauses a mock)."""

    interactive = False

    def __init__(self, *lines: str):
        self.lines = list(lines)

    def prepare(self):
        pass

    def read(self, prompt="", *, deadline=None, status=None):
        from quizforge.tui.terminal import EOF

        return self.lines.pop(0) if self.lines else EOF
