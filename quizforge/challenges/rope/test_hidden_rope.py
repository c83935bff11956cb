"""Hidden suite for `apply_rope(x, positions, base=10000.0)`.

Each pair (x[..., 2i], x[..., 2i+1]) is rotated by the angle positions · base^(-2i/d): the
RoFormer paper's interleaved convention. Compared with a float64 reference; the classic
mistakes (the half-split convention, the exponent without its 2, positions ignored, the
rotation the wrong way round) are recognised by their output.
"""

from __future__ import annotations

import pytest
import torch

from quizforge.challenges import checks

NAME = "apply_rope"
ATOL, RTOL = 1e-5, 1e-4


def angles(positions, d, base, exponent="2i"):
    pair = torch.arange(0, d, 2, dtype=torch.float64) if exponent == "2i" else torch.arange(d // 2, dtype=torch.float64)
    return positions.double()[:, None] * base ** (-pair / d)[None, :]


def rope(x, positions, base=10000.0, *, layout="interleaved", exponent="2i", direction=1.0):
    x = x.double()
    d = x.shape[-1]
    theta = angles(positions, d, base, exponent) * direction
    cos, sin = theta.cos(), theta.sin()
    if layout == "interleaved":
        even, odd = x[..., 0::2], x[..., 1::2]
        return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
    first, second = x[..., : d // 2], x[..., d // 2:]
    return torch.cat((first * cos - second * sin, first * sin + second * cos), dim=-1)


def known_mistakes(x, positions, base):
    n = x.shape[-2]
    return [
        ("the pairs are (x[i], x[i + d/2]), the half-split convention; this challenge rotates "
         "interleaved pairs (x[2i], x[2i+1])", rope(x, positions, base, layout="halves")),
        ("the exponent is i/d: the angle of pair i is position · base^(-2i/d)", rope(x, positions, base, exponent="i")),
        ("the positions argument is ignored: rotate row t by the angle of positions[t], not of t",
         rope(x, torch.arange(n), base)),
        ("the rotation goes the wrong way: (x0, x1) becomes (x0·cos − x1·sin, x0·sin + x1·cos)",
         rope(x, positions, base, direction=-1.0)),
    ]


def check(submission, x, positions, base=None, hint=""):
    kwargs = {} if base is None else {"base": base}
    out = checks.call(submission, NAME, x, positions, **kwargs)
    out = checks.expect_tensor(out, "your output", shape=x.shape, dtype=x.dtype)
    b = 10000.0 if base is None else base
    checks.assert_values(out, rope(x, positions, b), what="your output", atol=ATOL, rtol=RTOL, hint=hint,
                         mistakes=known_mistakes(x, positions, b))
    return out


def test_worked_example(submission):
    # d = 2: one pair, rotated by position · 1 radian.
    x = torch.tensor([[1.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    check(submission, x, torch.tensor([0, 1, 2]), hint="pair 0 turns by exactly its position, in radians")


SHAPES = {"T-d": (5, 8), "B-T-d": (2, 5, 8), "B-H-T-d": (2, 3, 4, 16)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_matches_formula(submission, shape):
    x = checks.randn(checks.seeded(1), *shape)
    check(submission, x, torch.arange(shape[-2]))


def test_positions_are_used(submission):
    x = checks.randn(checks.seeded(2), 2, 4, 8)
    check(submission, x, torch.tensor([7, 8, 9, 10]), hint="rotate row t by positions[t]")


def test_custom_base(submission):
    x = checks.randn(checks.seeded(3), 6, 8)
    check(submission, x, torch.arange(6), base=100.0, hint="use the base argument")


def test_long_sequence(submission):
    x = checks.randn(checks.seeded(4), 64, 32)
    check(submission, x, torch.arange(1000, 1064))


def test_lengths_are_kept(submission):
    x = checks.randn(checks.seeded(5), 3, 6, 12)
    out = check(submission, x, torch.arange(6))
    ratio = out.double().norm(dim=-1) / x.double().norm(dim=-1)
    checks.assert_values(ratio, torch.ones_like(ratio), what="|rope(x)| / |x|", atol=1e-5, rtol=0,
                         hint="a rotation keeps every vector's length")


def test_relative_positions(submission):
    # q·k after rotation depends only on the offset between the positions.
    gen = checks.seeded(6)
    q, k = checks.randn(gen, 1, 16), checks.randn(gen, 1, 16)
    dots = []
    for start in (0, 5, 40):
        rq = checks.call(submission, NAME, q, torch.tensor([start + 3]))
        rk = checks.call(submission, NAME, k, torch.tensor([start]))
        rq = checks.expect_tensor(rq, "your output", shape=q.shape, dtype=q.dtype)
        rk = checks.expect_tensor(rk, "your output", shape=k.shape, dtype=k.dtype)
        dots.append(float((rq.double() * rk.double()).sum()))
    assert max(dots) - min(dots) < 1e-4, (
        f"rope(q, m)·rope(k, n) should depend on m - n alone; with m - n = 3 it was {dots}")


def test_float64_input(submission):
    x = checks.randn(checks.seeded(7), 4, 8, dtype=torch.float64)
    out = checks.expect_tensor(checks.call(submission, NAME, x, torch.arange(4)), "your output", shape=x.shape,
                               dtype=torch.float64)
    checks.assert_values(out, rope(x, torch.arange(4)), what="your output", atol=1e-10, rtol=1e-10)


def test_gradient(submission):
    x = checks.randn(checks.seeded(8), 2, 5, 8)
    positions = torch.arange(5)
    grad_output = checks.randn(checks.seeded(9), 2, 5, 8)
    check(submission, x, positions)
    leaf = x.double().requires_grad_(True)
    rope(leaf, positions).backward(grad_output.double())
    grads = checks.attempt(f"backpropagating through {checks.describe_call(NAME, x, positions)}", submission.grad,
                           NAME, [x, positions], grad_output)
    checks.assert_gradient(grads[0], leaf.grad, wrt="x", dtype=torch.float32, atol=1e-5, rtol=1e-4)
