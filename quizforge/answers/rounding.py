"""Rounding as the README documents it: half away from zero, on the decimal a person reads.

The one rounding rule of the project: keys, ranges and every printed value come through here."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quizforge.answers.grammar import Number

def as_fraction(x: Number) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x)


_WIDE = Context(prec=80)   # every value within ±1e30 to 12 places fits


def round_half_away(x: Number, decimals: int) -> Fraction:
    """x rounded to `decimals` places, halves away from zero: 0.125 → 0.13, -0.125 → -0.13.

    The one rounding rule of the bank: keys, ranges and printed values all come through here.
    A float is rounded as its shortest decimal form reads (2.675 → 2.68, as a person would),
    not as its binary value (2.67499999…); exact values are rounded exactly."""
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"cannot round {x}")
        q = Decimal(repr(x)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP,
                                          context=_WIDE)
        return Fraction(q)
    f = as_fraction(x)
    scaled = abs(f) * 10**decimals
    r = math.floor(scaled + Fraction(1, 2))
    return Fraction(r if f >= 0 else -r, 10**decimals)


def rounded(x: Number, decimals: int) -> float:
    """round_half_away as a float, for keys stored as floats (round() would round half to even)."""
    return float(round_half_away(x, decimals))


def shown(x: float, places: int) -> str:
    """x to `places` decimals, rounded half away from zero: 0.125 -> '0.13'."""
    return f"{rounded(x, places):.{places}f}"


def equals(x: float, places: int) -> str:
    """LaTeX for '= x' when x is exact at `places` decimals, '≈ x' when it was rounded."""
    sign = "=" if rounded(x, places) == x else "\\approx"
    return f"{sign} {shown(x, places)}"
