"""Inline LaTeX (the small subset the bank writes) to readable Unicode for terminals.

Prompts and solutions are written once, as Markdown with $…$ math; the Markdown
export keeps the LaTeX and the terminal shows this translation.
"""

from __future__ import annotations

import re

_SUPER = str.maketrans("0123456789+-=()niTk", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱᵀᵏ")
_SUB = str.maketrans("0123456789+-=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ")

_SYMBOLS = {
    r"\times": "×", r"\cdot": "·", r"\le": "≤", r"\ge": "≥", r"\leq": "≤", r"\geq": "≥",
    r"\approx": "≈", r"\neq": "≠", r"\in": "∈", r"\to": "→", r"\rightarrow": "→", r"\infty": "∞",
    r"\top": "ᵀ", r"\sum": "Σ", r"\prod": "Π", r"\alpha": "α", r"\beta": "β", r"\gamma": "γ",
    r"\sigma": "σ", r"\mu": "μ", r"\theta": "θ", r"\epsilon": "ε", r"\lambda": "λ", r"\pi": "π",
    r"\ldots": "…", r"\dots": "…", r"\cdots": "⋯", r"\pm": "±", r"\quad": "  ", r"\qquad": "    ",
    r"\,": " ", r"\;": " ", r"\!": "", r"\{": "{", r"\}": "}", r"\%": "%", r"\log": "log",
    r"\ln": "ln", r"\exp": "exp", r"\sin": "sin", r"\cos": "cos", r"\max": "max", r"\min": "min",
    r"\mid": "|", r"\lfloor": "⌊", r"\rfloor": "⌋", r"\lceil": "⌈", r"\rceil": "⌉",
    r"\propto": "∝", r"\ll": "≪", r"\gg": "≫", r"\sim": "~", r"\left": "", r"\right": "", r"\Rightarrow": "⇒", r"\implies": "⇒", r"\odot": "⊙",
}
_WRAPPERS = ("text", "mathrm", "operatorname", "mathbf", "mathit", "mathcal", "textrm", "boldsymbol", "mathbb")
_BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "E": "𝔼"}


def _group(s: str, i: int) -> tuple[str, int]:
    """The braced group or single token starting at s[i]; returns (content, next index)."""
    if i < len(s) and s[i] == "{":
        depth, j = 0, i
        while j < len(s):
            if s[j] == "{":
                depth += 1
            elif s[j] == "}":
                depth -= 1
                if depth == 0:
                    return s[i + 1 : j], j + 1
            j += 1
        return s[i + 1 :], len(s)
    if i < len(s) and s[i] == "\\":
        m = re.match(r"\\[A-Za-z]+|\\.", s[i:])
        return (m.group(0), i + len(m.group(0))) if m else ("", i + 1)
    return (s[i], i + 1) if i < len(s) else ("", i)


def _script(text: str, table: dict, marker: str) -> str:
    plain = latex_to_unicode(text)
    if plain and all(ch in table for ch in map(ord, plain)):
        return plain.translate(table)
    return f"{marker}({plain})" if len(plain) > 1 else f"{marker}{plain}"


def latex_to_unicode(s: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(s):
        ch = s[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", s[i:])
            name = m.group(0) if m else "\\"
            word = m.group(1) if m else ""
            i += len(name)
            if word == "sqrt":
                inner, i = _group(s, i)
                inner = latex_to_unicode(inner)
                out.append("√" + (inner if re.fullmatch(r"\w+", inner) else f"({inner})"))
            elif word in ("frac", "dfrac", "tfrac"):
                num, i = _group(s, i)
                den, i = _group(s, i)
                num, den = latex_to_unicode(num), latex_to_unicode(den)
                wrap = lambda t: t if re.fullmatch(r"[\w.√ᵀ⁰¹²³⁴⁵⁶⁷⁸⁹]+", t) else f"({t})"  # noqa: E731
                out.append(f"{wrap(num)}/{wrap(den)}")
            elif word in _WRAPPERS:
                inner, i = _group(s, i)
                out.append(_BLACKBOARD.get(inner, inner) if word == "mathbb" else latex_to_unicode(inner))
            elif name in _SYMBOLS:
                out.append(_SYMBOLS[name])
            else:
                out.append(word)
        elif ch == "^":
            inner, i = _group(s, i + 1)
            out.append("ᵀ" if inner in (r"\top", "T") else _script(inner, _SUPER, "^"))
        elif ch == "_":
            inner, i = _group(s, i + 1)
            plain = latex_to_unicode(inner)
            # Multi-letter names (d_model, d_ff) read better left as they are; an index with an
            # operator (t-1) must read as one subscript, not as h_t minus 1.
            operator = any(op in plain for op in "+-=")
            out.append(_script(inner, _SUB, "_") if (len(plain) == 1 and plain.isdigit()) or operator
                       else "_" + plain)
        elif ch in "{}":
            i += 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


_MATH = re.compile(r"\$\$(.+?)\$\$|\$(.+?)\$", re.DOTALL)


def markdown_to_terminal(md: str) -> str:
    """Replace every $…$ / $$…$$ span of a Markdown string with its Unicode rendering."""
    return _MATH.sub(lambda m: latex_to_unicode(m.group(1) or m.group(2)), md)


def markdown_to_plain(text: str) -> str:
    """Markdown-with-math as plain text for data consumers: math as Unicode, and no bold (**)
    or code (`) markers left in."""
    return markdown_to_terminal(text).replace("**", "").replace("`", "")
