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
from quizforge.text.matrix import entry_value, is_attention_weights

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
    source = "".join(held)
    rendered = _simple(source, inline)
    if rendered is None:
        md = _markdown()
        rendered = md.renderInline(source) if inline else md.render(source)
    return _HOLDERS.sub(lambda m: html.escape(spans[int(m.group(1))], quote=False), rendered).strip()


# One line that no Markdown rule (of those markdown-it's commonmark preset runs) can touch: no
# line break, tab or NUL, and none of the characters that start an inline construct (escape,
# code, emphasis, entity, autolink or HTML, link, image). Optionally led by a bold or italic
# span of the same kind of text (**Answer:** ..., *Choose ONE option.*), which always opens and
# closes where it stands: nothing but a space (or the end) follows it.
_PLAIN = r"[^\n\r\t\x0b\x0c\x00\\`*_&<\[\]!]"
_SIMPLE = re.compile(rf"(?:(\*\*|\*)({_PLAIN}+?)\1(?= |$))?({_PLAIN}*)")
_BLOCK_START = re.compile(r"[#>+\-=|~]|\d+[.)]")   # a heading, quote, list item, rule, table or fence


def _simple(source: str, inline: bool) -> str | None:
    """What markdown-it renders SOURCE as, when it is one simple line (else None): a paragraph
    of its text, HTML-escaped as markdown-it escapes it, with the leading span as <strong> or <em>.
    Two thirds of a class's LMS texts are such lines; markdown-it takes ~50 times as long over them."""
    found = _SIMPLE.fullmatch(source)
    if found is None or not source or source[0].isspace() or source[-1].isspace():
        return None
    mark, span, rest = found.groups()
    if span is not None and (span[0].isspace() or span[-1].isspace()):
        return None
    if not inline and mark is None and _BLOCK_START.match(source):
        return None
    text = _escape(rest)
    if span is not None:
        tag = "strong" if mark == "**" else "em"
        text = f"<{tag}>{_escape(span)}</{tag}>{text}"
    return text if inline else f"<p>{text}</p>\n"


def _escape(text: str) -> str:
    """markdown-it's escapeHtml for text with no & or < (which a simple line has not)."""
    return text.replace(">", "&gt;").replace('"', "&quot;")


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


def matrix_html(step, caption: bool = True) -> str:
    """A matrix as a table with its labels; a heatmap (shade by value) for attention weights.
    `caption`: the step's title above it (a worked solution's step has its own heading)."""
    heat = is_attention_weights(step)
    out = [f'<table class="matrix{" heatmap" if heat else ""}">']
    if caption:
        out.append(f"<caption>{inline_html(step.title)}</caption>")
    if step.col_labels:
        corner = "<th></th>" if step.row_labels else ""
        out.append("<tr>" + corner + "".join(f"<th>{html.escape(c)}</th>" for c in step.col_labels) + "</tr>")
    for r, row in enumerate(step.matrix or ()):
        label = f"<th>{html.escape(step.row_labels[r])}</th>" if r < len(step.row_labels) else ""
        cells = []
        for cell in row:
            value = entry_value(cell) if heat else None
            # White text on the darker half of the scale.
            style = "" if value is None else f' style="--w:{value:.3f}"' + (' class="dark"' if value > 0.55 else "")
            cells.append(f"<td{style}>{html.escape(cell)}</td>")
        out.append("<tr>" + label + "".join(cells) + "</tr>")
    out.append("</table>")
    return "".join(out)
