"""Where the math is in the bank's Markdown: `$…$` inline and `$$…$$` displayed, a `\\$` being
a dollar sign. Every medium finds math spans here, so none reads a formula another skips."""

from __future__ import annotations

import re
from typing import Iterator

MATH = re.compile(r"\$\$(.+?)\$\$|(?<!\\)\$(.+?)(?<!\\)\$", re.DOTALL)


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
