"""Markdown with TeX math as readable Unicode for terminals ($QK^\\top/\\sqrt{d_k}$ → QKᵀ/√dₖ).

A terminal shows Markdown as it is written, so only the math is translated: the token tree's
math tokens, replaced where they stand in the text (`markdown.math_spans`); `plain` also drops
the bold and code markers, for data read outside a terminal.
"""

from __future__ import annotations

import re

from quizforge.text.markdown import math_spans
from quizforge.text.tex import BLACKBOARD, COMMANDS, QUAD, Reader, Untranslatable

_SUPER = str.maketrans("0123456789+-=()niTk", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀᵏ")
_SUB = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")


def _script(text: str, table: dict, marker: str) -> str:
    plain = tex_to_unicode(text)
    if plain and all(ch in table for ch in map(ord, plain)):
        return plain.translate(table)
    return f"{marker}({plain})" if len(plain) > 1 else f"{marker}{plain}"


def _command(r: Reader, word: str, out: list[str]) -> None:
    command = COMMANDS.get(word)
    kind = command.kind if command else ""
    if kind == "sqrt":
        inner = tex_to_unicode(r.group())
        out.append("√" + (inner if re.fullmatch(r"\w+", inner) else f"({inner})"))
    elif kind == "frac":
        num, den = tex_to_unicode(r.group()), tex_to_unicode(r.group())
        wrap = lambda t: t if re.fullmatch(r"[\w.√ᵀ⁰¹²³⁴⁵⁶⁷⁸⁹]+", t) else f"({t})"  # noqa: E731
        out.append(f"{wrap(num)}/{wrap(den)}")
    elif kind == "accent":
        inner = tex_to_unicode(r.group())
        out.append(inner + command.terminal if len(inner) == 1 else f"{word}({inner})")
    elif kind in ("font", "text", "operator"):
        inner = r.group()
        out.append(BLACKBOARD.get(inner, inner) if word == "mathbb" else tex_to_unicode(inner))
    elif kind == "space":
        # one space between two words, none beside a space already there: 'ωᵢ pos', not 'ωᵢ  pos'
        if out and not out[-1].endswith(" ") and not r.done() and r.peek() != " ":
            out.append(" ")
    elif kind == "environment":
        name = r.group()
        try:
            rows, (left, right) = r.environment(name)
        except Untranslatable:
            out.append(f"{word}{name}")
            return
        out.append(left + "; ".join(", ".join(tex_to_unicode(cell) for cell in row) for row in rows) + right)
    elif kind == "symbol":
        out.append(command.terminal)
    else:
        out.append(word)   # a command nobody knows: its name reads better than its backslash


def tex_to_unicode(latex: str) -> str:
    """TeX math as Unicode text; never fails (an unknown command is written as its name)."""
    r = Reader(latex, strict=False)
    out: list[str] = []
    while not r.done():
        ch = r.peek()
        if ch == "\\":
            _command(r, r.command(), out)
        elif ch == "^":
            r.i += 1
            inner = r.group()
            out.append("ᵀ" if inner in (r"\top", "T") else _script(inner, _SUPER, "^"))
        elif ch == "_":
            r.i += 1
            plain = tex_to_unicode(r.group())
            # Digits and single letters as subscripts (a₄₂, ωᵢ, dₖ), and an index with an operator
            # (hₜ₋₁ must not read as h_t minus 1); multi-letter names (d_model, d_ff) read better
            # left as they are.
            operator = any(op in plain for op in "+-=")
            subscript = plain.isdigit() or (len(plain) == 1 and plain.isalpha()) or operator
            if subscript and all(ord(c) in _SUB for c in plain):
                out.append(plain.translate(_SUB))
            else:
                out.append(f"_({plain})" if operator else "_" + plain)
        elif ch in "{}":
            r.i += 1
        else:
            out.append(ch)
            r.i += 1
    # TeX ignores spaces in math; only \quad's are meant ('Σ_k allowed', not 'Σ_k  allowed').
    return re.sub(" {2,}", " ", "".join(out)).replace(QUAD, " ")


def markdown_to_terminal(md: str) -> str:
    """Replace every $…$ / $$…$$ formula of a Markdown string with its Unicode rendering; the rest
    stays as it is written (math in code is code)."""
    return "".join(tex_to_unicode(piece) if is_math else piece for piece, is_math, _ in math_spans(md))


def markdown_to_plain(text: str) -> str:
    """Markdown-with-math as plain text for data consumers: math as Unicode, and no bold (**)
    or code (`) markers left in."""
    return markdown_to_terminal(text).replace("**", "").replace("`", "")
