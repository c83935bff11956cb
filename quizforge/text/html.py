"""Markdown with TeX math as HTML, the math kept as TeX for MathJax or KaTeX.

An LMS or a browser runs MathJax (or KaTeX) over `\\(…\\)` and `\\[…\\]`, so the math spans
are set aside before the Markdown is rendered (Markdown's backslash escapes would otherwise eat
`\\(` and `\\\\`) and put back afterwards, HTML-escaped, in those delimiters.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

from quizforge.text.markdown import math_spans

# Letters and digits only, so no Markdown rule can touch it.
_HOLDER = "QFMATH{}X"
_HOLDERS = re.compile(r"QFMATH(\d+)X")


@lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt

    # CommonMark with tables; raw HTML in a prompt is shown as text, not obeyed; <br />, not <br>.
    return MarkdownIt("commonmark", {"html": False, "xhtmlOut": True}).enable("table")


def _render(markdown: str, inline: bool) -> str:
    spans: list[str] = []
    held = []
    for piece, is_math, displayed in math_spans(markdown):
        if not is_math:
            held.append(piece)
            continue
        spans.append((r"\[" + piece.strip() + r"\]") if displayed else (r"\(" + piece.strip() + r"\)"))
        held.append(_HOLDER.format(len(spans) - 1))
    md = _markdown()
    rendered = md.renderInline("".join(held)) if inline else md.render("".join(held))
    return _HOLDERS.sub(lambda m: html.escape(spans[int(m.group(1))], quote=False), rendered).strip()


def to_html(markdown: str) -> str:
    """Markdown with $…$ math → HTML (XHTML-well-formed) with \\(…\\) and \\[…\\] for MathJax."""
    return _render(markdown, inline=False)


def inline_html(markdown: str) -> str:
    """One line of Markdown (an option) → inline HTML, no paragraph around it."""
    return _render(markdown, inline=True)


@lru_cache(maxsize=8192)
def shared_html(markdown: str, inline: bool) -> str:
    """A piece many variants share word for word (a solution step, a reason, an instruction),
    rendered once: with a class of 300 this halves the Markdown work."""
    return _render(markdown, inline)
