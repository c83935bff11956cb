"""Hidden suite for `cross_entropy(logits, targets)`: compared with F.cross_entropy in float64.

`mistaken_loss` below reproduces the classic wrong versions in the logits' own dtype
(overflow and underflow only show in float32), so that a failure can name them.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from quizforge.challenges import checks

ATOL, RTOL = 1e-5, 1e-5  # float32 losses of size ~1
FORMULA = "loss = mean over positions of (log sum_j exp(logits_j) - logits[target])"


def expected(logits, targets):
    return F.cross_entropy(logits.double().reshape(-1, logits.shape[-1]), targets.reshape(-1))


def mistaken_loss(logits, targets, *, shift="max", form="logsumexp", reduce="mean", negated=True):
    """One wrong version, in the logits' dtype. shift: "max" (each row's maximum subtracted),
    "none", or "not_added_back" (subtracted inside the log and never added back); form:
    "logsumexp" or "log_softmax" (the log of the softmax probabilities, which underflow to 0);
    reduce: "mean", "sum" or "vocab" (the mean over the classes too); negated: False gives
    the log-likelihood itself."""
    index = targets.unsqueeze(-1)
    shifted = logits if shift == "none" else logits - logits.amax(dim=-1, keepdim=True)
    exps = shifted.exp()
    if form == "log_softmax":
        nll = -(exps / exps.sum(dim=-1, keepdim=True)).log().gather(-1, index).squeeze(-1)
    else:
        target = logits if shift == "not_added_back" else shifted
        nll = exps.sum(dim=-1).log() - target.gather(-1, index).squeeze(-1)
    nll = nll.double()
    loss = {"mean": nll.mean(), "sum": nll.sum(), "vocab": nll.mean() / logits.shape[-1]}[reduce]
    return loss if negated else -loss


def known_mistakes(logits, targets) -> list[checks.Mistake]:
    variants = [
        ("exp overflows or underflows (in float32 exp(89) is inf and exp(-104) is 0): subtract each row's "
         "maximum from its logits before exp", dict(shift="none")),
        ("it takes the log of the softmax probabilities, and a probability that underflows to 0 has log -inf: "
         "compute log softmax as (logits - m) - log sum exp(logits - m)", dict(form="log_softmax")),
        ("the maximum is subtracted inside the log but never added back: log sum exp(x) = "
         "m + log sum exp(x - m), so use the shifted logit of the target too", dict(shift="not_added_back")),
        ("it returns the sum over the positions: return their mean", dict(reduce="sum")),
        ("it is averaged over the classes as well as the positions (the mean of one-hot * log-probabilities "
         "over every entry): average over the positions only", dict(reduce="vocab")),
        ("the sign is wrong: the loss is minus the log-probability of the target, so it is >= 0",
         dict(negated=False)),
    ]
    found = [(text, mistaken_loss(logits, targets, **switches)) for text, switches in variants]
    # Where two mistakes give the same loss (both inf, say), naming either one could mislead.
    return [(text, wrong) for text, wrong in found
            if not any(other is not wrong and checks.agrees(wrong, other, atol=ATOL, rtol=RTOL) for _, other in found)]


def check(submission, logits, targets, *, atol=ATOL, rtol=RTOL, hint=FORMULA):
    out = checks.call(submission, "cross_entropy", logits, targets)
    if isinstance(out, torch.Tensor) and list(out.shape) != []:
        raise AssertionError(f"your loss has shape {list(out.shape)}, expected [] (a 0-d tensor): "
                             "average over all positions, every entry of targets")
    out = checks.expect_tensor(out, "your loss", shape=[], dtype=logits.dtype)
    checks.assert_values(out, expected(logits, targets), what="your loss", atol=atol, rtol=rtol,
                         mistakes=known_mistakes(logits, targets), hint=hint)


def inputs(stream, *shape, scale=2.0, offset=0.0, dtype=torch.float32):
    gen = checks.seeded(stream)
    logits = checks.randn(gen, *shape, scale=scale, dtype=dtype) + offset
    targets = torch.randint(shape[-1], shape[:-1], generator=gen)
    return logits, targets


SHAPES = {"one-position": (7,), "rows": (5, 7), "batched": (2, 4, 7), "4d": (2, 2, 3, 7)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_matches_reference(submission, shape):
    check(submission, *inputs(10 + len(shape), *shape))


def test_mean_over_many_positions(submission):
    # 64 positions over a vocabulary of 50: a sum, or a mean over every class as well, is far off.
    check(submission, *inputs(20, 8, 8, 50), hint="the loss is the mean over the positions, a 0-d tensor")


def test_logits_scaled_by_1000(submission):
    logits, targets = inputs(30, 6, 9, scale=1000.0)
    # A float32 logit near 3000 is only accurate to about 2e-4.
    check(submission, logits, targets, atol=1e-3, rtol=1e-5,
          hint="large logits: subtract each row's maximum before exp, and add it back after the log")


def test_logits_near_plus_1000(submission):
    logits, targets = inputs(40, 6, 9, offset=1000.0)
    check(submission, logits, targets, atol=1e-3, rtol=1e-5,
          hint="exp(1000) is inf: subtract each row's maximum before exp")


def test_logits_near_minus_1000(submission):
    logits, targets = inputs(50, 6, 9, offset=-1000.0)
    check(submission, logits, targets, atol=1e-3, rtol=1e-5,
          hint="exp(-1000) is 0 and log 0 is -inf: subtract each row's maximum before exp")


def test_very_unlikely_targets(submission):
    # Each target's logit lies 150 below its row's maximum: its probability, e^-150, is 0 in float32,
    # but its log-probability, about -150, is not.
    logits, targets = inputs(55, 6, 9)
    index = targets.unsqueeze(-1)
    logits.scatter_(-1, index, logits.amax(dim=-1, keepdim=True) - 150.0 - logits.gather(-1, index).abs())
    check(submission, logits, targets, atol=1e-4, rtol=1e-5,
          hint="a probability can underflow to 0 where its log-probability is finite: "
               "compute log softmax as (logits - m) - log sum exp(logits - m), not as log(softmax)")


def test_a_single_class(submission):
    # With V = 1 every probability is 1 and the loss is exactly 0.
    logits, targets = inputs(60, 4, 1, scale=5.0)
    check(submission, logits, targets, hint="with one class, softmax is 1 and the loss is 0")


def test_float64_input(submission):
    logits, targets = inputs(70, 3, 6, dtype=torch.float64)
    check(submission, logits, targets, atol=1e-12, rtol=1e-10)


def test_gradient(submission):
    logits, targets = inputs(80, 3, 4, 6)
    check(submission, logits, targets)  # the forward pass alone must be right first
    grad_output = checks.randn(checks.seeded(81))
    leaf = logits.double().requires_grad_(True)
    expected(leaf, targets).backward(grad_output.double())
    grads = checks.attempt("backpropagating through cross_entropy(float32[3, 4, 6], int64[3, 4])",
                           submission.grad, "cross_entropy", [logits, targets], grad_output,
                           hint="the forward pass works, so make sure autograd can follow it (torch operations only)")
    checks.assert_gradient(grads[0], leaf.grad, wrt="logits", dtype=torch.float32, atol=1e-6, rtol=1e-4)
