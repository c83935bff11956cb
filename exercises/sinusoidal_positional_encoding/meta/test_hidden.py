"""Hidden suite for `sinusoidal_positional_encoding(max_len, d_model)`, d_model even.

Expected values come from the reference table in float64. A float32 angle
p / 10000^(2i/d_model) carries a rounding error that grows with p, hence a
tolerance that grows with max_len.
"""

from __future__ import annotations

import pytest
import torch

from quizforge.challenges import checks, mistakes
from quizforge.challenges.reference import sinusoidal_table

NAME = "sinusoidal_positional_encoding"


def tolerance_for(max_len: int) -> float:
    """Correct float32 code is within ~1e-5 up to 128 positions and ~2e-4 up to 2048."""
    return 5e-5 if max_len <= 128 else 1e-3


def known_mistakes(max_len: int, d_model: int) -> list[checks.Mistake]:
    variants = [
        ("sin and cos are swapped: even columns 2i hold the sine, odd columns 2i+1 the cosine",
         dict(layout="swapped")),
        ("the sines and cosines are concatenated as two halves instead of interleaved: "
         "column 2i is the sine and column 2i+1 the cosine of the same angle", dict(layout="halves")),
        ("the cosines and sines are concatenated as two halves instead of interleaved: "
         "column 2i is the sine and column 2i+1 the cosine of the same angle", dict(layout="halves_swapped")),
        ("the exponent is i/d_model: the angle is p / 10000^(2i/d_model), with the 2", dict(exponent="i")),
        ("each column k uses its own exponent k/d_model, so the odd column 2i+1 gets a different frequency "
         "from its even partner 2i: both use 10000^(2i/d_model)", dict(exponent="k")),
        ("the column index k is used as i, giving 10000^(2k/d_model): for columns 2i and 2i+1 the exponent "
         "is 2i/d_model, i being the pair's index", dict(exponent="2k")),
        ("positions start at 1: row p is position p, starting from position 0", dict(first_position=1)),
        ("the angle is p · 10000^(2i/d_model) instead of p / 10000^(2i/d_model)", dict(divide=False)),
    ]
    return [(text, mistakes.sinusoidal(max_len, d_model, **switches)) for text, switches in variants]


def table(submission, max_len: int, d_model: int) -> torch.Tensor:
    pe = checks.call(submission, NAME, max_len, d_model, expect_shape=(max_len, d_model))
    return checks.expect_tensor(pe, f"{NAME}({max_len}, {d_model})", shape=(max_len, d_model), dtype=torch.float32)


def check(submission, max_len: int, d_model: int) -> None:
    pe = table(submission, max_len, d_model)
    atol = tolerance_for(max_len)
    checks.assert_values(pe, sinusoidal_table(max_len, d_model, dtype=torch.float64),
                         what=f"{NAME}({max_len}, {d_model})", atol=atol, rtol=0.0,
                         mistakes=known_mistakes(max_len, d_model),
                         hint="PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(p / 10000^(2i/d_model))")


SIZES = {"1x2": (1, 2), "10x4": (10, 4), "50x16": (50, 16), "7x512": (7, 512)}


@pytest.mark.parametrize("max_len, d_model", SIZES.values(), ids=SIZES.keys())
def test_shape_and_dtype(submission, max_len, d_model):
    table(submission, max_len, d_model)


def test_position_zero(submission):
    pe = table(submission, 3, 8)
    row = [round(float(v), 4) for v in pe[0]]
    assert torch.allclose(pe[0], torch.tensor([0.0, 1.0] * 4), atol=1e-6), (
        f"row 0 (position 0) is {row}: expected sin(0) = 0 in the even columns and cos(0) = 1 in the odd ones "
        "(atol=1e-6)")


def drawn_size(stream: int, max_len: int, d_model: int) -> tuple[int, int]:
    """A size up to (max_len, d_model), drawn from the grading's seed: the answers cannot be a table
    recorded for the published sizes."""
    gen = checks.seeded(stream)
    return checks.integer(gen, max_len // 2 + 1, max_len), 2 * checks.integer(gen, d_model // 4 + 1, d_model // 2)


@pytest.mark.parametrize("max_len, d_model", [(4, 6), (20, 8), (64, 32), (100, 128)],
                         ids=["4x6", "20x8", "64x32", "100x128"])
def test_matches_formula(submission, max_len, d_model):
    check(submission, *drawn_size(max_len * 1000 + d_model, max_len, d_model))


def test_pairs_are_sine_and_cosine_of_one_angle(submission):
    pe = table(submission, 30, 16).double()
    norms = pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2  # sin² + cos² of one angle is 1
    bad = ((norms - 1).abs() > 1e-4).nonzero()
    if len(bad):
        p, i = (int(v) for v in bad[0])
        raise AssertionError(
            f"at position {p}, columns {2 * i} and {2 * i + 1} have sum of squares {float(norms[p, i]):.4f}, not 1 "
            "(atol=1e-4): each pair (2i, 2i+1) must hold the sine and the cosine of the same angle, interleaved")


def test_long_sequence(submission):
    check(submission, *drawn_size(1, 2048, 64))


def test_sizes_are_independent(submission):
    # A longer table starts with the shorter one: the encoding of a position does not depend on max_len.
    short = table(submission, 10, 16)
    long = table(submission, 40, 16)
    checks.assert_values(long[:10], short, what=f"{NAME}(40, 16)[:10] against {NAME}(10, 16)",
                         atol=1e-6, rtol=0.0, hint="the encoding of position p must not depend on max_len")
