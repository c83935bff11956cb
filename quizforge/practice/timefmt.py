"""Time as the learner reads it, with no terminal library behind it (engines use it too)."""

from __future__ import annotations


def clock_text(seconds: float) -> str:
    """12:05, or 1:02:05 past an hour."""
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
