"""Small pieces of terminal text shared by the session modes."""

from __future__ import annotations

from rich.text import Text


def clock_text(seconds: float) -> str:
    """12:05, or 1:02:05 past an hour."""
    seconds = max(0, int(seconds))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def keys_line(*keys: str) -> Text:
    """'h hint · s skip' with the keys in bold."""
    text = Text(style="dim")
    for n, item in enumerate(keys):
        key, _, label = item.partition(" ")
        if n:
            text.append("  ·  ")
        text.append(key, style="bold")
        text.append(" " + label)
    return text
