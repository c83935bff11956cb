"""Hidden suite for `attention(Q, K, V)`, the starter with two planted bugs to fix.

The starter takes the softmax over the wrong axis (the queries) and leaves out the
1/√d_k scaling. Every test compares with softmax(Q Kᵀ / √d_k) V in float64, and a wrong
output that matches one of the planted bugs (or both) is told which.
"""

from __future__ import annotations

import math

import pytest
import torch

from quizforge.challenges import checks

NAME = "attention"
ATOL, RTOL = 1e-5, 1e-4


def attention(q, k, v, *, axis=-1, scaled=True):
    q, k, v = q.double(), k.double(), v.double()
    scores = q @ k.transpose(-2, -1)
    if scaled:
        scores = scores / math.sqrt(q.shape[-1])
    return torch.softmax(scores, dim=axis) @ v


def known_mistakes(q, k, v):
    return [
        ("both planted bugs are still there: the softmax runs over the queries (dim=-2) and the scores "
         "are not scaled by 1/√d_k", attention(q, k, v, axis=-2, scaled=False)),
        ("the softmax runs over the queries (dim=-2): each query's weights over the keys must sum to 1, "
         "so take it over the last dim", attention(q, k, v, axis=-2)),
        ("the scores are not scaled: divide Q Kᵀ by √d_k before the softmax", attention(q, k, v, scaled=False)),
    ]


def check(submission, q, k, v, hint=""):
    out = checks.call(submission, NAME, q, k, v)
    shape = (*q.shape[:-1], v.shape[-1])
    out = checks.expect_tensor(checks.first_output(out), "your output", shape=shape, dtype=q.dtype)
    checks.assert_values(out, attention(q, k, v), what="your output", atol=ATOL, rtol=RTOL, hint=hint,
                         mistakes=known_mistakes(q, k, v))
    return out


def inputs(seed, *lead, n_q=3, n_k=4, d_k=8, d_v=5, scale=1.0):
    gen = checks.seeded(seed)
    return (checks.randn(gen, *lead, n_q, d_k, scale=scale), checks.randn(gen, *lead, n_k, d_k, scale=scale),
            checks.randn(gen, *lead, n_k, d_v))


def test_worked_example(submission):
    # Small whole numbers, easy to follow by hand, drawn from the grading's seed like every input.
    gen = checks.seeded(0)
    q, k, v = (torch.randint(-1, 3, shape, generator=gen).float() for shape in ((2, 2), (3, 2), (3, 2)))
    check(submission, q, k, v)


def test_rows_are_weighted_averages(submission):
    # With every value row the same vector, any correct attention returns that vector.
    q, k, _ = inputs(1)
    v = checks.randn(checks.seeded(9), 1, 3).repeat(4, 1)
    check(submission, q, k, v, hint="each output row is an average of V's rows, weighted by one query's "
                                    "softmax over the keys")


SHAPES = {"2d": (), "batched": (2,), "heads": (2, 3)}


@pytest.mark.parametrize("lead", SHAPES.values(), ids=SHAPES.keys())
def test_matches_reference(submission, lead):
    check(submission, *inputs(2, *lead))


def test_more_keys_than_queries(submission):
    check(submission, *inputs(3, n_q=2, n_k=7))


def test_scaling_matters_for_wide_keys(submission):
    check(submission, *inputs(4, 2, d_k=64, scale=1.0))


def test_single_key(submission):
    # One key: every query puts all its weight on it, so the output is that value row.
    check(submission, *inputs(5, n_q=3, n_k=1))


def test_float64(submission):
    q, k, v = (t.double() for t in inputs(6))
    out = checks.call(submission, NAME, q, k, v)
    out = checks.expect_tensor(checks.first_output(out), "your output", shape=(3, 5), dtype=torch.float64)
    checks.assert_values(out, attention(q, k, v), what="your output", atol=1e-10, rtol=1e-10)


def test_gradient(submission):
    q, k, v = inputs(7, 2)
    grad_output = checks.randn(checks.seeded(8), 2, 3, 5)
    check(submission, q, k, v)
    leaves = [t.double().requires_grad_(True) for t in (q, k, v)]
    attention(*leaves).backward(grad_output.double())
    grads = checks.attempt(f"backpropagating through {checks.describe_call(NAME, q, k, v)}", submission.grad,
                           NAME, [q, k, v], grad_output)
    for name, actual, leaf in zip("QKV", grads, leaves):
        checks.assert_gradient(actual, leaf.grad, wrt=name, dtype=torch.float32, atol=1e-5, rtol=1e-4)
