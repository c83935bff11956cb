"""Reading the learner's lines: from a real terminal (prompt_toolkit, with a live status bar)
or from a pipe (one answer per line, for scripts and tests). Both honour a deadline and
report end of input instead of blocking on it."""

from __future__ import annotations

import os
import select
import sys
import time
from typing import Callable

EOF = "\x00eof"          # input ended (Ctrl-D, or the pipe closed)
TIMEOUT = "\x00timeout"  # the deadline passed while waiting
MAX_LINE = 4096          # longer lines are cut; no answer is anywhere near this

Clock = Callable[[], float]


class PipeReader:
    """Lines from a file descriptor. Waits with select(), so a deadline is kept even when
    the writer sends nothing, and a closed pipe ends the session instead of hanging it."""

    interactive = False

    def __init__(self, fd: int | None = None, clock: Clock = time.time):
        self.fd = sys.stdin.fileno() if fd is None else fd
        self.clock = clock
        self._buffer = b""
        self._ended = False
        self._last_status = None

    def prepare(self) -> None:
        """Nothing to load for a pipe."""

    def read(self, prompt: str = "", *, deadline: float | None = None,
             status: Callable[[], str] | None = None) -> str:
        if status is not None and status is not self._last_status:
            self._last_status = status   # once per question: a transcript needs no ticking clock
            sys.stdout.write(status() + "\n")
        if prompt:
            sys.stdout.write(prompt)
        sys.stdout.flush()
        line = self._line(deadline)
        if prompt and line not in (EOF, TIMEOUT):
            sys.stdout.write(line + "\n")   # echo, so a transcript reads like the session did
        elif prompt:
            sys.stdout.write("\n")
        sys.stdout.flush()
        return line

    def _line(self, deadline: float | None) -> str:
        while b"\n" not in self._buffer:
            if self._ended:
                if self._buffer:
                    line, self._buffer = self._buffer, b""
                    return line.decode("utf-8", "replace")[:MAX_LINE].strip()
                return EOF
            if deadline is not None:
                wait = deadline - self.clock()
                if wait <= 0:
                    return TIMEOUT
                ready, _, _ = select.select([self.fd], [], [], wait)
                if not ready:
                    continue   # re-check the clock: it may be injected and not track real time
            chunk = os.read(self.fd, 65536)
            if not chunk:
                self._ended = True
            self._buffer += chunk
            if len(self._buffer) > 1 << 20 and b"\n" not in self._buffer:
                self._buffer = self._buffer[:MAX_LINE]   # a flood without newlines: keep a line's worth
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", "replace")[:MAX_LINE].strip()


class TerminalReader:
    """A prompt in a real terminal. The bottom toolbar keeps the status (n of N, score,
    clock) visible and refreshed while the learner thinks; a deadline ends the prompt."""

    interactive = True

    def __init__(self, clock: Clock = time.time):
        self.clock = clock
        self._session = None

    def prepare(self) -> None:
        """Load prompt_toolkit now, before background work competes with it for the GIL."""
        self.session

    @property
    def session(self):
        """Made at the first prompt, so importing prompt_toolkit never delays the first question."""
        if self._session is None:
            from prompt_toolkit import PromptSession

            self._session = PromptSession()
        return self._session

    def read(self, prompt: str = "", *, deadline: float | None = None,
             status: Callable[[], str] | None = None) -> str:
        from prompt_toolkit.application import get_app

        def arm() -> None:
            if deadline is None:
                return
            app = get_app()
            wait = max(0.0, deadline - self.clock())
            app.loop.call_later(wait, lambda: app.is_running and app.exit(result=TIMEOUT))

        def toolbar() -> str:
            # prompt_toolkit cuts a toolbar line at the terminal's edge: wrap it between items instead
            return wrap_status(status(), get_app().output.get_size().columns - 2)

        toolbar = toolbar if status is not None else None
        try:
            line = self.session.prompt(prompt, bottom_toolbar=toolbar, refresh_interval=0.5 if status else 0,
                                       pre_run=arm)
        except EOFError:
            return EOF
        return line if line == TIMEOUT else line[:MAX_LINE].strip()


def wrap_status(text: str, width: int, separator: str = "  ·  ") -> str:
    """The status as lines no wider than `width` (plus a space each side), broken only between its
    `separator`-joined items, so that no count or clock is cut: '⏱ 4:55 left · question 1 of 3 · ans'."""
    from prompt_toolkit.utils import get_cwidth   # cells, not characters: ⏱ may take two

    lines: list[str] = []
    for item in text.split(separator):
        if lines and get_cwidth(lines[-1] + separator + item) <= width:
            lines[-1] += separator + item
        else:
            lines.append(item)
    return "\n".join(f" {line} " for line in lines)


def reader_for_stdin(clock: Clock = time.time, force_pipe: bool = False):
    """The right reader for how we were started: a terminal gets prompts, anything else lines."""
    if not force_pipe and sys.stdin.isatty() and sys.stdout.isatty():
        return TerminalReader(clock)
    return PipeReader(clock=clock)
