"""Hidden suite for `apply_rope(x, positions, base=10000.0)`.

Each pair (x[..., 2i], x[..., 2i+1]) is rotated by the angle positions · base^(-2i/d): the
RoFormer paper's interleaved convention. Compared with a float64 reference; the classic
mistakes (the half-split convention, the exponent without its 2, positions ignored, the
rotation the wrong way round) are recognised by their output.

The angle may honestly be computed in float32 whatever x's dtype, as GPT-J and LLaMA do:
then it is off by a few float32 ulps of itself, which at position 1000 is 1e-4 radians. So
each comparison allows, on top of its own tolerance, the error a float32 angle can cause
on these inputs (`angle_slack`).
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


FLOAT32_EPS = torch.finfo(torch.float32).eps


def angle_slack(x, positions, base=10000.0):
    """The largest error an angle computed in float32 can cause on these inputs: the angle θ off by
    up to 2 ulps of θ (the frequency rounded, then the product), cos and sin off by about one ulp,
    each times the length of the pair it rotates."""
    x = x.double()
    theta = angles(positions, x.shape[-1], base)
    pair_length = (x[..., 0::2] ** 2 + x[..., 1::2] ** 2).sqrt()
    return float(((2 * theta.abs() + 2) * FLOAT32_EPS * pair_length).max())


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
    checks.assert_values(out, rope(x, positions, b), what="your output", atol=ATOL + angle_slack(x, positions, b),
                         rtol=RTOL, hint=hint, mistakes=known_mistakes(x, positions, b))
    return out


def test_worked_example(submission):
    # d = 2: one pair, rotated by position · 1 radian (small whole numbers, drawn like every input).
    gen = checks.seeded(0)
    x = torch.randint(-2, 3, (3, 2), generator=gen).float()
    x[0] = torch.tensor([1.0, 0.0]) * (1 + torch.randint(2, (), generator=gen))  # never a zero pair everywhere
    positions = torch.randperm(8, generator=gen)[:3]
    check(submission, x, positions, hint="pair 0 turns by exactly its position, in radians")


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
    dots, slack = [], 0.0
    for start in (0, 5, 40):
        # A float32 angle moves each rotated value by up to angle_slack, so a rotated vector by up to
        # √d times that, and its dot product with the other by that times the other's length.
        slack = max(slack, sum(angle_slack(a, torch.tensor([p])) * q.shape[-1] ** 0.5 * float(b.double().norm())
                               for a, b, p in ((q, k, start + 3), (k, q, start))))
        rq = checks.call(submission, NAME, q, torch.tensor([start + 3]))
        rk = checks.call(submission, NAME, k, torch.tensor([start]))
        rq = checks.expect_tensor(rq, "your output", shape=q.shape, dtype=q.dtype)
        rk = checks.expect_tensor(rk, "your output", shape=k.shape, dtype=k.dtype)
        dots.append(float((rq.double() * rk.double()).sum()))
    assert max(dots) - min(dots) < 1e-4 + 2 * slack, (
        f"rope(q, m)·rope(k, n) should depend on m - n alone; with m - n = 3 it was {dots}")


def test_float64_input(submission):
    x = checks.randn(checks.seeded(7), 4, 8, dtype=torch.float64)
    out = checks.expect_tensor(checks.call(submission, NAME, x, torch.arange(4)), "your output", shape=x.shape,
                               dtype=torch.float64)
    # Float64 arithmetic, but the angle may be float32 (see the module's docstring).
    checks.assert_values(out, rope(x, torch.arange(4)), what="your output",
                         atol=1e-10 + angle_slack(x, torch.arange(4)), rtol=1e-10)


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
