"""Hidden suite for `scaled_dot_product_attention(Q, K, V, mask=None) -> (output, weights)`.

Expected values come from the reference implementation in float64; the
submission runs in float32. Masks never leave a query with nothing to attend
to, except in the one test that checks such rows are not graded.
"""

from __future__ import annotations

import math

import pytest
import torch

from quizforge.challenges import checks, mistakes
from quizforge.challenges.reference import causal_mask, scaled_dot_product_attention as reference

NAME = "scaled_dot_product_attention"
ATOL, RTOL = 1e-5, 1e-4  # float32 weights and outputs of size ~1
MASK_HINT = ("A mask entry True means the query may attend to that key; "
             "set the masked scores to -inf (or a large negative number) before the softmax")
BATCH_HINT = "it works without batch dims: use K.transpose(-2, -1), not K.T (which reverses every dim)"


def run(submission, Q, K, V, mask=None):
    """Call the submission and check the types and shapes of (output, weights)."""
    kwargs = {} if mask is None else {"mask": mask}
    try:
        result = checks.call(submission, NAME, Q, K, V, **kwargs)
    except AssertionError as failure:
        if Q.dim() > 2 and works_unbatched(submission, Q, K, V):
            raise AssertionError(f"{failure} — {BATCH_HINT}") from None
        raise
    output, weights = checks.expect_pair(result, NAME)
    lead = list(torch.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2]))
    output = checks.expect_tensor(output, "the output", shape=lead + [Q.shape[-2], V.shape[-1]], dtype=Q.dtype)
    weights = checks.expect_tensor(weights, "the weights", shape=lead + [Q.shape[-2], K.shape[-2]], dtype=Q.dtype)
    return output, weights


def works_unbatched(submission, Q, K, V) -> bool:
    first = (0,) * (Q.dim() - 2)
    try:
        submission.call(NAME, Q[first], K[first], V[first])
    except Exception:  # noqa: BLE001 - only asking whether it runs at all
        return False
    return True


def known_mistakes(Q, K, V, mask=None) -> list[tuple[str, tuple[torch.Tensor, torch.Tensor]]]:
    d_k, d_v = Q.shape[-1], V.shape[-1]
    variants = [
        ("the softmax runs over the queries (dim=-2) instead of over the keys (the last dim)",
         dict(softmax_dim=-2)),
        ("the scores are not scaled: divide Q Kᵀ by √d_k", dict(divisor=1.0)),
        (f"the scores are divided by √d_v (d_v = {d_v}) instead of √d_k (d_k = {d_k})",
         dict(divisor=math.sqrt(d_v))),
        ("the scores are divided by d_k instead of √d_k", dict(divisor=float(d_k))),
        ("exp overflows on large scores: subtract each row's maximum before exp, or use torch.softmax",
         dict(stable=False)),
    ]
    if mask is not None:
        variants += [
            ("the mask is inverted: True means the query may attend to the key", dict(mask_mode="inverted")),
            ("the mask is ignored: set the masked scores to -inf before the softmax", dict(mask_mode="ignored")),
            ("the mask is applied after the softmax, so the rows no longer sum to 1: "
             "fill the masked scores with -inf before the softmax", dict(mask_mode="after_softmax")),
            ("masked scores are multiplied by 0, and a score of 0 still gets weight: "
             "fill them with -inf (or a large negative number) instead", dict(mask_mode="multiply")),
        ]
    return [(text, mistakes.attention(Q, K, V, mask, **switches)) for text, switches in variants]


def check(submission, Q, K, V, mask=None, *, atol=ATOL, rtol=RTOL, hint="", ignore_rows=None):
    output, weights = run(submission, Q, K, V, mask)
    expected_output, expected_weights = reference(Q.double(), K.double(), V.double(), mask)
    wrong = known_mistakes(Q, K, V, mask)
    ignore = None if ignore_rows is None else ignore_rows.unsqueeze(-1)
    checks.assert_values(weights, expected_weights, what="the weights", atol=atol, rtol=rtol,
                         mistakes=[(text, w) for text, (_, w) in wrong], hint=hint, ignore=ignore)
    checks.assert_values(output, expected_output, what="the output", atol=atol, rtol=rtol,
                         mistakes=[(text, o) for text, (o, _) in wrong], hint=hint, ignore=ignore)


def inputs(seed, batch, n_q, n_k, d_k, d_v, scale=1.0):
    gen = checks.seeded(seed)
    return (checks.randn(gen, *batch, n_q, d_k, scale=scale), checks.randn(gen, *batch, n_k, d_k, scale=scale),
            checks.randn(gen, *batch, n_k, d_v))


# (batch dims, n_q, n_k, d_k, d_v): n_q ≠ n_k and d_v ≠ d_k, and √d_k, √d_v, d_k all differ.
CASES = {
    "unbatched": ((), 3, 5, 4, 6),
    "batched": ((2,), 4, 3, 8, 3),
    "batch-and-heads": ((2, 3), 5, 6, 4, 2),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_output_and_weights_shapes(submission, case):
    run(submission, *inputs(10, *case))


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_matches_reference(submission, case):
    check(submission, *inputs(20, *case))


def test_weights_rows_sum_to_one(submission):
    Q, K, V = inputs(30, (2,), 4, 6, 4, 3)
    _, weights = run(submission, Q, K, V)
    checks.assert_sums_to_one(weights, what="the weights", dim=-1, atol=1e-5,
                              hint="is the softmax over the last dimension (the keys)?")


def test_causal_mask(submission):
    Q, K, V = inputs(40, (2,), 5, 5, 4, 3)
    check(submission, Q, K, V, causal_mask(5), hint=MASK_HINT)


def test_random_mask(submission):
    Q, K, V = inputs(50, (2,), 3, 6, 4, 5)
    check(submission, Q, K, V, checks.random_mask(checks.seeded(51), 2, 3, 6), hint=MASK_HINT)


def test_padding_mask(submission):
    # (B, 1, 1, n_k): per-sequence padding, broadcast over heads and queries.
    Q, K, V = inputs(60, (2, 2), 3, 5, 4, 3)
    lengths = torch.tensor([5, 2])
    mask = (torch.arange(5)[None, :] < lengths[:, None])[:, None, None, :]
    check(submission, Q, K, V, mask, hint=MASK_HINT)


def test_fully_masked_rows_are_not_graded(submission):
    # A query with no key to attend to has no defined output (NaN with -inf, uniform with -1e9):
    # only the other rows are checked.
    Q, K, V = inputs(70, (), 4, 5, 4, 3)
    mask = checks.random_mask(checks.seeded(71), 4, 5)
    mask[2] = False
    check(submission, Q, K, V, mask, hint=MASK_HINT, ignore_rows=~mask.any(-1))


def test_large_scores(submission):
    # Scores of several hundred: exp overflows in float32 unless the softmax is stable.
    # A float32 score of ~500 is only good to ~3e-5, hence the looser tolerance.
    Q, K, V = inputs(80, (2,), 4, 5, 4, 3, scale=15.0)
    check(submission, Q, K, V, atol=1e-4, rtol=1e-3,
          hint="large scores: subtract each row's maximum before exp, or use torch.softmax")


def test_float64_inputs(submission):
    gen = checks.seeded(90)
    Q, K, V = (checks.randn(gen, 2, n, d, dtype=torch.float64) for n, d in ((3, 4), (5, 4), (5, 2)))
    output, weights = run(submission, Q, K, V)
    expected_output, expected_weights = reference(Q, K, V)
    wrong = known_mistakes(Q, K, V)
    checks.assert_values(weights, expected_weights, what="the float64 weights", atol=1e-12, rtol=1e-10,
                         mistakes=[(text, w) for text, (_, w) in wrong])
    checks.assert_values(output, expected_output, what="the float64 output", atol=1e-12, rtol=1e-10,
                         mistakes=[(text, o) for text, (o, _) in wrong])


def test_gradients(submission):
    Q, K, V = inputs(100, (2,), 3, 5, 4, 6)
    mask = checks.random_mask(checks.seeded(101), 2, 3, 5)
    grad_output = checks.randn(checks.seeded(102), 2, 3, 6)
    run(submission, Q, K, V, mask)  # the forward pass alone must work first
    leaves = [t.double().requires_grad_(True) for t in (Q, K, V)]
    reference(*leaves, mask)[0].backward(grad_output.double())
    grads = checks.attempt(f"backpropagating through {checks.describe_call(NAME, Q, K, V, mask=mask)}",
                           submission.grad, NAME, [Q, K, V], grad_output, {"mask": mask},
                           hint="the forward pass works, so make sure autograd can follow it (torch operations only)")
    assert isinstance(grads, (list, tuple)) and len(grads) == 3, "expected one gradient per input Q, K, V"
    for name, actual, leaf in zip("QKV", grads, leaves):
        checks.assert_gradient(actual, leaf.grad, wrt=name, dtype=torch.float32, atol=1e-5, rtol=1e-4)
