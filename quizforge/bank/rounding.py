"""Rounding as the README documents it: half away from zero, on the decimal a person reads."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal


def round_half_away(x: float, places: int) -> float:
    """0.125 -> 0.13 and -0.125 -> -0.13 at 2 places (Python's round() gives 0.12)."""
    return float(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def shown(x: float, places: int) -> str:
    """x to `places` decimals, rounded half away from zero: 0.125 -> '0.13'."""
    return f"{round_half_away(x, places):.{places}f}"


def equals(x: float, places: int) -> str:
    """LaTeX for '= x' when x is exact at `places` decimals, '≈ x' when it was rounded."""
    sign = "=" if round_half_away(x, places) == x else "\\approx"
    return f"{sign} {shown(x, places)}"
