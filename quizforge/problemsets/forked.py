"""Work done in a forked copy of this process, beside the caller: the copy has everything the
caller has built (a class's questions hold closures, which no pickle carries), tells its
progress over a pipe, and hands back only its error, if any. Without os.fork (Windows) the
work runs in the caller when it first asks after it.
"""

from __future__ import annotations

import os
import pickle
import signal
import time
import warnings
from typing import Callable

_ERROR = b"!"   # what precedes a pickled exception on the pipe; progress is b"<n>\n"
POLL_SECONDS = 0.02   # how often a waiting caller looks at its children (each runs for seconds)


class Forked:
    """WORK(tell) running in a child process; TELL(n) reports progress n. `poll` relays the
    progress told so far to ON_PROGRESS and says whether the child still runs; `finish`
    waits for it and raises its error; `close` stops it. Unforked, `poll` does the work."""

    def __init__(self, work: Callable[[Callable[[int], None]], None], on_progress: Callable[[int], None]):
        self.on_progress = on_progress
        self.pid = None
        self._buffer = b""
        self._error: BaseException | None = None
        self._unforked = None if hasattr(os, "fork") else work   # run by the first poll
        if self._unforked is not None:
            return
        read, write = os.pipe()
        with warnings.catch_warnings():
            # Python 3.12+ warns when a process with threads (a progress bar's, torch's pool) forks:
            # the child here takes no lock those threads hold, runs Python only, and leaves by _exit.
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
        if pid == 0:   # the child: never returns into the caller's code
            status = 0
            try:
                os.close(read)
                work(lambda n: _write_all(write, f"{n}\n".encode()))
            except BaseException as error:
                status = 1
                try:
                    told = pickle.dumps(error)
                except Exception:   # an exception that cannot be pickled is told as its words
                    told = pickle.dumps(RuntimeError(f"{type(error).__name__}: {error}"))
                _write_all(write, _ERROR + told)
            finally:
                os._exit(status)
        os.close(write)
        self.pid, self._read = pid, read
        os.set_blocking(read, False)

    def poll(self) -> bool:
        """Relay the progress told so far; True while the child runs."""
        if self._unforked is not None:
            work, self._unforked = self._unforked, None
            work(self.on_progress)
        if self.pid is None:
            return False
        while True:
            try:
                chunk = os.read(self._read, 65536)
            except BlockingIOError:
                return True
            if not chunk:   # the child closed its end: it has finished
                self._relay(final=True)
                return False
            self._buffer += chunk
            self._relay(final=False)

    def _relay(self, final: bool) -> None:
        while not self._buffer.startswith(_ERROR) and b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            self.on_progress(int(line))
        if final and self._buffer.startswith(_ERROR):
            self._error = pickle.loads(self._buffer[len(_ERROR):])

    def finish(self) -> None:
        """Wait for the child; raise what it raised."""
        if self.pid is None:
            self.poll()
            return
        while self.poll():
            time.sleep(POLL_SECONDS)
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        os.close(self._read)
        if self._error is not None:
            raise self._error
        if status != 0:
            raise RuntimeError(f"a helper process ended with status {status}")

    def close(self) -> None:
        """Stop the child if it still runs (the caller failed)."""
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        self.pid = None
        os.close(self._read)


def _write_all(fd: int, data: bytes) -> None:
    while data:
        data = data[os.write(fd, data):]
