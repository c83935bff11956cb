"""SIGTERM unwinds like Ctrl-C, and the exit status still tells them apart (143, not 130)."""

from __future__ import annotations

import signal

_terminated = False


def stop_cleanly_on_sigterm() -> None:
    """SIGTERM (timeout, kill, docker stop) unwinds like Ctrl-C, so `finally` blocks kill
    sandboxes and remove what they wrote; the exit status is then 143."""

    def handler(signum, frame):
        global _terminated
        if _terminated:
            return  # already unwinding: a second SIGTERM must not cut the cleanup short
        _terminated = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def terminated() -> bool:
    """Whether the KeyboardInterrupt being handled came from SIGTERM."""
    return _terminated
