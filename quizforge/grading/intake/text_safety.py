"""Text that came from a submission or a class folder, made safe for where it is shown.

Failure messages, printed output and student names are written by students. Shown raw,
an escape sequence resets or redraws the instructor's terminal, a right-to-left override
makes a line read differently from what it holds, and Markdown or HTML turns into images
and links. Every report goes through one of these, for its format:

    plain(text)          terminal, CSV, JSON, XML: controls and bidi overrides become "?"
    markdown_text(text)  a Markdown table cell: plain, on one line, with Markdown and HTML inert
    visible_name(name)   a file or folder name: whatever is not printable written as an escape
"""

from __future__ import annotations

import re

# Characters that reorder the text around them (Unicode bidi controls).
BIDI_CONTROLS = "\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c"
# C0 and C1 controls but tab and newline, DEL, lone surrogates, non-characters, bidi controls.
_UNSAFE = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff{BIDI_CONTROLS}]")
# Inside a table cell, what Markdown reads as syntax: code spans, emphasis, links and images
# (no "[", no link), strikethrough, column breaks, and the escape itself. HTML goes as entities.
_MARKDOWN_SYNTAX = re.compile(r"[\\`*_\[\]|~]")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}


def plain(text: str) -> str:
    """`text` with no character that could drive a terminal or reorder a line: "?" instead.
    Windows line ends become newlines; a lone carriage return (which overwrites a line) does not survive."""
    return _UNSAFE.sub("?", text.replace("\r\n", "\n"))


def markdown_text(text: str) -> str:
    """`text` for a Markdown table cell: plain, on one line, every Markdown character escaped
    (so no link, image, code span or column break) and HTML's characters as entities."""
    one_line = " ".join(plain(text).split())
    escaped = _MARKDOWN_SYNTAX.sub(lambda m: "\\" + m.group(), one_line)
    return "".join(_HTML.get(c, c) for c in escaped)


def visible_name(name: str) -> str:
    """A file or folder name as it can be shown: printable characters as they are, anything
    else (controls, bidi overrides, bytes that are not UTF-8) as a \\x.. or \\u.... escape."""
    out = []
    for char in name:
        code = ord(char)
        if char.isprintable():
            out.append(char)
        elif 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, as os.fsdecode keeps it
            out.append(f"\\x{code - 0xDC00:02x}")
        else:
            out.append(char.encode("unicode_escape").decode("ascii"))
    return "".join(out)
