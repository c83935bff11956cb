"""Answer values as text that the grammar reads back: grouped digits, fixed decimals, short counts."""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

from quizforge.answers.rounding import as_fraction, round_half_away

if TYPE_CHECKING:
    from quizforge.answers.grammar import Number

def _group(digits: str) -> str:
    return f"{int(digits):,}"


# Typed: a float and the Fraction of its binary value are equal but print differently.
@lru_cache(maxsize=65536, typed=True)
def format_number(x: Number, decimals: int | None = None) -> str:
    """An answer value as text that parse_number reads back: integers with thousands
    separators ('1,048,576'); with `decimals`, rounded half away from zero to exactly
    that many places ('0.50'); otherwise short exact decimals ('0.125'), a fraction for
    other exact values ('1/3'), and floats to 12 significant digits."""
    if decimals is not None:
        q = round_half_away(x, decimals)
        sign = "-" if q < 0 else ""
        scaled = abs(q) * 10**decimals
        whole, frac = divmod(int(scaled), 10**decimals)
        return f"{sign}{whole:,}" + (f".{frac:0{decimals}d}" if decimals else "")
    if isinstance(x, float):
        if x.is_integer() and abs(x) < 1e15:
            return f"{int(x):,}"
        text = format(x, ".12g")
        mantissa, e, exp = text.partition("e")
        sign = "-" if mantissa.startswith("-") else ""
        whole, dot, frac = mantissa.lstrip("-").partition(".")
        return f"{sign}{_group(whole)}{dot}{frac}" + (f"e{int(exp)}" if e else "")
    f = Fraction(x)
    if f.denominator == 1:
        return f"{f.numerator:,}"
    d, places = f.denominator, 0
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:
        while (f * 10**places).denominator != 1:
            places += 1
        if places <= 9:
            return format_number(f, places)
    return f"{f.numerator:,}/{f.denominator:,}"


def si_short(x: Number, digits: int = 3) -> str:
    """A count in short form with `digits` significant digits: 1048576 → '1.05M',
    175e9 → '175B', 1500 → '1.5K', 512 → '512' (suffixes K, M, B, T as parse_number reads)."""
    f = as_fraction(x)
    if f == 0:
        return "0"
    sign, a = ("-" if f < 0 else ""), abs(f)
    e = math.floor(math.log10(a.numerator) - math.log10(a.denominator))
    if Fraction(10) ** e > a:          # float log10 slightly off just below a power of ten
        e -= 1
    elif Fraction(10) ** (e + 1) <= a:
        e += 1
    step = Fraction(10) ** (e - digits + 1)
    rounded = math.floor(a / step + Fraction(1, 2)) * step
    for suffix, size in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("K", 10**3), ("", 1)):
        if rounded >= size or size == 1:
            mantissa = rounded / size
            text = format_number(mantissa) if mantissa.denominator != 1 else str(mantissa.numerator)
            return f"{sign}{text}{suffix}"
    raise AssertionError("unreachable")
