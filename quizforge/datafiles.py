"""Content files a teacher edits (TOML), read with a small schema and errors that name the line.

`tomllib` reports syntax errors with their line; for a well-formed file whose entry breaks
the schema (a missing field, a wrong type, an unknown key), `Entry.fail` finds the entry's
line in the source text, and the key's line within it, so the message points at the spot.
Standard library only: loading content must not pull in torch or sympy.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizforge.errors import InputError


class ContentError(InputError):
    """A content file that cannot be read or breaks its schema; the message starts with file:line."""


@dataclass(frozen=True)
class Entry:
    """One table of a content file: the top level, a [table], or the n-th [[array]] entry."""

    path: Path
    text: str
    data: dict[str, Any]
    header: str | None = None   # "prompt" for the entries of [[prompt]]; None for the top level
    index: int = 0
    single: bool = False        # header names a [table], not an [[array]]

    def line(self, key: str | None = None) -> int:
        lines = self.text.splitlines()
        start, end = 0, len(lines)
        if self.header is not None:
            name = re.escape(self.header)
            opener = re.compile(rf"^\s*\[\s*{name}\s*\](?!\])" if self.single else rf"^\s*\[\[\s*{name}\s*\]\]")
            starts = [i for i, line in enumerate(lines) if opener.match(line)]
            if self.index < len(starts):
                start = starts[self.index]
            nxt = [i for i, line in enumerate(lines) if i > start and line.lstrip().startswith("[")]
            end = nxt[0] if nxt else len(lines)
        else:
            tables = [i for i, line in enumerate(lines) if line.lstrip().startswith("[")]
            end = tables[0] if tables else len(lines)
        if key is not None:
            assign = re.compile(rf"^\s*{re.escape(key)}\s*=")
            for i in range(start, end):
                if assign.match(lines[i]):
                    return i + 1
        return start + 1

    def fail(self, problem: str, key: str | None = None) -> ContentError:
        where = "" if self.header is None else f"[{self.header}]: " if self.single else \
            f"[[{self.header}]] #{self.index + 1}: "
        return ContentError(f"{self.path}:{self.line(key)}: {where}{problem}")

    def text_field(self, key: str, optional: bool = False) -> str:
        value = self.data.get(key)
        if value is None and optional:
            return ""
        if not isinstance(value, str) or not value.strip():
            raise self.fail(f"{key!r} must be a non-empty string" if key in self.data else f"missing {key!r}", key)
        return value.strip()

    def text_list(self, key: str, minimum: int = 0) -> tuple[str, ...]:
        value = self.data.get(key, [] if minimum == 0 else None)
        if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
            raise self.fail(f"{key!r} must be a list of non-empty strings" if key in self.data else f"missing {key!r}",
                            key)
        if len(value) < minimum:
            raise self.fail(f"{key!r} needs at least {minimum} entries, has {len(value)}", key)
        return tuple(v.strip() for v in value)

    def only(self, allowed: set[str]) -> None:
        for key in self.data:
            if key not in allowed:
                raise self.fail(f"unknown field {key!r} (fields: {', '.join(sorted(allowed))})", key)

    def table(self, header: str) -> "Entry":
        """The [header] table below this one (empty when absent), with lines found within it."""
        value = self.data.get(header, {})
        if not isinstance(value, dict):
            raise self.fail(f"{header!r} must be a [{header}] table", header)
        return Entry(self.path, self.text, value, header, single=True)

    def entries(self, header: str, minimum: int = 1) -> list["Entry"]:
        value = self.data.get(header)
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value) or len(value) < minimum:
            raise self.fail(f"needs at least {minimum} [[{header}]] entr{'y' if minimum == 1 else 'ies'}")
        return [Entry(self.path, self.text, item, header, i) for i, item in enumerate(value)]


def toml_error_line(error: Exception, text: str) -> int:
    """The line a TOML error is on; tomllib says "at end of document" for what runs off the end
    (an unclosed string or array), which is the file's last line."""
    m = re.search(r"line (\d+)", str(error))
    if m:
        return int(m.group(1))
    return max(1, len(text.splitlines())) if "end of document" in str(error) else 1


def load(path: Path) -> Entry:
    """The top-level table of a TOML content file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ContentError(f"{path}: cannot read ({e})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ContentError(f"{path}:{toml_error_line(e, text)}: not valid TOML ({e})") from None
    return Entry(path, text, data)
