"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import math

from starter import cosine_lr


def test_worked_example():
    got = [cosine_lr(t, 1.0, 0.1, 10, 110) for t in (0, 5, 10, 35, 60, 85, 110, 111, 1000)]
    expected = [0.0, 0.5, 1.0, 0.8682, 0.55, 0.2318, 0.1, 0.1, 0.1]
    assert all(type(v) is float for v in got), f"return Python floats, got {[type(v).__name__ for v in got]}"
    assert all(math.isclose(a, b, abs_tol=1e-4) for a, b in zip(got, expected)), got


def test_warmup_is_linear_and_reaches_lr_max():
    got = [cosine_lr(t, 0.004, 0.0004, 4, 20) for t in range(5)]
    assert all(math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-15) for a, b in zip(got, [0.0, 0.001, 0.002, 0.003, 0.004])), got


def test_the_rate_stays_at_lr_min_after_the_cycle():
    for t in (20, 21, 40, 10_000):
        assert math.isclose(cosine_lr(t, 0.004, 0.0004, 4, 20), 0.0004, rel_tol=1e-9), t
    out = cosine_lr(500, 1, 0, 10, 100)
    assert out == 0.0 and type(out) is float, f"expected the float 0.0, got {out!r}"


def test_no_warmup_starts_at_lr_max():
    assert math.isclose(cosine_lr(0, 0.003, 0.0, 0, 100), 0.003, rel_tol=1e-9)
    assert math.isclose(cosine_lr(50, 0.003, 0.0, 0, 100), 0.0015, rel_tol=1e-9)
