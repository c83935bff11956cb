"""A table where it fits, wrapped lines where it does not: names to type and numbers are never cut.

rich shrinks a table that is too wide by cutting cells (`vaswa…`, `124,43…`) or dropping columns to
nothing. TableOrLines draws the table only when every protected string shows whole on one line of it at
the width it is drawn at, and otherwise the same cells as lines that wrap at spaces.
"""

from __future__ import annotations

from typing import Callable, Iterable, Sequence

from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text


def shows_whole(console: Console, options: ConsoleOptions, renderable: RenderableType,
                whole: Iterable[str], fits: Callable[[list[str]], bool] | None = None) -> bool:
    """True when nothing is cut (no ellipsis), each string in `whole` appears on one drawn line,
    and `fits(lines drawn)`, where given, agrees."""
    lines = ["".join(segment.text for segment in line)
             for line in console.render_lines(renderable, options, pad=False)]
    if any("…" in line for line in lines) or (fits is not None and not fits(lines)):
        return False
    return all(any(text in line for line in lines) for text in whole)


class TableOrLines:
    """`table` if every string of `whole` fits in it, whole, at the drawing width (and `fits`, given
    the lines drawn, agrees: a squeezed column makes tall rows); else `lines()`."""

    def __init__(self, table: Table, whole: Iterable[str], lines: Callable[[], Sequence[RenderableType]],
                 fits: Callable[[list[str]], bool] | None = None):
        self.table = table
        self.whole = [text for text in whole if text]
        self.lines = lines
        self.fits = fits

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        if shows_whole(console, options, self.table, self.whole, self.fits):
            yield self.table
            return
        if self.table.title:
            title = self.table.title
            yield Text(title, style="italic") if isinstance(title, str) else title
        yield from self.lines()
        if self.table.caption:
            caption = self.table.caption
            yield Text(caption, style="dim") if isinstance(caption, str) else caption


def labelled_lines(headers: Sequence[str], rows: Sequence[Sequence]) -> list[RenderableType]:
    """Each row as its first cell in bold, then one indented `header: cell` line per other cell."""
    out: list[RenderableType] = []
    for row in rows:
        out.append(Text(str(row[0]), style="bold") if isinstance(row[0], str) else row[0])
        for header, cell in zip(headers[1:], row[1:]):
            if cell:
                out.append(Padding(Text.assemble(f"{header}: " if header else "", cell), (0, 0, 0, 2), expand=False))
    return out


def rows_table(table: Table, rows: Sequence[Sequence], whole: Iterable[str] = ()) -> TableOrLines:
    """`table` (already holding `rows`), or its rows as labelled lines: see labelled_lines."""
    headers = [str(column.header) for column in table.columns]
    return TableOrLines(table, whole, lambda: labelled_lines(headers, rows))
