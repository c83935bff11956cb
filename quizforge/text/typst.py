"""Markdown with TeX math as typst markup and typst math, for papers and keys.

Math goes through the one command table (`tex`): fractions, roots, bold and calligraphic
letters, operators, matrices, 50{,}257 as the one number "50,257". A formula the table cannot
take (a command it lacks, unbalanced braces) is printed as plain text, as the terminal writes it.
"""

from __future__ import annotations

import functools
import re

from quizforge.text.markdown import INLINE_MATH
from quizforge.text.matrix import entry_value, is_attention_weights
from quizforge.text.terminal import markdown_to_terminal
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

# typst markup's special characters, each put behind a backslash (in one C call: a regex
# substitution with a template costs a Python call per character escaped)
_ESCAPED = str.maketrans({c: "\\" + c for c in "\\#*_`<>@[]~/$=+-"})


def escape(text: str) -> str:
    return text.translate(_ESCAPED)


def string(text: str) -> str:
    """A typst string literal holding TEXT exactly."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


_INLINE = re.compile("(" + INLINE_MATH + r"|\*\*[^*]+\*\*|\*[^*]+\*|`[^`]+`)")   # math, bold, italics, code


def _inline(text: str, math) -> str:
    """A line of the bank's Markdown (bold, italics, code, $math$) as typst markup."""
    out = []
    for token in _INLINE.split(text):
        if not token:
            continue
        if token.startswith("$"):
            out.append(math(token[1:-1], display=False))
        elif token.startswith("**"):
            out.append(f"*{_inline(token[2:-2], math)}*")
        elif token.startswith("*"):
            out.append(f"_{_inline(token[1:-1], math)}_")
        elif token.startswith("`"):
            out.append(f"#raw({string(token[1:-1])})")
        elif out and out[-1].startswith("#") and token[0] in ";(.":
            # after "#raw(…)" typst would take ";" as the end of the call, "(" and "." as more of it
            out.append("\\" + token[0] + escape(token[1:]))
        else:
            out.append(escape(token))
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
        return escape(markdown_to_terminal(f"${latex}$"))
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

    lines = []
    for block in re.split(r"(^```[^\n]*\n.*?^```[ \t]*$|\$\$.+?\$\$)", markdown, flags=re.S | re.M):
        if block.startswith("```"):
            # A code listing keeps its lines and spacing: a raw block, never reflowed as prose.
            info, _, code = block[3:].partition("\n")
            code = code.rstrip()[:-3].rstrip("\n")
            lang = f"lang: {string(info.strip())}, " if info.strip() else ""
            lines.append(f"\n#raw(block: true, {lang}{string(code)})\n")
            continue
        if block.startswith("$$"):
            lines.append("\n" + math(block[2:-2].strip(), display=True) + "\n")
            continue
        lines += _blocks(block.split("\n"), math)
    return "\n".join(lines)


_TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _blocks(source: list[str], math) -> list[str]:
    """Lines of Markdown prose (no fenced code, no displayed math) as typst: headings, lists,
    pipe tables, indented code, and paragraphs."""
    lines: list[str] = []
    i = 0
    while i < len(source):
        line = source[i]
        after_blank = i == 0 or not source[i - 1].strip()
        in_list = any(re.match(r"\s*(- |\d+\. )", earlier) for earlier in source[max(0, i - 2):i])
        if line.startswith("|") and i + 1 < len(source) and _TABLE_RULE.match(source[i + 1]):
            rows = [_cells(line)]
            i += 2
            while i < len(source) and source[i].startswith("|"):
                rows.append(_cells(source[i]))
                i += 1
            head = ", ".join(f"[*{_inline(cell, math)}*]" for cell in rows[0])
            body = ", ".join(f"[{_inline(cell, math)}]" for row in rows[1:] for cell in row)
            lines.append(f"#table(columns: {len(rows[0])}, align: left, table.header({head}), {body})")
            continue
        if line.startswith("    ") and after_blank and not in_list:
            code = []
            while i < len(source) and (source[i].startswith("    ") or not source[i].strip()):
                code.append(source[i][4:])
                i += 1
            while code and not code[-1].strip():
                code.pop()
                i -= 1
            lines.append(f"#raw(block: true, {string(chr(10).join(code))})")
            continue
        heading = re.match(r"(#+) (.*)", line)
        item = re.match(r"(\s*)- (.*)", line)
        numbered = re.match(r"(\s*)(\d+)\. (.*)", line)
        if heading:
            lines.append("=" * len(heading.group(1)) + " " + _inline(heading.group(2), math))
        elif item:
            lines.append(f"{item.group(1)}- {_inline(item.group(2), math)}")
        elif numbered:
            lines.append(f"{numbered.group(1)}{numbered.group(2)}. {_inline(numbered.group(3), math)}")
        else:
            lines.append(_inline(line, math))
        i += 1
    return lines


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
