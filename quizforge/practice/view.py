"""Small pieces of terminal text shared by the session modes."""

from __future__ import annotations

from rich.text import Text


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
