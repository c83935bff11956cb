"""Building blocks for worked solutions and option text, shared by the templates."""

from __future__ import annotations

import math
import re
from functools import lru_cache
from typing import Any, Sequence

from quizforge.bank.question import Step


def integer(x: Any) -> str:
    """1050624 -> '1,050,624'."""
    return f"{int(x):,}"


def math_number(printed: str) -> str:
    """A number as printed ('1,050,624.5') as it goes into math: its thousands commas braced,
    1{,}050{,}624.5, which LaTeX and MathJax set as one number (a bare comma in math is
    punctuation, spaced: "1, 050, 624"), typst as one string and the terminal as 1,050,624.5.
    The one way a number with separators is written in math, whatever the medium."""
    return _GROUPED.sub(lambda m: m.group(0).replace(",", "{,}"), printed)


_GROUPED = re.compile(r"(?<![\d.{])\d{1,3}(?:,\d{3})+(?![\d}])")


def math_numbers(markdown: str) -> str:
    """Markdown with every number inside its $…$ and $$…$$ math written by `math_number`; the
    formulas are the token tree's (`text.markdown`), as every medium reads them."""
    # Most texts have no grouped number at all, and then nothing to parse for (a class's set
    # generates 6,000 questions).
    if "$" not in markdown or not _GROUPED.search(markdown):
        return markdown
    from quizforge.text.markdown import math_tokens

    out, at = [], 0
    for start, end, _ in math_tokens(markdown):
        if start >= at:
            out += [markdown[at:start], math_number(markdown[start:end])]
            at = end
    return "".join(out) + markdown[at:]


def tex_int(x: Any) -> str:
    """An integer with thousands separators that LaTeX does not space out: 1{,}050{,}624."""
    return math_number(f"{int(x):,}")


def tex_fixed(x: Any, places: int) -> str:
    """`fixed` for math: 49{,}152.00."""
    return math_number(fixed(x, places))


def fixed(x: Any, places: int) -> str:
    """x to `places` decimals, halves away from zero (the bank's one rounding rule): 0.125 -> '0.13'."""
    from quizforge.answers import format_number

    return format_number(x, places)


def decimal(places: int):
    """A formatter that rounds to a fixed number of decimal places, halves away from zero."""
    def fmt(x: Any) -> str:
        return fixed(x, places)
    return fmt


def rounded(x: Any, places: int) -> float:
    """A key stored rounded to `places` decimals, halves away from zero (never Python's round())."""
    from quizforge.answers import rounded as round_away

    return round_away(x, places)


def equals_sign(value: Any, places: int) -> str:
    """'=' before a value printed to `places` decimals when that is exact, LaTeX '\\approx' when rounded."""
    return "=" if rounded(value, places) == value else "\\approx"


def plural(count: int, noun: str) -> str:
    """The noun for `count` of it: plural(1, 'sequence') == 'sequence', plural(4, ...) == 'sequences'."""
    return noun if count == 1 else noun + "s"


def places_to_separate(value: Any, rel: float, minimum: int) -> int:
    """Decimal places (at least `minimum`) fine enough that an answer `rel` away from `value`
    falls outside the GATE range c ± 10^-N: the step is at most a third of the gap."""
    gap = abs(float(value)) * rel
    places = minimum
    while places < 12 and 10.0 ** -places > gap / 3:
        places += 1
    return places


def sci(x: Any, digits: int = 3) -> str:
    """LaTeX for x in scientific notation: 3.15 \\times 10^{23} (integers below 10^6 stay as they are)."""
    x = float(x)
    if x.is_integer() and abs(x) < 1e6:
        return tex_int(x)
    exponent, mantissa = _mantissa(x, digits)
    return f"{mantissa} \\times 10^{{{exponent}}}"


def _mantissa(x: float, digits: int) -> tuple[int, str]:
    """x = mantissa × 10^exponent, the mantissa to `digits` significant figures, halves away from zero."""
    from decimal import Decimal

    exponent = math.floor(math.log10(abs(x))) if x else 0
    mantissa = fixed(Decimal(repr(x)).scaleb(-exponent), digits - 1)      # shifted exactly, not divided
    if mantissa.lstrip("-").startswith("10"):          # 9.996 → 10.0: carry into the exponent
        exponent += 1
        mantissa = fixed(Decimal(repr(x)).scaleb(-exponent), digits - 1)
    return exponent, (mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa)


def sci_result(x: Any, digits: int = 3) -> str:
    """'= 3.15 \\times 10^{23}' when that is x exactly, '\\approx 1.09 \\times 10^{22}' when it is rounded."""
    x = float(x)
    shown = sci(x, digits)
    if x.is_integer() and abs(x) < 1e6:
        return f"= {shown}"
    exponent, mantissa = _mantissa(x, digits)
    exact = float(mantissa) * 10.0**exponent == x or abs(float(mantissa) * 10.0**exponent - x) <= 1e-12 * abs(x)
    sign = "=" if exact else "\\approx"
    return f"{sign} {shown}"


def scientific(x: Any, digits: int = 3) -> str:
    """3.15e+23 -> '$3.15 \\times 10^{23}$' (Markdown math)."""
    return f"${sci(x, digits)}$"


def shape(dims: Sequence[Any]) -> str:
    return "$(" + ", ".join(str(d) for d in dims) + ")$"


@lru_cache(maxsize=1024)
def _renderings(expr) -> tuple[str, str, str, str, tuple]:
    """LaTeX and Unicode of a closed form, symbolic and with a placeholder per symbol.

    sympy's printers cost milliseconds; a template's expressions repeat across seeds,
    so each is printed once and later questions only substitute their numbers.
    """
    import sympy as sp

    from quizforge.accounting.formulas import format_expr, format_substituted

    symbols = sorted(expr.free_symbols, key=lambda sym: sym.name)
    marks = {sym: f"\u27e8{i}\u27e9" for i, sym in enumerate(symbols)}
    return (sp.latex(expr, mul_symbol="dot"), sp.latex(expr, mul_symbol="dot", symbol_names=marks),
            format_expr(expr), format_substituted(expr, marks), tuple(marks.items()))


def closed_form(title: str, expr, values: dict, result: Any, *, unit: str = "", lhs: str = "") -> Step:
    """The formula, then the numbers substituted, then the value: from one sympy expression."""
    latex, latex_marked, text, text_marked, marks = _renderings(expr)
    for sym, mark in marks:
        latex_marked = latex_marked.replace(mark, str(values[sym]))
        text_marked = text_marked.replace(mark, str(values[sym]))
    shown = result if isinstance(result, str) else f"{result:,}"
    left = f"{lhs} = " if lhs else ""
    tail = f" {unit}" if unit else ""
    md = f"$${left}{latex} = {latex_marked} = {shown.replace(',', '{,}')}{tail}$$"
    return Step(title, md, f"{left}{text}\n  = {text_marked}\n  = {shown}{tail}")


def matrix(title: str, rows: Sequence[Sequence[Any]], fmt=str, *, row_labels: Sequence[str] = (),
           col_labels: Sequence[str] = (), md: str = "") -> Step:
    return Step(title, md, None, tuple(tuple(fmt(x) for x in row) for row in rows),
                tuple(row_labels), tuple(col_labels))
