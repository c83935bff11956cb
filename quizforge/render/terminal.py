"""The console the commands print to, and the spinner that names the step slow work is on."""

from __future__ import annotations

import os
import sys

from rich.console import Console
from rich.text import Text


def console() -> Console:
    return Console(highlight=False)


def say(out: Console, text: str | Text, *, items: list[str] | None = None, separator: str = " · ") -> None:
    """A line for the user: on a terminal wrapped at spaces to its width (the terminal would cut
    words), piped kept as one line. `items` follow `text`, broken only between items, never inside
    one ("Q1 6 · Q2 3" must not become "Q" / "1 6")."""
    line = text if isinstance(text, Text) else Text(text)
    if not out.is_terminal:
        if items:
            line = line + Text(" " + separator.join(items))
        out.print(line, soft_wrap=True)
        return
    if not items:
        out.print(line)
        return
    from rich.cells import cell_len

    drawn = [row.plain for row in line.wrap(out, out.width)]
    current, glue = (drawn.pop() if drawn else ""), " "   # the first item follows the text after a space
    mark = separator.rstrip()   # ends a line that breaks between items, so the list reads on
    for item in items:
        if current and cell_len(current + glue + item + mark) <= out.width:
            current += glue + item
        else:
            if current:
                drawn.append(current + (mark if glue == separator else ""))
            current = item
        glue = separator
    drawn.append(current)
    out.print(Text("\n".join(drawn), style=line.style), soft_wrap=True)


class Commands:
    """Labelled commands to type (("solution", "quiz explain ID"), …): on one line where they fit,
    else one a line, so that no terminal breaks a command or an ID in two."""

    def __init__(self, *pairs: tuple[str, str], separator: str = "   ·   ", style: str = "dim"):
        self.pairs, self.separator, self.style = pairs, separator, style

    def __rich_console__(self, console: Console, options):
        from rich.cells import cell_len

        one = self.separator.join(f"{label}: {command}" for label, command in self.pairs)
        if cell_len(one) <= options.max_width:
            yield Text(one, style=self.style)
            return
        for label, command in self.pairs:
            whole = f"{label}: {command}"
            if cell_len(whole) <= options.max_width:
                yield Text(whole, style=self.style)
            else:
                yield Text(f"{label}:", style=self.style)
                yield Text(command, style=self.style, overflow="fold")


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
        # The width is read from the terminal itself: rich asks fds 0-2, which pytest points at
        # files, and a spinner drawn 80 wide in 40 columns wraps and leaves its frames behind.
        console = err
        if self._stream is not None:
            try:
                width = os.get_terminal_size(self._stream.fileno()).columns
            except OSError:
                width = 0
            width = width or err.width   # a terminal that reports no size (a fresh pty) is 0 wide
            console = Console(file=self._stream, highlight=False, width=width)
        self._status = console.status("", spinner="dots")

    def step(self, text: str) -> None:
        if self._status is not None:   # one line, whatever its length: a wrapped spinner cannot clear itself
            self._status.update(Text(text, no_wrap=True, overflow="ellipsis"))

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
