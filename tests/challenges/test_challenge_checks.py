"""The hidden suites' helpers: assertion messages, and the models of classic mistakes.

Each mistake model, with every switch at its default, must agree with the trusted
reference: a mistake is the correct computation with exactly one thing changed.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from quizforge.challenges import checks, mistakes
from quizforge.challenges.submission import SubmissionError
from quizforge.reference.attention import causal_mask, scaled_dot_product_attention
from quizforge.reference.mha import MultiHeadAttention
from quizforge.reference.positional import sinusoidal_table


def gen():
    return torch.Generator().manual_seed(0)


# --- checks ----------------------------------------------------------------------------------

def test_assert_values_accepts_values_within_tolerance():
    expected = torch.tensor([1.0, 2.0, 3.0])
    checks.assert_values(expected + 5e-6, expected, what="x", atol=1e-5, rtol=0)


def test_assert_values_reports_the_worst_error_and_the_tolerance():
    expected = torch.zeros(2, 3)
    actual = expected.clone()
    actual[1, 2] = 0.5
    actual[0, 0] = 0.1
    with pytest.raises(AssertionError) as failure:
        checks.assert_values(actual, expected, what="your output", atol=1e-5, rtol=1e-4, hint="check the axis")
    message = str(failure.value)
    assert "largest error is 0.5, at index (1, 2)" in message
    assert "atol=1e-05, rtol=0.0001" in message and message.endswith("— check the axis")


def test_assert_values_counts_values_that_are_not_finite():
    actual = torch.tensor([float("nan"), 1.0, float("inf")])
    with pytest.raises(AssertionError, match="2 of 3 values are NaN or infinite"):
        checks.assert_values(actual, torch.ones(3), what="x", atol=1e-5, rtol=0)


def test_assert_values_names_the_matching_mistake():
    expected = torch.tensor([0.2, 0.8])
    mistakes_ = [("it is reversed", torch.tensor([0.8, 0.2])), ("it is uniform", torch.tensor([0.5, 0.5]))]
    with pytest.raises(AssertionError, match=r"^x: it is uniform \(your values match this mistake"):
        checks.assert_values(torch.tensor([0.5, 0.5]), expected, what="x", atol=1e-6, rtol=0, mistakes=mistakes_)


def test_a_mistake_that_gives_the_right_answer_is_not_named():
    # On these inputs the "mistake" is harmless, so it cannot explain a wrong answer.
    expected = torch.tensor([1.0, 2.0])
    with pytest.raises(AssertionError) as failure:
        checks.assert_values(torch.tensor([1.0, 3.0]), expected, what="x", atol=1e-6, rtol=0,
                             mistakes=[("harmless", expected.clone())])
    assert "harmless" not in str(failure.value)


def test_a_mistake_giving_nan_is_recognised():
    wrong = torch.tensor([float("nan"), 1.0])
    with pytest.raises(AssertionError, match="overflow"):
        checks.assert_values(wrong.clone(), torch.tensor([0.5, 0.5]), what="x", atol=1e-6, rtol=0,
                             mistakes=[("overflow", wrong)])


def test_ignored_values_are_not_graded():
    expected = torch.zeros(2, 2)
    actual = torch.tensor([[float("nan"), float("nan")], [0.0, 0.0]])
    checks.assert_values(actual, expected, what="x", atol=1e-6, rtol=0, ignore=torch.tensor([[True], [False]]))
    with pytest.raises(AssertionError):
        checks.assert_values(actual, expected, what="x", atol=1e-6, rtol=0, ignore=torch.tensor([[False], [True]]))


def test_assert_sums_to_one_names_the_row():
    weights = torch.tensor([[0.5, 0.5], [0.5, 0.23]])
    with pytest.raises(AssertionError, match=r"row 1 of the weights sums to 0.73 along dim=-1"):
        checks.assert_sums_to_one(weights, what="the weights", dim=-1, atol=1e-5)
    checks.assert_sums_to_one(weights, what="the weights", dim=-1, atol=1e-5, ignore_rows=torch.tensor([False, True]))


def test_expect_tensor_checks_type_then_dtype_then_shape():
    with pytest.raises(AssertionError, match="should be a torch.Tensor, got list"):
        checks.expect_tensor([1.0], "x", shape=(1,), dtype=torch.float32)
    with pytest.raises(AssertionError, match="dtype torch.float64, expected torch.float32"):
        checks.expect_tensor(torch.zeros(2, dtype=torch.float64), "x", shape=(3,), dtype=torch.float32)
    with pytest.raises(AssertionError, match=r"shape \[2\], expected \[3\]"):
        checks.expect_tensor(torch.zeros(2), "x", shape=(3,), dtype=torch.float32)


def test_gradient_check_explains_a_missing_or_zero_gradient():
    with pytest.raises(AssertionError, match="no gradient reached Q"):
        checks.assert_gradient(None, torch.ones(2), wrt="Q", dtype=torch.float32, atol=1e-6, rtol=0)
    with pytest.raises(AssertionError, match="all zeros"):
        checks.assert_gradient(torch.zeros(2), torch.ones(2), wrt="Q", dtype=torch.float32, atol=1e-6, rtol=0)


def test_attempt_turns_a_submission_failure_into_one_line():
    def fails():
        raise SubmissionError("error", "x" * 1000, exc_type="RuntimeError", lineno=3)

    with pytest.raises(AssertionError) as failure:
        checks.attempt("softmax(float32[2, 3])", fails, hint="try this")
    message = str(failure.value)
    assert message.startswith("softmax(float32[2, 3]) raised RuntimeError: xxx")
    assert message.endswith("— try this") and len(message) < 300

    def times_out():
        raise SubmissionError("timeout", "no answer in 10 s")

    with pytest.raises(AssertionError, match=r"failed \(timeout\): no answer in 10 s"):
        checks.attempt("f()", times_out)


def test_calls_are_described_by_dtype_and_shape_not_values():
    described = checks.describe_call("f", torch.zeros(2, 3), [torch.ones(1, dtype=torch.bool)], mask=None, dim=-1)
    assert described == "f(float32[2, 3], [bool[1]], mask=None, dim=-1)"


def test_random_mask_rows_allow_and_forbid_something():
    mask = checks.random_mask(gen(), 50, 4, 3)
    assert mask.dtype == torch.bool and mask.shape == (50, 4, 3)
    assert mask.any(-1).all() and (~mask).any(-1).all()
    assert not (mask == mask[0]).all()  # and is not the same everywhere


# --- the mistake models agree with the references when nothing is changed ----------------------------

def test_softmax_model():
    x = checks.randn(gen(), 3, 4, 5)
    for dim in (0, 1, -1):
        torch.testing.assert_close(mistakes.softmax(x, dim), torch.softmax(x, dim))
        torch.testing.assert_close(mistakes.stable_softmax(x, dim), torch.softmax(x, dim))
    assert mistakes.softmax(x, -1, keepdim=False) is None  # (3, 4, 5) / (3, 4) does not broadcast
    assert torch.isnan(mistakes.softmax(x + 1000, -1, shift="none")).all()


def test_attention_model():
    g = gen()
    q, k, v = checks.randn(g, 2, 3, 4), checks.randn(g, 2, 5, 4), checks.randn(g, 2, 5, 6)
    mask = checks.random_mask(g, 2, 3, 5)
    for m in (None, mask):
        for got, want in zip(mistakes.attention(q, k, v, m), scaled_dot_product_attention(q, k, v, m)):
            torch.testing.assert_close(got, want)
    weights = mistakes.attention(q, k, v, mask, divisor=1.0)[1]
    torch.testing.assert_close(weights, torch.softmax((q @ k.transpose(-2, -1)).masked_fill(~mask, -math.inf), -1))
    inverted = mistakes.attention(q, k, v, mask, mask_mode="inverted")[1]
    assert (inverted[mask] == 0).all()


@pytest.mark.parametrize("bias", [True, False])
def test_multi_head_attention_model(bias):
    g = gen()
    reference = MultiHeadAttention(12, 3, bias=bias)
    state = {name: checks.randn(g, *t.shape, scale=0.3) for name, t in reference.state_dict().items()}
    reference.load_state_dict(state)
    query, key, value = checks.randn(g, 2, 3, 12), checks.randn(g, 2, 5, 12), checks.randn(g, 2, 5, 12)
    mask = checks.random_mask(g, 2, 3, 3, 5)
    with torch.no_grad():
        for m in (None, mask, causal_mask(5)[None, None, :3]):
            torch.testing.assert_close(mistakes.multi_head_attention(state, query, key, value, 3, m),
                                       reference(query, key, value, m)[0])
    # One head: the split and merge transposes change nothing.
    one_head = {name: t[:12] for name, t in state.items()}
    torch.testing.assert_close(
        mistakes.multi_head_attention(one_head, query, key, value, 1, split_transpose=False, merge_transpose=False),
        mistakes.multi_head_attention(one_head, query, key, value, 1))


def test_sinusoidal_model():
    torch.testing.assert_close(mistakes.sinusoidal(50, 16), sinusoidal_table(50, 16, dtype=torch.float64))
    swapped = mistakes.sinusoidal(5, 4, layout="swapped")
    torch.testing.assert_close(swapped[:, 0::2], sinusoidal_table(5, 4, dtype=torch.float64)[:, 1::2])
    halves = mistakes.sinusoidal(5, 4, layout="halves")
    torch.testing.assert_close(halves[:, :2], sinusoidal_table(5, 4, dtype=torch.float64)[:, 0::2])


def test_layer_norm_model():
    g = gen()
    x, weight, bias = checks.randn(g, 2, 3, 6), checks.randn(g, 6), checks.randn(g, 6)
    torch.testing.assert_close(mistakes.layer_norm(x, weight, bias, 1e-5), F.layer_norm(x, (6,), weight, bias, 1e-5))
    unbiased = mistakes.layer_norm(x, torch.ones(6), torch.zeros(6), 0.0, correction=1)
    torch.testing.assert_close(unbiased, (x - x.mean(-1, keepdim=True)) / x.std(-1, keepdim=True))
