"""Where the math is in the bank's Markdown: `$…$` inline and `$$…$$` displayed, a `\\$` outside
math being a dollar sign. Every medium finds math spans here, so none reads a formula another skips."""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Iterator

# Inside inline math a backslash takes the next character with it: `\$` is a dollar sign and
# `\\` a TeX line break, so `$x \\$` ends at its last dollar.
_INLINE_BODY = r"(?:[^$\\]|\\.)+?"
INLINE_MATH = r"(?<!\\)\$" + _INLINE_BODY + r"\$"   # no group: for splitting around it
MATH = re.compile(r"\$\$(.+?)\$\$|(?<!\\)\$(" + _INLINE_BODY + r")\$", re.DOTALL)


def math_spans(markdown: str) -> Iterator[tuple[str, bool, bool]]:
    """MARKDOWN in order as (text, is_math, displayed) pieces; a math piece is its TeX alone."""
    at = 0
    for m in MATH.finditer(markdown):
        if m.start() > at:
            yield markdown[at:m.start()], False, False
        displayed = m.group(1) is not None
        yield (m.group(1) if displayed else m.group(2)), True, displayed
        at = m.end()
    if at < len(markdown):
        yield markdown[at:], False, False


# The Markdown constructs every medium renders: the terminal shows Markdown as it is written
# (math in Unicode), typst and HTML set each. Anything else in a text is a construct some
# medium would print as raw Markdown.
CONSTRUCTS = frozenset({
    "paragraph", "heading", "bullet_list", "ordered_list", "list_item", "fence", "code_block", "table",
    "thead", "tbody", "tr", "th", "td", "inline", "text", "softbreak", "code_inline", "strong", "em",
})


@lru_cache(maxsize=1)
def _parser():
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def constructs(markdown: str) -> set[str]:
    """The constructs (markdown-it token kinds, without _open/_close) a Markdown text uses."""
    found: set[str] = set()
    stack = list(_parser().parse(markdown))
    while stack:
        token = stack.pop()
        found.add(re.sub(r"_(open|close)$", "", token.type))
        stack.extend(token.children or ())
    return found
