"""NAT keys: what an answer must be to be accepted, and checking a typed answer against one.

NAT ranges (`nat_range`), the GATE rule used here: the key v is rounded half away from
zero to N decimals, c = round(v, N); for N ≥ 1 an answer x is accepted iff
c − 10^−N ≤ x ≤ c + 10^−N (inclusive, compared exactly; x itself is not rounded and
needs no particular number of decimals: 0.5 is fine for 0.50). For N = 0 (an integer
answer) only x = c is accepted, as GATE publishes such keys as "c to c". Example:
key 0.5, N = 2 → [0.49, 0.51]; key 1/3, N = 2 → [0.32, 0.34].
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from decimal import Decimal
from fractions import Fraction
from functools import cached_property, lru_cache
from typing import Iterable, Mapping

from quizforge.answers.display import format_number
from quizforge.answers.grammar import AnswerError, Number, parse_number, quoted
from quizforge.answers.rounding import as_fraction, round_half_away
from quizforge.answers.units import COUNT_WORDS, FLOP_MULTIPLIERS, count_unit, flop_unit, unit_family, without_count_noun

FLOAT_RTOL = 1e-12                 # exact keys vs values that went through floats
MODES = ("exact", "abs", "rel", "range")

def key_number(x: object, name: str) -> Number:
    if isinstance(x, bool) or not isinstance(x, (int, Fraction, float, Decimal)):
        raise TypeError(f"{name} must be an int, Fraction, Decimal or float, not {type(x).__name__}")
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, not {x}")
        return x
    return Fraction(x)


@dataclass(frozen=True)
class NumericKey:
    """The key of a NAT question and how close an answer must be.

    mode "exact": x == value (when x or value is a float, within FLOAT_RTOL relatively);
    "abs": |x − value| ≤ tol; "rel": |x − value| ≤ tol·|value|; "range": low ≤ x ≤ high
    (nat_range builds one from `decimals`). `unit`, `allow_percent` and `scale` say how
    to read the learner's text (see parse_number); the key is in units of `scale`."""

    value: Number
    mode: str = "exact"
    tol: Number = Fraction(0)
    low: Number | None = None
    high: Number | None = None
    decimals: int | None = None
    unit: str | None = None
    allow_percent: bool = False
    scale: Fraction = Fraction(1)
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "value", key_number(self.value, "value"))
        set_(self, "tol", key_number(self.tol, "tol"))
        set_(self, "unit", unit_family(self.unit))
        set_(self, "scale", Fraction(key_number(self.scale, "scale")))
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if self.tol < 0 or self.scale <= 0:
            raise ValueError("tol must be ≥ 0 and scale > 0")
        if self.decimals is not None and not (isinstance(self.decimals, int) and 0 <= self.decimals <= 12):
            raise ValueError(f"decimals must be an int in 0..12, not {self.decimals!r}")
        if self.mode == "range":
            if self.low is None or self.high is None:
                raise ValueError("a 'range' key needs low and high")
            set_(self, "low", key_number(self.low, "low"))
            set_(self, "high", key_number(self.high, "high"))
            if as_fraction(self.low) > as_fraction(self.high):  # type: ignore[arg-type]
                raise ValueError(f"low {self.low} > high {self.high}")

    def interval(self) -> tuple[Fraction, Fraction]:
        """The accepted closed interval [low, high], exactly: the values of the two ends that
        range_text prints, so a printed end is always accepted and nothing beyond it is."""
        (low, _), (high, _) = self._printed_ends
        return low, high

    @cached_property
    def _printed_ends(self) -> tuple[tuple[Fraction, str], tuple[Fraction, str]]:
        """Each end of the range as (exact value, decimal text): one computation serves both
        what is printed and what is accepted (see printed_range_ends)."""
        return printed_range_ends(self.value, self.mode, self.tol, self.low, self.high, self.decimals)

    def accepts(self, x: Number) -> bool:
        """Whether the (parsed) value x is a correct answer."""
        if isinstance(x, bool) or not isinstance(x, (int, Fraction, float, Decimal)):
            raise TypeError(f"expected a number, not {type(x).__name__}")
        if isinstance(x, float) and not math.isfinite(x):
            return False
        fx = as_fraction(x)
        low, high = self.interval()
        if low <= fx <= high:
            return True
        if self.mode == "exact":
            if fx == self._exact_printed_value:
                return True
            if isinstance(x, float) or isinstance(self.value, float):
                v = as_fraction(self.value)
                return abs(fx - v) <= Fraction(FLOAT_RTOL) * max(abs(fx), abs(v))
        return False

    @cached_property
    def _exact_printed_value(self) -> Fraction:
        """An exact key's value as printed and read back: what it says is accepted, is."""
        return as_fraction(parse_number(self._exact_text()))

    def with_value(self, other: Number) -> NumericKey:
        """The same kind of key centred on `other` (a misconception's value)."""
        if self.mode != "range":
            return replace(self, value=other)
        if self.decimals is not None:
            return nat_range(other, self.decimals, unit=self.unit, allow_percent=self.allow_percent,
                             scale=self.scale)
        shift = as_fraction(key_number(other, "other")) - as_fraction(self.value)
        low, high = self.interval()
        return replace(self, value=other, low=low + shift, high=high + shift)

    def matches(self, x: Number, other: Number) -> bool:
        """Whether x would be accepted if `other` were the key (same tolerance)."""
        return self.with_value(other).accepts(x)

    def all_matches(self, x: Number,
                    alternatives: Mapping[str, Number] | Iterable[tuple[str, Number]]) -> tuple[str, ...]:
        """The labels of every alternative value x matches, in order (two wrong formulas can agree)."""
        items = alternatives.items() if isinstance(alternatives, Mapping) else alternatives
        return tuple(label for label, other in items if other is not None and self.matches(x, other))

    def parse(self, text: str) -> Number:
        """Read a learner's text the way this key expects (unit family, percent, scale)."""
        return parse_number(text, self.unit, allow_percent=self.allow_percent, scale=self.scale, names=self.names)

    def range_text(self) -> str:
        """The accepted values as GATE prints them: '0.49 to 0.51', or the exact value."""
        (low, low_text), (high, high_text) = self._printed_ends
        if self.mode == "exact":
            return self._exact_text()
        return low_text if low == high else f"{low_text} to {high_text}"

    def printed_ends(self) -> tuple[str, str]:
        """The two ends as printed ('1.0395e24', '1.0605e24'; an exact key twice): each is
        accepted, exactly, and nothing outside them is (an exact float key: within FLOAT_RTOL)."""
        if self.mode == "exact":
            return self._exact_text(), self._exact_text()
        (_, low_text), (_, high_text) = self._printed_ends
        return low_text, high_text

    def _exact_text(self) -> str:
        """An exact key as printed: its value (a float to 12 significant digits)."""
        if self.decimals is not None:
            return format_number(self.value, self.decimals)
        return format_number(self.value)


def _as_decimal(x: Number) -> Fraction:
    """x exactly, a float read as its shortest decimal form (0.01 is 1/100)."""
    return Fraction(repr(x)) if isinstance(x, float) else Fraction(x)


# Typed, so that a float and the Fraction of its binary value (equal, and equally hashed) stay
# apart: a float end is read as its shortest decimal, a Fraction exactly. Options, redraws and
# misconception checks build keys for the same few values over and over.
@lru_cache(maxsize=65536, typed=True)
def printed_range_ends(value: Number, mode: str, tol: Number, low: Number | None, high: Number | None,
                       decimals: int | None) -> tuple[tuple[Fraction, str], tuple[Fraction, str]]:
    """Each end of a key's range as (exact value, decimal text). A float is read as its
    shortest decimal (1.05e24 is 1.05e24, not the binary value just below it); an end that is
    no short decimal is rounded outward by less than a hundredth of the range's width, so
    nothing inside the stated tolerance is refused."""
    v = _as_decimal(value)
    if mode == "exact":
        return (v, ""), (v, "")
    if mode == "abs":
        low, high = v - _as_decimal(tol), v + _as_decimal(tol)
    elif mode == "rel":
        d = _as_decimal(tol) * abs(v)
        low, high = v - d, v + d
    else:
        low, high = _as_decimal(low), _as_decimal(high)  # type: ignore[arg-type]
    if decimals is not None:
        unit_step = Fraction(1, 10**decimals)
        low, high = math.floor(low / unit_step) * unit_step, math.ceil(high / unit_step) * unit_step
        return (low, format_number(low, decimals)), (high, format_number(high, decimals))
    if low == high:   # a zero tolerance: the value itself, as a fraction if it is no short decimal
        text = _end_text(low) if _short_decimal(low) else format_number(low)
        return (low, text), (high, text)
    step = Fraction(10) ** _floor_log10((high - low) / 100)
    if not _short_decimal(low):
        low = math.floor(low / step) * step
    if not _short_decimal(high):
        high = math.ceil(high / step) * step
    return (low, _end_text(low)), (high, _end_text(high))


def _floor_log10(x: Fraction) -> int:
    """The largest k with 10**k <= x (x > 0), exactly."""
    k = math.floor(math.log10(x.numerator) - math.log10(x.denominator))
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


_MAX_DIGITS = 15   # an end with more significant digits than this is rounded for print


def _short_decimal(x: Fraction) -> bool:
    """Whether x is a terminating decimal of at most _MAX_DIGITS significant digits."""
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return False
    places = 0
    while (x * 10**places).denominator != 1:
        places += 1
    digits = str(abs((x * 10**places).numerator)).rstrip("0")
    return len(digits) <= _MAX_DIGITS


def _end_text(x: Fraction) -> str:
    """A terminating decimal as text that parse_number reads back to exactly x: '990,000',
    '0.4851', and e-notation for very large or small values ('3.1185e23')."""
    if x.denominator == 1 and abs(x) < 10**15:
        return format_number(x)
    if x != 0 and 10**-4 <= abs(x) < 10**15 and (x * 10**9).denominator == 1:
        return format_number(x)
    places = 0
    while (x * 10**places).denominator != 1:
        places += 1
    sign = "-" if x < 0 else ""
    digits = str(abs((x * 10**places).numerator))
    exponent = len(digits) - 1 - places
    mantissa = digits.rstrip("0") or "0"
    text = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{sign}{text}e{exponent}"


def exact(value: Number, *, unit: str | None = None, allow_percent: bool = False,
          scale: int | Fraction = 1) -> NumericKey:
    """A key accepting exactly `value`."""
    return NumericKey(value, "exact", unit=unit, allow_percent=allow_percent, scale=scale)


def within_abs(value: Number, tol: Number, *, unit: str | None = None, allow_percent: bool = False,
               scale: int | Fraction = 1) -> NumericKey:
    """A key accepting |x − value| ≤ tol."""
    return NumericKey(value, "abs", tol=tol, unit=unit, allow_percent=allow_percent, scale=scale)


def within_rel(value: Number, rtol: Number, *, unit: str | None = None, allow_percent: bool = False,
               scale: int | Fraction = 1) -> NumericKey:
    """A key accepting |x − value| ≤ rtol·|value| (only 0 when value is 0)."""
    return NumericKey(value, "rel", tol=rtol, unit=unit, allow_percent=allow_percent, scale=scale)


def in_range(low: Number, high: Number, *, value: Number | None = None, unit: str | None = None,
             allow_percent: bool = False, scale: int | Fraction = 1) -> NumericKey:
    """A key accepting low ≤ x ≤ high (a range as published); value defaults to the midpoint."""
    if value is None:
        value = (as_fraction(key_number(low, "low")) + as_fraction(key_number(high, "high"))) / 2
    return NumericKey(value, "range", low=low, high=high, unit=unit, allow_percent=allow_percent, scale=scale)


def nat_range(value: Number, decimals: int, *, unit: str | None = None, allow_percent: bool = False,
              scale: int | Fraction = 1) -> NumericKey:
    """A GATE NAT key "correct to `decimals` places": c = value rounded half away from zero;
    accepts c − 10^−N ≤ x ≤ c + 10^−N for N ≥ 1, and only x = c for N = 0."""
    if not isinstance(decimals, int) or isinstance(decimals, bool) or not 0 <= decimals <= 12:
        raise ValueError(f"decimals must be an int in 0..12, not {decimals!r}")
    c = round_half_away(key_number(value, "value"), decimals)
    unit_step = Fraction(1, 10**decimals) if decimals >= 1 else Fraction(0)
    return NumericKey(value, "range", low=c - unit_step, high=c + unit_step, decimals=decimals, unit=unit,
                      allow_percent=allow_percent, scale=scale)


# ---- checking -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Checked:
    """A read and checked answer. `value`: the parsed number (Fraction/float), option
    indices (frozenset[int]) or matrix (tuple of row tuples); `matched`: for a wrong
    answer, the label of the first alternative (misconception) it equals, else None."""

    value: object
    correct: bool
    matched: str | None = None
    also: tuple[str, ...] = ()     # further alternatives the wrong answer equals just as well
    raw_count: bool = False        # a bare count of ones, read in the question's unit (25,224,192 → 25.2 million)


def check_numeric(key: NumericKey, text: str,
                  alternatives: Mapping[str, Number] | Iterable[tuple[str, Number]] | None = None) -> Checked:
    """Parse text as key expects and check it; a wrong answer is compared with the
    alternatives under the key's tolerance. Raises AnswerError when text is unreadable."""
    value = key.parse(text)
    correct = key.accepts(value)
    raw = None if correct else _as_raw_count(key, text, value)
    if raw is not None:
        value, correct = raw, key.accepts(raw)
    found = () if correct or alternatives is None else key.all_matches(value, alternatives)
    if not correct and not found:     # a short form that is a modelled mistake is diagnosed, not refused
        _refuse_if_too_coarse(key, text, value)
    return Checked(value, correct, found[0] if found else None, found[1:], raw is not None)


def _as_raw_count(key: NumericKey, text: str, value: Number) -> Number | None:
    """A bare number at least one whole unit's worth of ones, in a question that asks for a count
    in millions or billions: the count itself (1.746e11 in billions is 174.6), else None."""
    if key.unit != "count" or key.scale <= 1 or abs(value) < key.scale:
        return None
    try:
        parse_number(without_count_noun(text))     # no unit word in it: a plain number (of parameters)
    except AnswerError:
        return None
    return value / key.scale if isinstance(value, Fraction) else value / float(key.scale)


# A number written short: digits, then a power of ten (6.55e6, 6.55×10^6) and/or a scale word
# (6.55M, 6.55 million, 1.2 PFLOPs). Its last written digit says how precise it claims to be.
_SHORT_FORM = re.compile(
    r"\s*[+]?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d*))?"
    r"(?:[eE](?P<exp>[+-]?\d+)|\s*[x×*]\s*10\s*(?:\^|\*\*)\s*(?P<pow>[+-]?\d+))?"
    r"\s*(?P<word>[A-Za-z]+)?(?:\s*(?:FLOPs?|FLOPS|flops?))?\s*")


def _suffix_multiplier(key: NumericKey, word: str) -> int | None:
    if key.unit == "count":
        return count_unit(word)
    if key.unit == "flops":
        found = flop_unit(word)
        return found if found is not None else (FLOP_MULTIPLIERS.get(word) or COUNT_WORDS.get(word.lower()))
    return None


def _refuse_if_too_coarse(key: NumericKey, text: str, value: Number) -> None:
    """A count written short ('1.05M', '1.05e6', '1.05 million') whose last digit written is
    worth more than the whole accepted range is too coarse to be judged: say so instead of
    marking it wrong. One rule for every short form; digits written out in full ('1050000')
    claim every digit and are always judged. The rule looks only at the range's width, never
    at the key, so in a mock it reveals nothing."""
    if key.unit not in ("count", "flops") or key.decimals is not None:
        return      # a question that states its decimal places judges every writing by its value
    m = _SHORT_FORM.fullmatch(text)
    if m is None:
        return
    multiplier = _suffix_multiplier(key, m["word"]) if m["word"] else 1
    power = m["exp"] or m["pow"]
    if multiplier is None or (multiplier <= 1 and power is None):
        return
    whole, places = m["int"].replace(",", ""), len(m["frac"] or "")
    step = Fraction(multiplier) * Fraction(10) ** (int(power or 0) - places) / key.scale   # one unit in the last digit
    low, high = key.interval()
    if step <= high - low or step * key.scale <= 1:   # precise to one: as precise as a count gets
        return
    digits = len((whole + (m["frac"] or "")).lstrip("0")) or 1
    need = {"exact": "the exact value", "rel": f"an answer within {float(key.tol):.1%}"}.get(
        key.mode, "more precision than that")
    raise AnswerError(
        f"{quoted(text.strip())} gives only {digits} significant figure{'s' if digits != 1 else ''}; "
        f"this question needs {need}: write more digits"
    )
