"""A question's key as the answer checkers hold it: the NAT range or tolerance it is asked with,
and whether two values are the same answer under it (for options and modelled mistakes)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from quizforge.answers.keys import NumericKey, exact, nat_range, within_rel
from quizforge.bank.question import Question, Unit


def numeric_key(question: Question) -> NumericKey:
    """The NAT key: a GATE range when decimal places are stated, else exact or relative."""
    return key_for(question.answer, decimals=question.decimals, rel_tol=question.rel_tol, unit=question.unit)


def key_for(answer: Any, *, decimals: int | None, rel_tol: float | None, unit: Unit | None) -> NumericKey:
    """The NAT key for a key value and how precisely it is asked (what `numeric_key` builds for a question).
    Built once per key: a set asks for each question's key five or six times (its draw, keys.csv,
    the answer book, the LMS ranges and solutions); NumericKey is immutable, so it is shared."""
    try:
        # the type and repr too: 1, 1.0 and Fraction(1) (or 0.0 and -0.0) are equal but print apart
        return _key_for(type(answer), repr(answer), answer, decimals, type(rel_tol), rel_tol, unit)
    except TypeError:   # an answer that cannot be hashed
        return _build_key(answer, decimals, rel_tol, unit)


@lru_cache(maxsize=16384)
def _key_for(answer_type, answer_repr, answer, decimals, rel_tol_type, rel_tol, unit) -> NumericKey:
    return _build_key(answer, decimals, rel_tol, unit)


def _build_key(answer: Any, decimals: int | None, rel_tol: float | None, unit: Unit | None) -> NumericKey:
    family = unit.family if unit is not None and unit.family != "none" else None
    scale = Fraction(unit.scale) if unit is not None else Fraction(1)
    if decimals is not None:
        key = nat_range(answer, decimals, unit=family, scale=scale)
    elif rel_tol:
        key = within_rel(answer, rel_tol, unit=family, scale=scale)
    else:
        key = exact(answer, unit=family, scale=scale)
    return replace(key, names=unit.words) if unit is not None and unit.words else key


def _as_number(x: Any):
    return x if isinstance(x, (int, float, Fraction)) else Fraction(x)


def values_match(a: Any, b: Any, *, decimals: int | None = None, rel_tol: float | None = None) -> bool:
    """Whether two values are indistinguishable under a question's tolerance (for options)."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if decimals is not None:
        return nat_range(_as_number(b), decimals).accepts(_as_number(a))
    if rel_tol:
        return within_rel(_as_number(b), rel_tol).accepts(_as_number(a))
    return exact(_as_number(b)).accepts(_as_number(a))
