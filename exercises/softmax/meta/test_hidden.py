"""Hidden suite for `softmax(x, dim=-1)`: compared with torch.softmax in float64 on seeded inputs."""

from __future__ import annotations

import pytest
import torch

from quizforge.challenges import checks, mistakes

ATOL, RTOL = 1e-6, 1e-5  # float32 probabilities


def expected(x: torch.Tensor, dim: int) -> torch.Tensor:
    return torch.softmax(x.double(), dim=dim)


def known_mistakes(x: torch.Tensor, dim: int) -> list[checks.Mistake]:
    found = [(f"it is the softmax over dim {other}, not over the dim={dim} that was asked for",
              mistakes.stable_softmax(x, other)) for other in range(x.dim()) if other != dim % x.dim()]
    found.append(("exp overflows to inf for large logits (exp(89) is already inf in float32): "
                  f"subtract the maximum along dim={dim} before exp", mistakes.softmax(x, dim, shift="none")))
    found.append(("it subtracts the maximum of the whole tensor rather than each slice's own maximum "
                  f"along dim={dim}, so slices far below it underflow to 0/0",
                  mistakes.softmax(x, dim, shift="global")))
    no_keepdim = mistakes.softmax(x, dim, keepdim=False)
    if no_keepdim is not None:
        found.append(("each value is divided by the wrong slice's sum: the sums lost their dim and broadcast "
                      "along the wrong axis; use keepdim=True", no_keepdim))
    return found


def check(submission, x: torch.Tensor, dim: int, *, atol: float = ATOL, rtol: float = RTOL,
          hint: str = "") -> None:
    out = checks.call(submission, "softmax", x, dim=dim)
    out = checks.expect_tensor(out, "your output", shape=x.shape, dtype=x.dtype)
    checks.assert_values(out, expected(x, dim), what=f"your output (softmax over dim={dim})", atol=atol,
                         rtol=rtol, mistakes=known_mistakes(x, dim), hint=hint)


CASES = {
    "vector": ((7,), -1),
    "rows": ((4, 6), -1),
    "columns": ((4, 6), 0),
    "square": ((5, 5), -1),
    "3d-middle-dim": ((2, 5, 3), 1),
    "4d-negative-dim": ((2, 3, 4, 2), -3),
}


@pytest.mark.parametrize("shape, dim", CASES.values(), ids=CASES.keys())
def test_matches_reference(submission, shape, dim):
    gen = checks.seeded(100 + len(shape) * 10 + dim)
    check(submission, checks.randn(gen, *shape, scale=2.0), dim)


def test_default_dim_is_last(submission):
    x = checks.randn(checks.seeded(1), 3, 4)
    out = checks.call(submission, "softmax", x)
    out = checks.expect_tensor(out, "softmax(x) with no dim", shape=x.shape, dtype=x.dtype)
    checks.assert_values(out, expected(x, -1), what="softmax(x) with no dim (the default is dim=-1)",
                         atol=ATOL, rtol=RTOL, mistakes=known_mistakes(x, -1))


def test_slices_sum_to_one(submission):
    x = checks.randn(checks.seeded(2), 3, 4, 5)
    out = checks.call(submission, "softmax", x, dim=1)
    out = checks.expect_tensor(out, "your output", shape=x.shape, dtype=x.dtype)
    assert bool(((out >= 0) & (out <= 1)).all()), "every probability must lie in [0, 1]"
    checks.assert_sums_to_one(out, what="your output", dim=1, atol=1e-5,
                              hint="is the softmax normalised along the dim argument?")


def test_large_logits(submission):
    # Logits around ±1000: exp overflows (or underflows to 0/0) unless the maximum is subtracted first.
    gen = checks.seeded(3)
    x = checks.randn(gen, 4, 6, scale=5.0) + torch.tensor([[1000.0], [-1000.0], [300.0], [0.0]])
    # Around 1000 a float32 logit has an ulp of 6e-5, so logsumexp-style code is accurate to ~1e-4 there.
    check(submission, x, -1, atol=1e-5, rtol=1e-4,
          hint="large logits: subtract the maximum along dim before exp")


@pytest.mark.parametrize("dim", [-1, 0], ids=["rows", "columns"])
def test_slices_of_very_different_scales(submission, dim):
    # One slice near 200, others near 0 and -100: shifting by the global maximum underflows the others.
    gen = checks.seeded(4)
    offsets = torch.tensor([200.0, 0.0, -100.0])
    x = checks.randn(gen, 3, 5) + offsets[:, None]
    if dim == 0:
        x = x.T.contiguous()
    check(submission, x, dim, atol=1e-5, rtol=1e-4,
          hint=f"subtract each slice's own maximum along dim={dim} (keepdim=True), not one global value")


def test_minus_infinity_gets_probability_zero(submission):
    # A masked logit is -inf; the rest of its row must still be a distribution.
    x = checks.randn(checks.seeded(5), 3, 4)
    x[0, 1] = x[2, 0] = x[2, 3] = float("-inf")
    check(submission, x, -1, hint="a -inf logit has probability exactly 0, and its row still sums to 1")


def test_float64_input(submission):
    x = checks.randn(checks.seeded(6), 3, 5, dtype=torch.float64)
    out = checks.call(submission, "softmax", x, dim=-1)
    out = checks.expect_tensor(out, "your output for a float64 input", shape=x.shape, dtype=torch.float64)
    checks.assert_values(out, expected(x, -1), what="your float64 output", atol=1e-12, rtol=1e-10,
                         mistakes=known_mistakes(x, -1))


def test_gradient(submission):
    gen = checks.seeded(7)
    x = checks.randn(gen, 3, 5)
    grad_output = checks.randn(gen, 3, 5)
    check(submission, x, -1)  # the forward pass alone must work first
    x64 = x.double().requires_grad_(True)
    torch.softmax(x64, dim=-1).backward(grad_output.double())
    grads = checks.attempt("backpropagating through softmax(float32[3, 5], dim=-1)", submission.grad,
                           "softmax", [x], grad_output, {"dim": -1},
                           hint="the forward pass works, so make sure autograd can follow it (torch operations only)")
    checks.assert_gradient(grads[0], x64.grad, wrt="x", dtype=x.dtype, atol=1e-6, rtol=1e-4)
