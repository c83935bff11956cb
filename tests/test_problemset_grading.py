"""Keys and grading of instructor problem sets (issue 21, items 14 to 19 and overrides)."""

from __future__ import annotations

from decimal import Context, Decimal
from fractions import Fraction

import pytest

from quizforge.bank import registry
from quizforge.bank.grading import grade, numeric_key

NAT_TEMPLATES = [t for t in registry.all_templates() if t.kind == "NAT"]


def _decimal_text(x: Fraction) -> str:
    """x in e-notation to 200 significant digits (exact for the decimals these tests make)."""
    return format(Context(prec=200).divide(Decimal(x.numerator), Decimal(x.denominator)), "e")


def _just_outside(low: Fraction, high: Fraction) -> tuple[Fraction, Fraction]:
    nudge = (high - low) / 10**6 if high > low else max(abs(low), Fraction(1)) / 10**9
    return low - nudge, high + nudge


@pytest.mark.parametrize("template", NAT_TEMPLATES, ids=[t.id for t in NAT_TEMPLATES])
def test_the_printed_range_ends_are_exactly_what_is_accepted(template):
    for seed in range(50):
        q = template.question(seed)
        key = numeric_key(q)
        printed = key.range_text()
        ends = printed.split(" to ") if " to " in printed else [printed, printed]
        for end in ends:
            assert grade(q, end).correct, (q.id, printed, end)
        low, high = (key.parse(end) for end in ends)
        below, above = _just_outside(Fraction(low), Fraction(high))
        for outside in (below, above):
            text = _decimal_text(outside)
            assert not grade(q, text).correct, (q.id, printed, text)


def test_a_one_percent_range_around_a_float_key_is_read_as_its_decimals():
    q = registry.question("flops.training-a477")
    assert numeric_key(q).range_text() == "1.0395e24 to 1.0605e24"
    assert grade(q, "1.0395e24").correct and grade(q, "1.0605e24").correct
    assert not grade(q, "1.03949e24").correct and not grade(q, "1.06051e24").correct
