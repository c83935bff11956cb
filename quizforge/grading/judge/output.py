"""The submission's stdout and stderr: drained from a pipe, kept up to a limit, shown truncated."""

from __future__ import annotations

import os
import threading

from quizforge.grading.judge.limits import OUTPUT_BYTES, format_size


FENCE = "| "


class CapturedOutput:
    """Everything the worker processes print. A thread per pipe reads to the end, so a
    flood never blocks the worker, and only the first `limit` bytes are kept."""

    def __init__(self, limit: int = OUTPUT_BYTES):
        self.limit = limit
        self.total = 0
        self._head = bytearray()
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []

    def drain(self, fd: int) -> threading.Thread:
        """Read `fd` until EOF in the background, then close it."""
        thread = threading.Thread(target=self._read, args=(fd,), name="quizforge-output", daemon=True)
        thread.start()
        self._threads.append(thread)
        return thread

    def _read(self, fd: int) -> None:
        try:
            while True:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    return
                with self._lock:
                    self.total += len(chunk)
                    room = self.limit - len(self._head)
                    if room > 0:
                        self._head += chunk[:room]
        except OSError:
            return
        finally:
            try:
                os.close(fd)
            except OSError:
                pass

    def wait(self, timeout: float = 2.0) -> None:
        for thread in self._threads:
            thread.join(timeout)

    def text(self) -> str:
        with self._lock:
            return self._head.decode("utf-8", errors="replace")

    def summary(self, chars: int = 2000) -> str:
        """The output for display: '' if there was none, else a labelled, truncated excerpt with
        every line behind a "| " fence, so nothing it prints can pass for the grader's own text."""
        text = self.text()
        if not self.total:
            return ""
        shown = text[:chars]
        if self.total > len(shown.encode("utf-8", errors="replace")):
            label = f"printed by the submission, not by the grader (first {len(shown)} characters of {format_size(self.total)}):"
        else:
            label = "printed by the submission, not by the grader:"
        return label + "".join(f"\n{FENCE}{line}" for line in shown.rstrip().splitlines())
