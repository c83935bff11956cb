"""Matrices on screen that never hide an entry, whatever the terminal's width.

A matrix is drawn as a labelled table when its natural width fits; otherwise as a
compact list, one row per line ("q1: d1 = 0, d2 = -1"), which wraps between entries
and never inside one. Several matrices side by side flow onto the next line when
they do not fit beside each other. Rich's own tables shrink columns instead, which
turns entries into `…` or drops them.
"""

from __future__ import annotations

from typing import Iterable, Sequence

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.cells import cell_len
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

GAP = 3  # spaces between matrices shown side by side


class MatrixView:
    """A titled matrix with optional row and column labels; entries are strings."""

    def __init__(self, title: str | Text, cells: Sequence[Sequence[str]], row_labels: Sequence[str] = (),
                 col_labels: Sequence[str] = (), show_header: bool | None = None) -> None:
        self.title = title if isinstance(title, Text) else Text(title, style="bold")
        self.cells = [list(row) for row in cells]
        self.row_labels = list(row_labels)
        self.col_labels = list(col_labels)
        self.show_header = bool(col_labels) if show_header is None else show_header

    def table(self) -> Table:
        table = Table(box=box.SIMPLE_HEAD if self.show_header else box.SIMPLE, show_header=self.show_header,
                      show_edge=False, pad_edge=False)
        if self.row_labels:
            table.add_column("", style="dim", no_wrap=True)
        width = len(self.cells[0]) if self.cells else 0
        for label in self.col_labels or [""] * width:
            table.add_column(label, justify="right", no_wrap=True)
        for r, row in enumerate(self.cells):
            table.add_row(*([self.row_labels[r]] if self.row_labels else []), *row)
        return table

    def compact(self, width: int) -> Text:
        """One line per row, each entry named by its column. A row too long for `width` goes on
        over indented lines, broken between entries and never inside one."""
        out = Text()
        for r, row in enumerate(self.cells):
            label = self.row_labels[r] if self.row_labels else f"row {r + 1}"
            entries = [f"{c} = {x}" for c, x in zip(self.col_labels, row)] if self.col_labels else list(row)
            if r:
                out.append("\n")
            out.append(f"{label}:", style="dim")
            used = cell_len(label) + 1
            for n, entry in enumerate(entries):
                piece = entry + ("," if n < len(entries) - 1 else "")
                if n and used + 1 + cell_len(piece) > width:
                    out.append("\n  ")
                    used = 2
                else:
                    out.append(" ")
                    used += 1
                out.append(piece)
                used += cell_len(piece)
        return out

    def natural_width(self, console: Console, options: ConsoleOptions) -> int:
        table_width = Measurement.get(console, options.update(width=10_000), self.table()).maximum
        return max(table_width, self.title.cell_len)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        natural = self.natural_width(console, options)
        return Measurement(min(natural, max(8, self.title.cell_len)), natural)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.title
        if self.natural_width(console, options) <= options.max_width:
            yield self.table()
        else:
            yield self.compact(options.max_width)


class MatrixRow:
    """Matrices side by side while they fit, the rest flowing onto the following lines."""

    def __init__(self, views: Iterable[MatrixView]) -> None:
        self.views = list(views)

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        widths = [Measurement.get(console, options, v) for v in self.views]
        return Measurement(max((w.minimum for w in widths), default=0),
                           sum(w.maximum for w in widths) + GAP * max(0, len(widths) - 1))

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        lines: list[list[tuple[MatrixView, int]]] = [[]]
        used = 0
        for view in self.views:
            width = view.natural_width(console, options)
            needed = width + (GAP if lines[-1] else 0)
            if lines[-1] and used + needed > options.max_width:
                lines.append([])
                used, needed = 0, width
            lines[-1].append((view, width))
            used += needed
        for n, line in enumerate(lines):
            if n:
                yield Text("")
            if len(line) == 1:
                yield line[0][0]
                continue
            grid = Table.grid(padding=(0, GAP, 0, 0), pad_edge=False)
            for _, width in line:
                grid.add_column(width=width, no_wrap=True)
            grid.add_row(*(view for view, _ in line))
            yield grid
