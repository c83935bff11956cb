"""Hidden suite for `LayerNorm(d_model, eps=1e-5)`: compared with F.layer_norm in float64."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from quizforge.challenges import checks, mistakes

NAME = "LayerNorm"
ATOL, RTOL = 1e-5, 1e-4  # float32, outputs of size ~1
FORMULA = "y = (x - mean) / sqrt(var + eps) * weight + bias over the last dim, var biased"


def expected(x, weight, bias, eps=1e-5):
    return F.layer_norm(x.double(), (x.shape[-1],), weight.double(), bias.double(), eps)


def known_mistakes(x, weight, bias, eps=1e-5) -> list[checks.Mistake]:
    variants = [
        ("the variance is the unbiased one, divided by d_model - 1: layer norm uses the biased variance, "
         "divided by d_model (unbiased=False, or correction=0)", dict(correction=1)),
        ("eps is added outside the square root: divide by sqrt(var + eps), not sqrt(var) + eps",
         dict(eps_placement="outside")),
        ("eps is left out: divide by sqrt(var + eps)", dict(eps_placement="none")),
        ("mean and variance are taken over the whole tensor: normalise each vector over the last dim "
         "(dim=-1, keepdim=True)", dict(over="all")),
        ("mean and variance are taken over dim 0: normalise over the last dim (dim=-1, keepdim=True)",
         dict(over="first")),
        ("weight and bias are not applied: after normalising, multiply by weight and add bias",
         dict(affine="none")),
        ("bias is not added: after normalising, multiply by weight and add bias", dict(affine="weight")),
    ]
    found = [(text, mistakes.layer_norm(x, weight, bias, eps, **switches)) for text, switches in variants]
    if eps != 1e-5:
        found.append((f"it ignores the eps it was constructed with ({eps:g}) and uses 1e-5",
                      mistakes.layer_norm(x, weight, bias, 1e-5)))
    return found


def random_parameters(gen, d_model):
    return {"weight": 1.0 + 0.5 * checks.randn(gen, d_model), "bias": 0.5 * checks.randn(gen, d_model)}


def spread_rows(gen, d_model, *, scales, means):
    """Rows of D_MODEL random values, each row's spread exactly its scale (biased standard deviation)
    and its mean exactly its mean. Draws that happen to bunch together would make E[x²] - E[x]²,
    a correct way to the variance, lose float32 digits to cancellation under some seeds."""
    draws = checks.randn(gen, len(scales), d_model, dtype=torch.float64)
    standard = (draws - draws.mean(-1, keepdim=True)) / draws.std(-1, unbiased=False, keepdim=True)
    column = lambda values: torch.tensor(values, dtype=torch.float64).unsqueeze(-1)  # noqa: E731
    return (standard * column(scales) + column(means)).float()


def build(submission, d_model, state=None, **kwargs):
    norm = checks.construct(submission, NAME, d_model, **kwargs)
    if state is not None:
        checks.load_parameters(norm, NAME, state)
    return norm


def check(norm, x, weight, bias, eps=1e-5, *, atol=ATOL, rtol=RTOL, hint=FORMULA):
    out = checks.forward(norm, NAME, x)
    out = checks.expect_tensor(out, "your output", shape=x.shape, dtype=x.dtype)
    checks.assert_values(out, expected(x, weight, bias, eps), what="your output", atol=atol, rtol=rtol,
                         mistakes=known_mistakes(x, weight, bias, eps), hint=hint)


def test_parameters(submission):
    norm = build(submission, 6)
    shapes = checks.attempt(f"{NAME}(6).named_parameters()", norm.parameter_shapes)
    assert shapes == {"weight": [6], "bias": [6]}, (
        f"{NAME}(6) has parameters {shapes}, expected exactly weight [6] and bias [6] (nn.Parameter)")
    state = checks.attempt(f"{NAME}(6).state_dict()", norm.state_dict)
    assert torch.equal(state["weight"], torch.ones(6)), "weight must start as ones"
    assert torch.equal(state["bias"], torch.zeros(6)), "bias must start as zeros"


def test_initial_parameters_only_normalise(submission):
    x = checks.randn(checks.seeded(1), 3, 5, scale=2.0) + 1.0
    check(build(submission, 5), x, torch.ones(5), torch.zeros(5))


SHAPES = {"vector": (6,), "rows": (4, 6), "batched": (2, 3, 6), "4d": (2, 2, 3, 6)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_matches_reference(submission, shape):
    gen = checks.seeded(10 + len(shape))
    state = random_parameters(gen, shape[-1])
    rows = math.prod(shape[:-1])
    x = spread_rows(gen, shape[-1], scales=(1.0 + 4.0 * torch.rand(rows, generator=gen)).tolist(),
                    means=checks.randn(gen, rows).tolist()).reshape(shape)
    check(build(submission, shape[-1], state), x, **state)


def test_biased_variance(submission):
    # With d_model = 3 the unbiased variance is 1.5 times the biased one.
    gen = checks.seeded(20)
    state = random_parameters(gen, 3)
    x = spread_rows(gen, 3, scales=[1.0, 0.5, 2.0, 1.0], means=checks.randn(gen, 4).tolist())
    check(build(submission, 3, state), x, **state, hint="var = mean((x - mean)²), divided by d_model")


def test_small_variance(submission):
    # Variance ~1e-6, below eps = 1e-5: here sqrt(var + eps) and sqrt(var) + eps are far apart.
    gen = checks.seeded(30)
    state = random_parameters(gen, 8)
    x = checks.randn(gen, 3, 8, scale=1e-3)
    check(build(submission, 8, state), x, **state, atol=1e-4, rtol=1e-4,
          hint="with a variance this small, eps decides the result: divide by sqrt(var + eps)")


def test_constant_rows(submission):
    # A row with no variance normalises to 0, so the output is the bias (not NaN: eps keeps sqrt away from 0).
    gen = checks.seeded(40)
    state = random_parameters(gen, 4)
    x = checks.randn(gen, 2, 1, scale=2.0).repeat(1, 4)
    check(build(submission, 4, state), x, **state, atol=1e-4,
          hint="a constant row gives (x - mean) = 0, so the output is the bias; eps avoids 0 / 0")


def test_custom_eps(submission):
    gen = checks.seeded(50)
    state = random_parameters(gen, 6)
    x = checks.randn(gen, 3, 6, scale=0.2)
    check(build(submission, 6, state, eps=0.1), x, **state, eps=0.1,
          hint="use the eps passed to the constructor")


def test_normalises_last_dim_only(submission):
    # Rows with different means and scales: statistics shared across rows would show.
    gen = checks.seeded(60)
    state = random_parameters(gen, 5)
    x = spread_rows(gen, 5, scales=[0.5, 1.0, 4.0, 2.0], means=[3.0, -2.0, 0.0, 10.0])
    check(build(submission, 5, state), x, **state,
          hint="each vector x[..., :] is normalised with its own mean and variance")


def test_gradients(submission):
    gen = checks.seeded(70)
    state = random_parameters(gen, 6)
    x = spread_rows(gen, 6, scales=[1.0, 0.5, 2.0, 1.0, 1.5, 0.8], means=[0.5] * 6).reshape(2, 3, 6)
    grad_output = checks.randn(gen, 2, 3, 6)
    norm = build(submission, 6, state)
    check(norm, x, **state)  # the forward pass alone must be right first
    leaves = {name: t.double().requires_grad_(True) for name, t in {"x": x, **state}.items()}
    F.layer_norm(leaves["x"], (6,), leaves["weight"], leaves["bias"], 1e-5).backward(grad_output.double())
    result = checks.attempt(f"backpropagating through {NAME}.forward(float32[2, 3, 6])", norm.backward,
                            [x], grad_output,
                            hint="the forward pass works, so make sure autograd can follow it (torch operations only)")
    checks.assert_gradient(result["inputs"][0], leaves["x"].grad, wrt="x", dtype=torch.float32,
                           atol=1e-4, rtol=1e-4)
    for name in ("weight", "bias"):
        checks.assert_gradient(result["params"].get(name), leaves[name].grad, wrt=name, dtype=torch.float32,
                               atol=1e-4, rtol=1e-4)
