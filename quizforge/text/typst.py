"""Markdown with TeX math as typst markup and typst math, for papers and keys.

Math goes through the one command table (`tex`): fractions, roots, bold and calligraphic
letters, operators, matrices, 50{,}257 as the one number "50,257". A formula the table cannot
take (a command it lacks, unbalanced braces) is printed as plain text, as the terminal writes it.

The Markdown is the one token tree's (`markdown.parse`): paragraphs, headings, lists, tables,
code and math as markdown-it reads them, each block on the source lines it was written on.
"""

from __future__ import annotations

import functools
import re

from quizforge.text.backslash import backslashed
from quizforge.text.markdown import parse, simple_line
from quizforge.text.matrix import entry_value, is_attention_weights
from quizforge.text.terminal import tex_to_unicode
from quizforge.text.tex import COMMANDS, DIGIT_GROUPS, Reader, Untranslatable


def _letters(run: str) -> str:
    """Juxtaposed letters are a product in LaTeX, a single name in typst: space them out."""
    return " ".join(run) if len(run) > 1 else run


def tex_to_typst(latex: str) -> str:
    """TeX math as typst math. Raises Untranslatable on a command the table lacks, unbalanced
    braces, or characters typst math would read as code."""
    r = Reader(latex, strict=True)
    out: list[str] = []
    while not r.done():
        ch = r.peek()
        if ch == "\\":
            out.append(_command(r, r.command()))
        elif ch in "_^":
            r.i += 1
            out.append(f"{ch}({tex_to_typst(r.group())})")
        elif ch == "{":
            out.append(f"({tex_to_typst(r.group())})")
        elif ch.isalpha() and ch.isascii():
            m = re.match(r"[A-Za-z]+", latex[r.i:])
            r.i += m.end()
            out.append(_letters(m.group(0)))
        elif ch in "#$\"":
            raise Untranslatable(ch)
        elif grouped := DIGIT_GROUPS.match(latex, r.i):
            # 50{,}257: one number in math, as a string, so typst neither spaces its commas
            # as punctuation nor reads the braces as a group
            r.i = grouped.end()
            out.append(f' "{grouped.group(0).replace("{,}", ",")}"')
        else:
            if ch.isdigit() and out and out[-1][-1:].isalpha():
                out.append(" ")  # "j1" would be one name in typst
            out.append("\\/" if ch == "/" else ch)  # a bare / is a fraction in typst, a slash in LaTeX
            r.i += 1
    return re.sub(r"  +", " ", "".join(out)).strip()


_DELIMITERS = {"[": '"["', "(": '"("', "": "#none"}


def _command(r: Reader, word: str) -> str:
    command = COMMANDS.get(word)
    if command is None or command.typst is None:
        raise Untranslatable(f"\\{word}")
    kind = command.kind
    if kind == "frac":
        num, den = tex_to_typst(r.group()), tex_to_typst(r.group())
        return f" frac({num}, {den})"
    if kind in ("sqrt", "font", "accent"):
        return f" {command.typst}({tex_to_typst(r.group())})"
    if kind == "operator":
        return f' op("{_plain(r.group())}")'
    if kind == "text":
        return f' "{_plain(r.group())}"'
    if kind == "environment":
        rows, (left, _) = r.environment(r.group())
        cells = "; ".join(", ".join(tex_to_typst(cell) or "" for cell in row) for row in rows)
        return f"mat(delim: {_DELIMITERS[left]}, {cells})"
    return f" {command.typst} " if command.spaced else command.typst


def _plain(text: str) -> str:
    return text.replace("\\", "").replace('"', "'")


# --- markup ----------------------------------------------------------------------------

# typst markup's special characters, each put behind a backslash (as is the backslash)
_ESCAPED = "#*_`<>@[]~/$=+-"


def escape(text: str) -> str:
    return backslashed(text, _ESCAPED)


def string(text: str) -> str:
    """A typst string literal holding TEXT exactly."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _inline(children, math) -> str:
    """An inline token's children (text, bold, italics, code, $math$, line breaks) as typst markup."""
    out = []
    after_code = False
    for token in children:
        kind = token.type
        if kind == "text":
            if after_code and token.content[:1] in (";", "(", "."):
                # after "#raw(…)" typst would take ";" as the end of the call, "(" and "." as more of it
                out.append("\\" + token.content[0] + escape(token.content[1:]))
            else:
                out.append(escape(token.content))
        elif kind in ("math_inline", "math_inline_double"):
            out.append(_formula((token.content, kind == "math_inline_double"), math))
        elif kind == "code_inline":
            out.append(f"#raw({string(token.content)})")
        elif kind in ("strong_open", "strong_close"):
            out.append("*")
        elif kind in ("em_open", "em_close"):
            out.append("_")
        elif kind == "softbreak":
            out.append("\n")
        elif kind == "hardbreak":
            out.append("\\\n")
        elif kind == "link_open":
            out.append(f"#link({string(token.attrGet('href') or '')})[")
        elif kind == "link_close":
            out.append("]")
        elif kind == "image":
            out.append(escape(token.content))   # its alt text
        else:   # any other construct as it is written
            out.append(escape(token.content or token.markup))
        after_code = kind == "code_inline"
    return "".join(out)


LONG_EQUATION = 60   # LaTeX characters past which a chain of equalities is set a step per line


FITS_ANYWAY = 60   # source characters that can never be wider than the text: no need to measure them


def fitted(equation: str, characters: int) -> str:
    """A display equation scaled down to the text width should it be wider; measuring costs
    typst a tenth of a key's time, so one too short to overflow is left as it is."""
    return f"#fit[{equation}]" if characters > FITS_ANYWAY else f"\n{equation}\n"


def _sides(latex: str) -> list[str]:
    """LATEX cut at its top-level equals signs (outside braces and brackets); matrices stay whole."""
    if "\\begin" in latex:
        return [latex]
    sides, depth, start = [], 0, 0
    for i, ch in enumerate(latex):
        depth += (ch in "{([") - (ch in "})]")
        if ch == "=" and depth == 0:
            sides.append(latex[start:i])
            start = i + 1
    return [side.strip() for side in sides + [latex[start:]]]


def plain_formula(latex: str) -> str:
    """A formula as the terminal writes it (√dₖ, n²), as typst text: what a paper prints of math
    that could not be typeset. Should even that fail, the LaTeX itself, as text."""
    try:
        return escape(tex_to_unicode(latex))
    except Exception:   # noqa: BLE001 — the last resort must not fail
        return escape(latex)


@functools.lru_cache(maxsize=65536)   # a class's variants share most of their text word for word
def markdown_to_typst(markdown: str, plain_math: bool = False) -> str:
    """Markdown with TeX math as typst markup; PLAIN_MATH sets every formula as the terminal writes it."""
    def math(latex: str, display: bool) -> str:
        if plain_math:
            return plain_formula(latex)
        try:
            return typst_math(latex, display)
        except Exception:   # noqa: BLE001 — any formula the converter cannot take is printed as text
            return plain_formula(latex)

    def typst_math(latex: str, display: bool) -> str:
        if not display:
            return f"${tex_to_typst(latex)}$"
        sides = _sides(latex)
        if len(sides) >= 3 and len(latex) > LONG_EQUATION:
            # a chain of equalities, one step per line, aligned at the equals signs
            body = tex_to_typst(sides[0]) + " " + " \\\n".join("&= " + tex_to_typst(side) for side in sides[1:])
            widest = max(len(sides[0]) + len(side) for side in sides[1:])
        else:
            body, widest = tex_to_typst(latex), len(latex)
        return fitted(f"$ {body} $", widest)

    line = simple_line(markdown, inline=False)
    return simple_typst(line, math) if line is not None else tree_typst(markdown, math)


def simple_typst(line, math) -> str:
    """A simple line (markdown.simple_line) as typst: what `tree_typst` gives, without the tree."""
    mark, span, pieces = line
    text = "".join(escape(piece) if k % 2 == 0 else _formula(piece, math) for k, piece in enumerate(pieces))
    if span is None:
        return text
    emphasis = "*" if mark == "**" else "_"
    return f"{emphasis}{escape(span)}{emphasis}{text}"


def _formula(piece: tuple[str, bool], math) -> str:
    tex, displayed = piece
    # $$…$$ inside a paragraph: displayed, on lines of its own
    return "\n\n" + math(tex.strip(), display=True) + "\n\n" if displayed else math(tex, display=False)


def tree_typst(markdown: str, math) -> str:
    """MARKDOWN's token tree as typst, MATH(latex, display) setting each formula."""
    from markdown_it.tree import SyntaxTreeNode

    # one element a source line, the blank lines between blocks and after the last as written
    return "\n".join(_blocks(SyntaxTreeNode(list(parse(markdown))).children, math, 0, markdown.count("\n") + 1))


def _blocks(nodes, math, at: int, end: int) -> list[str]:
    """Block nodes (paragraphs, headings, lists, tables, code, displayed math) as typst, one
    element a source line: the blank lines between blocks are kept as they are written. AT is
    the source line the first node may start on, END the line its container ends before."""
    lines: list[str] = []
    for node in nodes:
        first, last = node.map
        lines += [""] * (first - at)
        lines += _block(node, math)
        at = last
    return lines + [""] * (end - at)


def _inline_of(node, math) -> str:
    """The inline content of a paragraph, a heading or a table cell."""
    return _inline(node.children[0].token.children if node.children else (), math)


def _block(node, math) -> list[str]:
    kind = node.type
    if kind == "paragraph":
        return [_inline_of(node, math)]
    if kind == "heading":
        return ["=" * int(node.tag[1]) + " " + _inline_of(node, math)]
    if kind == "math_block":
        return ["", "\n" + math(node.content.strip(), display=True) + "\n", ""]
    if kind == "fence":
        # A code listing keeps its lines and spacing: a raw block, never reflowed as prose.
        info = node.info.strip()
        lang = f"lang: {string(info)}, " if info else ""
        return ["", f"\n#raw(block: true, {lang}{string(node.content.rstrip(chr(10)))})\n", ""]
    if kind == "code_block":
        return [f"#raw(block: true, {string(node.content.rstrip(chr(10)))})"]
    if kind == "table":
        rows = [row for part in node.children for row in part.children]
        head = ", ".join(f"[*{_inline_of(cell, math)}*]" for cell in rows[0].children)
        body = ", ".join(f"[{_inline_of(cell, math)}]" for row in rows[1:] for cell in row.children)
        return [f"#table(columns: {len(rows[0].children)}, align: left, table.header({head}), {body})"]
    if kind in ("bullet_list", "ordered_list"):
        lines: list[str] = []
        at = node.map[0]
        for item in node.children:
            lines += [""] * (item.map[0] - at)
            marker = "- " if kind == "bullet_list" else f"{item.info}. "
            inner = "\n".join(_blocks(item.children, math, item.map[0], item.map[1])).split("\n")
            # the item's own lines are indented past its marker, so typst keeps them in the item
            lines.append(marker + inner[0])
            lines += [" " * len(marker) + line if line else line for line in inner[1:]]
            at = item.map[1]
        return lines + [""] * (node.map[1] - at)
    if kind == "blockquote":
        return ["#quote(block: true)[", *_blocks(node.children, math, node.map[0], node.map[1]), "]"]
    if kind == "hr":
        return ["#line(length: 100%)"]
    return [escape(node.content)]   # anything else as it is written


# --- matrices --------------------------------------------------------------------------

def heatmap(step) -> str:
    """A matrix of attention weights as a table of cells shaded by their weight (unnumbered:
    nothing refers to it by number)."""
    rows = step.matrix or ()
    cells = []
    for row in rows:
        for value in row:
            w = entry_value(value) or 0.0   # in [0, 1]: the heatmap rule says so
            cells.append(f'table.cell(fill: blue.transparentize({100 - round(100 * w)}%))[{escape(math_minus(value))}]')
    return (f"#align(center)[_{escape(step.title)}: darker is more weight_ \\\n"
            f"#table(columns: {len(rows[0]) if rows else 1}, align: center, {', '.join(cells)})]")


def math_minus(entry: str) -> str:
    """An entry as math prints it: a minus sign (−), not the hyphen a string would keep."""
    return "−" + entry[1:] if entry.startswith("-") else entry


def matrix_math(step, name: str = "") -> str:
    """A matrix set as a bracketed matrix (a third of a table's typesetting time), NAME = in front."""
    rows = "; ".join(", ".join(string(math_minus(v)) for v in row) for row in step.matrix or ())
    label = f"bold({string(name)}) = " if name else ""
    widest = len(name) + max((sum(len(v) + 2 for v in row) for row in step.matrix or ()), default=0)
    return fitted(f'$ {label}mat(delim: "[", align: #right, {rows}) $', widest)


def typst_matrix(step, name: str = "") -> str:
    """A bank Step's matrix as papers show it: attention weights as a heatmap, any other as a
    bracketed matrix with NAME = in front."""
    return heatmap(step) if is_attention_weights(step) else matrix_math(step, name)
