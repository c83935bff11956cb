"""A mock's percentage, rounded once from exact values: the terminal report, the browser's
report and `quiz stats` all show it through here, so they agree to the last digit.

GATE marks are whole marks or thirds of one (a wrong MCQ costs 1/3 or 2/3 of its marks), and
the history keeps a score to 2 places (71/3 as 23.67). Thirds lie 0.33 apart, so a kept score
within 0.005 of one gives back the exact score; the percentage is then rounded once, to one place, half away
from zero: 71/3 of 31 is 76.344…%, shown as 76.3, never 76.4 through 23.67 or 76.35.
"""

from __future__ import annotations

import math
from fractions import Fraction


def exact_score(score: float) -> Fraction:
    """The exact GATE score behind one kept to 2 places: the nearest third when the score is
    within rounding of one, else the score as written."""
    kept = Fraction(repr(float(score)))
    third = Fraction(round(kept * 3), 3)
    return third if abs(kept - third) <= Fraction(1, 200) else kept


def exact_percent(score: float, top: float) -> Fraction | None:
    """100 × score / maximum, exactly; None for a paper with no marks."""
    if not top:
        return None
    return 100 * exact_score(score) / Fraction(top)


def one_place(value: Fraction) -> float:
    """An exact value rounded once to one decimal place (half away from zero), as a float that
    prints as that decimal."""
    tenths = math.floor(abs(value) * 10 + Fraction(1, 2))
    return math.copysign(tenths / 10, value) if tenths else 0.0


def mock_percent(result: dict) -> float | None:
    """A marked mock's percentage to one place; None when its paper had no marks."""
    exact = exact_percent(float(result.get("score") or 0), float(result.get("max") or 0))
    return None if exact is None else one_place(exact)


def result_percent(result: dict) -> Fraction:
    """A mock result's exact percentage (0 for an empty paper)."""
    return exact_percent(result["score"], result["max"]) or Fraction(0)


def comparison(result: dict, earlier: list[dict]) -> dict | None:
    """This paper against the earlier ones, in percent of the maximum (papers differ in length);
    each figure from exact values, rounded once."""
    if not earlier:
        return None
    now = result_percent(result)
    previous = [result_percent(r) for r in earlier]
    return {"mocks_before": len(previous), "last": one_place(previous[-1]), "best_before": one_place(max(previous)),
            "average_before": one_place(sum(previous) / len(previous)), "this": one_place(now),
            "change": one_place(now - previous[-1]), "personal_best": now > max(previous)}
