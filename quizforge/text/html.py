"""Markdown with TeX math as HTML, the math kept as TeX for MathJax or KaTeX.

An LMS or a browser runs MathJax (or KaTeX) over `\\(…\\)` and `\\[…\\]`: markdown-it's renderer
walks the one token tree (`markdown.parse`) and writes each math token's TeX, HTML-escaped, in
those delimiters, untouched by Markdown's backslash escapes (which would eat `\\(` and `\\\\`).
"""

from __future__ import annotations

import html
from functools import lru_cache

from quizforge.text.markdown import parse, parse_inline, parser, simple_line
from quizforge.text.matrix import entry_value, is_attention_weights


def math_html(tex: str, displayed: bool) -> str:
    """A formula for MathJax: \\(…\\) inline, \\[…\\] displayed, HTML-escaped."""
    return html.escape((r"\[" + tex.strip() + r"\]") if displayed else (r"\(" + tex.strip() + r"\)"), quote=False)


def _inline_math(tokens, i, options, env) -> str:
    return math_html(tokens[i].content, False)


def _displayed_math(tokens, i, options, env) -> str:
    return math_html(tokens[i].content, True)


def _math_block(tokens, i, options, env) -> str:
    """$$…$$ on lines of its own: a paragraph holding the displayed formula."""
    return f"<p>{_displayed_math(tokens, i, options, env)}</p>\n"


@lru_cache(maxsize=1)
def _renderer():
    from markdown_it.renderer import RendererHTML

    renderer = RendererHTML()
    renderer.rules.update(math_inline=_inline_math, math_inline_double=_displayed_math, math_block=_math_block)
    return renderer


def _render(markdown: str, inline: bool) -> str:
    # A simple line (most of a class's LMS texts) skips markdown-it; it renders the same.
    simple = _simple(markdown, inline)
    if simple is not None:
        return simple.strip()
    # CommonMark with tables; raw HTML in a prompt is shown as text, not obeyed; <br />, not <br>.
    tokens = parse_inline(markdown) if inline else parse(markdown)
    return _renderer().render(tokens, parser().options, {}).strip()


def _simple(source: str, inline: bool) -> str | None:
    """What markdown-it renders SOURCE as, when it is one simple line (else None): a paragraph
    of its text, HTML-escaped as markdown-it escapes it, with the leading span as <strong> or
    <em> and each formula as MathJax's \\(…\\) (or \\[…\\] displayed)."""
    line = simple_line(source, inline)
    if line is None:
        return None
    mark, span, pieces = line
    text = "".join(_escape(piece) if k % 2 == 0 else math_html(*piece) for k, piece in enumerate(pieces))
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
