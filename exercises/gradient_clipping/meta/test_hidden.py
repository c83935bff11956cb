"""Hidden suite for `clip_grad_norm(parameters, max_norm, eps=1e-6) -> float`.

The worker makes the parameters (nn.Parameter, each with its .grad or none) and calls the
submission on them; the suite compares the norm it returns and the gradients after the call
with the reference below, computed here in float64. Per-parameter clipping, returning the
clipped norm, scaling a small norm and ignoring eps are named.
"""

from __future__ import annotations

import math

import pytest
import torch

from quizforge.challenges import checks

NAME = "clip_grad_norm"
RTOL, ATOL = 1e-5, 1e-6
NOT_FLOAT = "return a Python float (float(norm) or norm.item()), not a tensor"
NONE_GRAD = "skip the parameters whose .grad is None"


def random_grads(stream, shapes, dtype=torch.float32, scale=1.0):
    gen = checks.seeded(stream)
    return [checks.randn(gen, *shape, scale=scale, dtype=dtype) for shape in shapes]


def global_norm(grads):
    present = [g.double() for g in grads if g is not None]
    return math.sqrt(sum(float((g ** 2).sum()) for g in present)) if present else 0.0


def clipped(grads, max_norm, eps, *, per_parameter=False, always=False, use_eps=True):
    """The gradients after clipping; the switches reproduce the classic mistakes."""
    norm = global_norm(grads)
    out = []
    for g in grads:
        if g is None:
            out.append(None)
            continue
        own = global_norm([g]) if per_parameter else norm
        if own > max_norm or always:
            g = g.double() * (max_norm / (own + (eps if use_eps else 0.0)))
        out.append(g.double())
    return out


def run(submission, grads, max_norm, *args, hint="", **kwargs):
    values = [torch.zeros(g.shape, dtype=g.dtype) if g is not None else torch.zeros(3) for g in grads]
    # The call is shown without the hidden values: how many parameters, and which arguments.
    shown = f"{NAME}(<{len(grads)} parameters>, max_norm{''.join(f', {k}=…' for k in kwargs)})"
    result = checks.attempt(shown, submission.call_with_parameters, NAME, values, grads, max_norm, *args,
                            hint=hint, **kwargs)
    return result["value"], result["grads"]


def flat(grads):
    return torch.cat([g.double().flatten() for g in grads if g is not None])


def assert_norm(value, grads, max_norm):
    assert not isinstance(value, torch.Tensor), f"{NAME} returned a tensor: {NOT_FLOAT}"
    assert type(value) in (float, int), f"{NAME} returned a {type(value).__name__}: {NOT_FLOAT}"
    expected = global_norm(grads)
    if math.isclose(value, expected, rel_tol=RTOL, abs_tol=ATOL):
        return
    after = global_norm(clipped(grads, max_norm, 1e-6))
    if expected > max_norm and math.isclose(value, after, rel_tol=RTOL, abs_tol=ATOL):
        raise AssertionError(f"{NAME} returned the norm after clipping: return the norm before clipping")
    per_parameter = sum(global_norm([g]) for g in grads if g is not None)
    if math.isclose(value, per_parameter, rel_tol=RTOL, abs_tol=ATOL):
        raise AssertionError(f"{NAME} returned the sum of each parameter's norm: the global norm is "
                             "√(sum of every squared gradient entry)")
    raise AssertionError(f"{NAME} returned a norm off by a relative {abs(value - expected) / expected:.3g} "
                         f"(rtol={RTOL:g})")


def assert_grads(actual, grads, max_norm, eps, dtype=torch.float32):
    assert isinstance(actual, list) and len(actual) == len(grads)
    for got, given in zip(actual, grads):
        if given is None:
            assert got is None, f"a parameter without a gradient got one from {NAME}: {NONE_GRAD}"
        else:
            checks.expect_tensor(got, "a gradient after clipping", shape=given.shape, dtype=dtype)
    mistakes = [
        ("each parameter is clipped by its own norm: scale every gradient by the same factor, from the "
         "global norm over all of them", flat(clipped(grads, max_norm, eps, per_parameter=True))),
        ("the gradients are scaled although the norm is below max_norm: clip only when norm > max_norm",
         flat(clipped(grads, max_norm, eps, always=True))),
        (f"the clipping ignores the eps it was given ({eps:g}): scale by max_norm / (norm + eps)",
         flat(clipped(grads, max_norm, eps, use_eps=False))),
        ("the clipping ignores the eps it was given: scale by max_norm / (norm + eps) with that eps",
         flat(clipped(grads, max_norm, 1e-6))),
    ]
    checks.assert_values(flat(actual), flat(clipped(grads, max_norm, eps)), what="the gradients after clipping",
                         atol=ATOL, rtol=RTOL, mistakes=mistakes)


SHAPES = [(4, 3), (3,), (2, 2, 2), (1,)]


def test_returns_the_norm_before_clipping(submission):
    grads = random_grads(1, SHAPES)
    max_norm = global_norm(grads) * 0.3
    value, _ = run(submission, grads, max_norm)
    assert_norm(value, grads, max_norm)


def test_clips_a_large_norm(submission):
    grads = random_grads(2, SHAPES, scale=3.0)
    max_norm = global_norm(grads) * 0.25
    _, after = run(submission, grads, max_norm)
    assert_grads(after, grads, max_norm, 1e-6)


def test_leaves_a_small_norm_alone(submission):
    grads = random_grads(3, SHAPES)
    max_norm = global_norm(grads) * 2.0
    value, after = run(submission, grads, max_norm)
    assert_norm(value, grads, max_norm)
    assert_grads(after, grads, max_norm, 1e-6)


def test_uses_the_eps_given(submission):
    grads = random_grads(4, SHAPES)
    eps = 0.25 * global_norm(grads)
    max_norm = global_norm(grads) * 0.5
    _, after = run(submission, grads, max_norm, eps=eps)
    assert_grads(after, grads, max_norm, eps)


def test_skips_parameters_without_grad(submission):
    grads = random_grads(5, SHAPES, scale=2.0)
    grads[1] = grads[3] = None
    max_norm = global_norm(grads) * 0.5
    value, after = run(submission, grads, max_norm, hint=NONE_GRAD)
    assert_norm(value, grads, max_norm)
    assert_grads(after, grads, max_norm, 1e-6)


def test_no_gradient_at_all(submission):
    value, after = run(submission, [None, None], 1.0, hint=NONE_GRAD)
    assert type(value) in (float, int) and value == 0, (
        f"with no gradients at all {NAME} returned {value!r}, expected 0.0" + (
            f": {NOT_FLOAT}" if isinstance(value, torch.Tensor) else ""))
    assert after == [None, None], f"{NAME} gave gradients to parameters that had none: {NONE_GRAD}"


def test_returns_a_python_float(submission):
    grads = random_grads(6, SHAPES)
    value, _ = run(submission, grads, 0.5 * global_norm(grads))
    assert type(value) is float, f"{NAME} returned a {type(value).__name__}: {NOT_FLOAT}"


@pytest.mark.parametrize("ratio", [0.1, 0.9, 1.5], ids=["far_above", "just_above", "below"])
def test_float64_gradients(submission, ratio):
    grads = random_grads(7, [(5, 2), (7,)], dtype=torch.float64)
    max_norm = global_norm(grads) * ratio
    value, after = run(submission, grads, max_norm)
    assert_norm(value, grads, max_norm)
    assert_grads(after, grads, max_norm, 1e-6, dtype=torch.float64)


def test_many_parameters(submission):
    gen = checks.seeded(8)
    shapes = [(checks.integer(gen, 1, 6), checks.integer(gen, 1, 6)) for _ in range(12)]
    grads = random_grads(9, shapes, scale=10.0)
    max_norm = global_norm(grads) * 0.1
    value, after = run(submission, grads, max_norm)
    assert_norm(value, grads, max_norm)
    assert_grads(after, grads, max_norm, 1e-6)
