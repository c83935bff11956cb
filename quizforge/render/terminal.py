"""The console the commands print to, and the spinner that names the step slow work is on."""

from __future__ import annotations

import os
import sys

from rich.console import Console


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
        console = Console(file=self._stream, highlight=False) if self._stream is not None else err
        self._status = console.status("", spinner="dots")

    def step(self, text: str) -> None:
        if self._status is not None:
            self._status.update(text)

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
