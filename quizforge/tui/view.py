"""Small pieces of terminal text shared by the session modes."""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, RenderResult
from rich.text import Text


SEPARATOR = "  ·  "


class KeysLine:
    """Keys with their labels, wrapped between items only, so that a key never parts from its label
    (`l` at a line's end and `palette` on the next)."""

    def __init__(self, items: list[Text]):
        self.items = items

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        line = Text(style="dim")
        for item in self.items:
            if line.plain and line.cell_len + len(SEPARATOR) + item.cell_len > options.max_width:
                yield line
                line = Text(style="dim")
            if line.plain:
                line.append(SEPARATOR)
            line.append_text(item)   # an item wider than the terminal wraps at its own spaces
        yield line


def keys_line(*keys: str) -> KeysLine:
    """'h hint · s skip' with the keys in bold."""
    items = []
    for item in keys:
        key, _, label = item.partition(" ")
        items.append(Text.assemble((key, "bold"), " " + label if label else ""))
    return KeysLine(items)
