"""Grading one answer to one question: parse, compare, diagnose, score the GATE way."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from quizforge.bank.question import Misconception, Question


def values_match(a: Any, b: Any, *, decimals: int | None = None, rel_tol: float | None = None) -> bool:
    """Whether two values are indistinguishable under a question's tolerance."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if decimals is not None:
        return abs(Fraction(a) - Fraction(b)) <= Fraction(1, 10**decimals)
    if rel_tol:
        return abs(float(a) - float(b)) <= rel_tol * max(abs(float(a)), abs(float(b)))
    return Fraction(a) == Fraction(b)
