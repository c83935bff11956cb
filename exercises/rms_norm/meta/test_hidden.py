"""Hidden suite for `RMSNorm(d_model, eps=1e-5)`: compared with a float64 reference on seeded inputs.

    y = x / sqrt(mean(x², -1) + eps) * weight

`rms_norm` below is that reference with switches, each of which reproduces one classic
mistake, so that a failure can name it.
"""

from __future__ import annotations

import pytest
import torch

from quizforge.challenges import checks

NAME = "RMSNorm"
ATOL, RTOL = 1e-5, 1e-4  # float32, outputs of size ~1
FORMULA = "y = x / sqrt(mean(x², -1) + eps) * weight, over the last dim, with no mean subtracted"


def rms_norm(x, weight, eps=1e-5, *, centred=False, reduce="mean", eps_placement="inside", over="last",
             scaled=True):
    """The reference in float64. centred: subtract the mean first (LayerNorm's way); reduce: "mean" or
    "sum" of the squares; eps_placement: "inside" the square root, "outside" it or "none"; over:
    "last" dim, "all" (the whole tensor) or "first" dim; scaled: multiply by weight."""
    x, weight = x.double(), weight.double()
    dims = {"last": (-1,), "all": tuple(range(x.dim())), "first": (0,)}[over]
    if centred:
        x = x - x.mean(dim=dims, keepdim=True)
    squares = x.pow(2)
    total = squares.mean(dim=dims, keepdim=True) if reduce == "mean" else squares.sum(dim=dims, keepdim=True)
    if eps_placement == "inside":
        denominator = torch.sqrt(total + eps)
    elif eps_placement == "outside":
        denominator = torch.sqrt(total) + eps
    else:
        denominator = torch.sqrt(total)
    y = x / denominator
    return y * weight if scaled else y


def known_mistakes(x, weight, eps=1e-5) -> list[checks.Mistake]:
    variants = [
        ("the mean is subtracted first, as in LayerNorm: RMSNorm divides x itself by its root mean square, "
         "without centring it", dict(centred=True)),
        ("it divides by the root of the sum of the squares: take their mean over the last dim "
         "(divide by d_model)", dict(reduce="sum")),
        ("eps is added outside the square root: divide by sqrt(mean(x²) + eps), not sqrt(mean(x²)) + eps",
         dict(eps_placement="outside")),
        ("eps is left out: divide by sqrt(mean(x²) + eps)", dict(eps_placement="none")),
        ("the mean square is taken over the whole tensor: normalise each vector over the last dim "
         "(dim=-1, keepdim=True)", dict(over="all")),
        ("the mean square is taken over dim 0: normalise over the last dim (dim=-1, keepdim=True)",
         dict(over="first")),
        ("weight is not applied: after normalising, multiply by weight", dict(scaled=False)),
    ]
    found = [(text, rms_norm(x, weight, eps, **switches)) for text, switches in variants]
    if eps != 1e-5:
        found.append((f"it ignores the eps it was constructed with ({eps:g}) and uses 1e-5",
                      rms_norm(x, weight, 1e-5)))
    return found


def random_weight(gen, d_model):
    return 1.0 + 0.5 * checks.randn(gen, d_model)


def build(submission, d_model, weight=None, **kwargs):
    norm = checks.construct(submission, NAME, d_model, **kwargs)
    if weight is not None:
        checks.load_parameters(norm, NAME, {"weight": weight})
    return norm


def check(norm, x, weight, eps=1e-5, *, atol=ATOL, rtol=RTOL, hint=FORMULA):
    out = checks.forward(norm, NAME, x)
    out = checks.expect_tensor(out, "your output", shape=x.shape, dtype=x.dtype)
    checks.assert_values(out, rms_norm(x, weight, eps), what="your output", atol=atol, rtol=rtol,
                         mistakes=known_mistakes(x, weight, eps), hint=hint)


def test_parameters(submission):
    norm = build(submission, 6)
    shapes = checks.attempt(f"{NAME}(6).named_parameters()", norm.parameter_shapes)
    assert shapes == {"weight": [6]}, (
        f"{NAME}(6) has parameters {shapes}, expected exactly weight [6] (an nn.Parameter, and no bias)")
    state = checks.attempt(f"{NAME}(6).state_dict()", norm.state_dict)
    assert torch.equal(state["weight"], torch.ones(6)), "weight must start as ones"


def test_initial_weight_only_normalises(submission):
    x = checks.randn(checks.seeded(1), 3, 5, scale=2.0)
    check(build(submission, 5), x, torch.ones(5))


SHAPES = {"vector": (6,), "rows": (4, 6), "batched": (2, 3, 6), "4d": (2, 2, 3, 6)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_matches_reference(submission, shape):
    gen = checks.seeded(10 + len(shape))
    weight = random_weight(gen, shape[-1])
    x = checks.randn(gen, *shape, scale=3.0)
    check(build(submission, shape[-1], weight), x, weight)


def test_rows_with_a_large_mean(submission):
    # Centring these rows would leave only their small spread: RMSNorm keeps the mean in.
    gen = checks.seeded(20)
    weight = random_weight(gen, 8)
    x = checks.randn(gen, 4, 8) + checks.randn(gen, 4, 1, scale=10.0)
    check(build(submission, 8, weight), x, weight, hint="RMSNorm does not subtract the mean")


def test_small_values(submission):
    # Mean square ~1e-6, below eps = 1e-5: here sqrt(ms + eps) and sqrt(ms) + eps are far apart.
    gen = checks.seeded(30)
    weight = random_weight(gen, 8)
    x = checks.randn(gen, 3, 8, scale=1e-3)
    check(build(submission, 8, weight), x, weight, atol=1e-4, rtol=1e-4,
          hint="with values this small, eps decides the result: divide by sqrt(mean(x²) + eps)")


def test_zero_rows(submission):
    # A zero vector normalises to 0, not NaN: eps keeps the square root away from 0.
    gen = checks.seeded(40)
    weight = random_weight(gen, 4)
    x = checks.randn(gen, 3, 4)
    x[1] = 0.0
    check(build(submission, 4, weight), x, weight, atol=1e-4,
          hint="a zero row gives 0 / sqrt(0 + eps) = 0; eps avoids 0 / 0")


def test_custom_eps(submission):
    gen = checks.seeded(50)
    weight = random_weight(gen, 6)
    # Mean square ~1e-4: eps = 0.1 dominates it, and 1e-5 (the default) or no eps would be ~30 times larger.
    x = checks.randn(gen, 3, 6, scale=0.01)
    check(build(submission, 6, weight, eps=0.1), x, weight, eps=0.1, hint="use the eps passed to the constructor")


def test_normalises_last_dim_only(submission):
    # Rows of very different scales: a mean square shared across rows would show.
    gen = checks.seeded(60)
    weight = random_weight(gen, 5)
    scales = torch.tensor([[0.5], [1.0], [4.0], [20.0]])
    x = checks.randn(gen, 4, 5) * scales
    check(build(submission, 5, weight), x, weight, hint="each vector x[..., :] is rescaled by its own RMS")


def test_float64_input(submission):
    gen = checks.seeded(70)
    weight = random_weight(gen, 6)
    norm = build(submission, 6, weight)
    x = checks.randn(gen, 2, 6, dtype=torch.float64)
    out = checks.forward(norm, NAME, x)
    # float32 weight times a float64 input promotes to float64, as torch's own modules do.
    out = checks.expect_tensor(out, "your output for a float64 input", shape=x.shape, dtype=torch.float64)
    checks.assert_values(out, rms_norm(x, weight), what="your float64 output", atol=1e-6,
                         rtol=1e-6, mistakes=known_mistakes(x, weight))


def test_gradients(submission):
    gen = checks.seeded(80)
    weight = random_weight(gen, 6)
    x = checks.randn(gen, 2, 3, 6) + 0.5
    grad_output = checks.randn(gen, 2, 3, 6)
    norm = build(submission, 6, weight)
    check(norm, x, weight)  # the forward pass alone must be right first
    leaves = {"x": x.double().requires_grad_(True), "weight": weight.double().requires_grad_(True)}
    rms_norm(leaves["x"], leaves["weight"]).backward(grad_output.double())
    result = checks.attempt(f"backpropagating through {NAME}.forward(float32[2, 3, 6])", norm.backward,
                            [x], grad_output,
                            hint="the forward pass works, so make sure autograd can follow it (torch operations only)")
    checks.assert_gradient(result["inputs"][0], leaves["x"].grad, wrt="x", dtype=torch.float32,
                           atol=1e-4, rtol=1e-4)
    checks.assert_gradient(result["params"].get("weight"), leaves["weight"].grad, wrt="weight",
                           dtype=torch.float32, atol=1e-4, rtol=1e-4)
