"""The bank's Markdown, parsed once: one markdown-it token tree (CommonMark, pipe tables, and
dollar math: `$…$` inline, `$$…$$` displayed, a `\\$` outside math being a dollar sign) that every
medium walks, so none reads a formula or a block another skips.

markdown-it and its plugins are imported on first use, never at start-up.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.token import Token

# The math tokens (mdit_py_plugins.dollarmath) and whether each is displayed: `$$…$$` on lines of
# its own is a math_block, inside a paragraph a math_inline_double.
MATH_TOKENS = {"math_inline": False, "math_inline_double": True, "math_block": True}


@lru_cache(maxsize=1)
def parser() -> MarkdownIt:
    """The one parser: CommonMark with tables and dollar math. Raw HTML is text (html: False, as
    every medium shows it), and HTML output is XHTML (<br />)."""
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": False, "xhtmlOut": True}).enable("table")
    # `$5 and $10` is math, as it always was (allow_digits, allow_space); no `$$…$$ (label)`;
    # `$$…$$` inside a paragraph is displayed math too (double_inline).
    md.use(dollarmath_plugin, allow_labels=False, allow_space=True, allow_digits=True,
           allow_blank_lines=True, double_inline=True)
    # Each inline math token remembers where it stands in its inline token's content, so the
    # terminal can replace it in the text as written (markdown-it keeps no column otherwise).
    inline_math = next(rule.fn for rule in md.inline.ruler.__rules__ if rule.name == "math_inline")

    def placed_math(state, silent: bool) -> bool:
        start = state.pos
        if not inline_math(state, silent):
            return False
        if not silent:
            state.tokens[-1].meta = {"span": (start, state.pos)}
        return True

    md.inline.ruler.at("math_inline", placed_math)
    return md


@lru_cache(maxsize=16384)   # a text is rendered in several media, and variants share most text
def parse(markdown: str) -> tuple[Token, ...]:
    """MARKDOWN's block token tree (inline tokens hold their children). Shared: do not change it."""
    return tuple(parser().parse(markdown))


@lru_cache(maxsize=16384)
def parse_inline(markdown: str) -> tuple[Token, ...]:
    """MARKDOWN as one line of inline content (an option, a title): no block structure."""
    return tuple(parser().parseInline(markdown))


# --- math in the text as written ---------------------------------------------------------

def _inline_columns(content: str, lines: list[str], first: int, cursor: dict[int, int],
                    in_cell: bool) -> list[int] | None:
    """Where each line of an inline token's CONTENT starts in its source line. A paragraph's
    lines are the source lines less their container prefix (and the text's outer whitespace),
    so each ends where its source line does; a heading or a table cell is found in its line."""
    columns = []
    for j, part in enumerate(content.split("\n")):
        if first + j >= len(lines):
            return None
        source = lines[first + j]
        tail = source.rstrip()
        col = len(tail) - len(part.rstrip())
        if in_cell or col < 0 or tail[col:] != part.rstrip():
            col = source.find(part.strip(), cursor.get(first + j, 0)) - (len(part) - len(part.lstrip()))
            if col < 0:
                return None
        cursor[first + j] = col + len(part)
        columns.append(col)
    return columns


def _source_offset(content: str, offset: int, columns: list[int], starts: list[int], first: int) -> int:
    line = content.count("\n", 0, offset)
    return starts[first + line] + columns[line] + offset - (content.rfind("\n", 0, offset) + 1)


def _children(token: Token) -> Iterator[Token]:
    for child in token.children or ():
        yield child
        yield from _children(child)


def math_tokens(markdown: str) -> list[tuple[int, int, Token]]:
    """Each math token of MARKDOWN with where it stands in the text as written, [start, end)
    with its dollars, in order."""
    lines = markdown.split("\n")
    starts = [0]
    for line in lines:
        starts.append(starts[-1] + len(line) + 1)
    cursor: dict[int, int] = {}
    found: list[tuple[int, int, Token]] = []

    def fallback(token: Token) -> None:
        # Located by its own text after the last one: never needed for the bank, but a text
        # markdown-it normalised (tabs, \r) must not lose its math.
        written = token.markup + token.content + token.markup
        at = markdown.find(written, found[-1][1] if found else 0)
        if at >= 0:
            found.append((at, at + len(written), token))

    tokens = parse(markdown)
    for i, token in enumerate(tokens):
        if token.type == "math_block":
            first, last = token.map[0], token.map[1] - 1
            begin = lines[first].find("$$", cursor.get(first, 0))
            end = lines[last].rfind("$$")
            if begin < 0 or end < 0 or (first == last and end <= begin):
                fallback(token)
                continue
            cursor[last] = end + 2
            found.append((starts[first] + begin, starts[last] + end + 2, token))
        elif token.type == "inline" and token.map and "$" in token.content:
            maths = [child for child in _children(token) if child.type in MATH_TOKENS]
            if not maths:
                continue
            in_cell = i > 0 and tokens[i - 1].type in ("th_open", "td_open")
            columns = _inline_columns(token.content, lines, token.map[0], cursor, in_cell)
            for math in maths:
                span = (math.meta or {}).get("span")
                if columns is None or span is None:
                    fallback(math)
                    continue
                begin = _source_offset(token.content, span[0], columns, starts, token.map[0])
                end = _source_offset(token.content, span[1] - 1, columns, starts, token.map[0]) + 1
                if not (markdown.startswith(math.markup, begin) and markdown.endswith(math.markup, 0, end)):
                    fallback(math)
                    continue
                found.append((begin, end, math))
    return found


def math_spans(markdown: str) -> Iterator[tuple[str, bool, bool]]:
    """MARKDOWN in order as (text, is_math, displayed) pieces, the text between formulas as it
    is written; a math piece is its TeX alone. A view of the token tree's math tokens."""
    if "$" in markdown and simple_line(markdown, inline=False) is not None:
        return simple_math_spans(markdown)
    return tree_math_spans(markdown)


def simple_math_spans(markdown: str) -> Iterator[tuple[str, bool, bool]]:
    """`math_spans` of a simple line, from `simple_line`'s pieces (its lead span as written)."""
    mark, span, pieces = simple_line(markdown, inline=False)
    lead = f"{mark}{span}{mark}" if span is not None else ""
    for k, piece in enumerate(pieces):
        if k % 2:
            yield piece[0], True, piece[1]
        elif lead + piece:
            yield lead + piece, False, False
        lead = ""


def tree_math_spans(markdown: str) -> Iterator[tuple[str, bool, bool]]:
    """`math_spans` from the token tree."""
    at = 0
    for start, end, token in (math_tokens(markdown) if "$" in markdown else ()):
        if start < at:
            continue
        if start > at:
            yield markdown[at:start], False, False
        yield token.content, True, MATH_TOKENS[token.type]
        at = end
    if at < len(markdown):
        yield markdown[at:], False, False


# --- a simple line, read without markdown-it ---------------------------------------------

# One line that no Markdown rule (of those the parser runs) can touch but math: no line break,
# tab or NUL, and none of the characters that start an inline construct (escape, code, emphasis,
# entity, autolink or HTML, link, image) outside its formulas. A formula is dollarmath's `$…$`, or
# `$$…$$` displayed inside the paragraph: it holds no `$`, and one ending in a backslash would
# escape its closing dollar, so either is left to markdown-it. The line may be led by a bold or
# italic span of plain text (**Answer:** ..., *Choose ONE option.*), which always opens and
# closes where it stands: nothing but a space (or the end) follows it.
_TEXT = r"[^\n\r\t\x0b\x0c\x00\\`*_&<\[\]!$]"
_TEX = r"[^$\n\r]*[^$\n\r\\]"
_FORMULA = rf"\$\$({_TEX})\$\$|\$({_TEX})\$"
_SIMPLE_LINE = re.compile(rf"(?:(\*\*|\*)({_TEXT}+?)\1(?= |$))?((?:{_TEXT}|{_FORMULA})*)")
_FORMULAS = re.compile(_FORMULA)
# a heading, quote, list item, rule, table, fence or displayed formula on lines of its own
_BLOCK_START = re.compile(r"[#>+\-=|~]|\d+[.)]|\$\$")


def simple_line(source: str, inline: bool) -> tuple[str | None, str | None, list] | None:
    """SOURCE read as markdown-it reads it, when it is one simple line (else None): the lead
    span's mark ('**' or '*', or None) and text, then the rest as pieces that alternate text and
    a formula, (its TeX, whether displayed), text first. INLINE: read as inline content, where
    no block can start. Most of a class's texts are such lines, and markdown-it takes ~50 times
    as long over them."""
    found = _SIMPLE_LINE.fullmatch(source)
    if found is None or not source or source[0].isspace() or source[-1].isspace():
        return None
    mark, span, rest = found.group(1), found.group(2), found.group(3)
    if span is not None and (span[0].isspace() or span[-1].isspace()):
        return None
    if not inline and mark is None and _BLOCK_START.match(source):
        return None
    split = _FORMULAS.split(rest)   # text, displayed TeX or None, inline TeX or None, text, ...
    pieces: list = [split[0]]
    for k in range(1, len(split), 3):
        displayed, inline_tex, after = split[k:k + 3]
        pieces += [(displayed, True) if displayed is not None else (inline_tex, False), after]
    return mark, span, pieces


# The Markdown constructs every medium renders: the terminal shows Markdown as it is written
# (math in Unicode), typst and HTML set each. Anything else in a text is a construct some
# medium would print as raw Markdown.
CONSTRUCTS = frozenset({
    "paragraph", "heading", "bullet_list", "ordered_list", "list_item", "fence", "code_block", "table",
    "thead", "tbody", "tr", "th", "td", "inline", "text", "softbreak", "code_inline", "strong", "em",
    *MATH_TOKENS,
})


def constructs(markdown: str) -> set[str]:
    """The constructs (markdown-it token kinds, without _open/_close) a Markdown text uses."""
    found: set[str] = set()
    stack = list(parse(markdown))
    while stack:
        token = stack.pop()
        found.add(re.sub(r"_(open|close)$", "", token.type))
        stack.extend(token.children or ())
    return found
