"""The console the commands print to, and the spinner that names the step slow work is on."""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.text import Text


def console() -> Console:
    return Console(highlight=False)


class Progress:
    """Names the step that slow work is on: a rich spinner on stderr while that is a terminal,
    nothing at all when output is piped or is JSON (the spinner clears itself when done)."""

    def __init__(self, quiet: bool = False) -> None:
        err = Console(stderr=True, highlight=False)
        self._stream = None
        self._status = None
        if quiet or not err.is_terminal:
            return
        # Drawn on a copy of the terminal's fd: `quiz grade` runs pytest in this process, and
        # pytest's capture points fd 2 elsewhere while each test runs, which hid every step.
        try:
            self._stream = os.fdopen(os.dup(sys.stderr.fileno()), "w", encoding="utf-8", errors="replace")
        except (AttributeError, OSError, ValueError):
            self._stream = None
        # The width is read from the terminal itself: rich asks fds 0-2, which pytest points at
        # files, and a spinner drawn 80 wide in 40 columns wraps and leaves its frames behind.
        console = err
        if self._stream is not None:
            try:
                width = os.get_terminal_size(self._stream.fileno()).columns
            except OSError:
                width = err.width
            console = Console(file=self._stream, highlight=False, width=width)
        self._status = console.status("", spinner="dots")

    def step(self, text: str) -> None:
        if self._status is not None:   # one line, whatever its length: a wrapped spinner cannot clear itself
            self._status.update(Text(text, no_wrap=True, overflow="ellipsis"))

    def __enter__(self) -> "Progress":
        if self._status is not None:
            self._status.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._status is not None:
            self._status.stop()
        if self._stream is not None:
            self._stream.close()
            self._stream = None
