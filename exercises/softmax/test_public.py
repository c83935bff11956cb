"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch

from starter import softmax


def test_worked_example():
    out = softmax(torch.tensor([1.0, 2.0, 3.0]))
    torch.testing.assert_close(out, torch.tensor([0.0900, 0.2447, 0.6652]), atol=1e-4, rtol=0)


def test_matches_torch_along_rows_and_columns():
    x = torch.randn(4, 6, generator=torch.Generator().manual_seed(0))
    for dim in (-1, 0):
        torch.testing.assert_close(softmax(x, dim=dim), torch.softmax(x, dim=dim), atol=1e-6, rtol=1e-5)


def test_large_logits_stay_finite():
    # Adding the same constant to every logit does not change the softmax.
    out = softmax(torch.tensor([1000.0, 1001.0, 1002.0]))
    assert torch.isfinite(out).all(), "exp(1000) overflows: subtract the maximum first"
    torch.testing.assert_close(out, softmax(torch.tensor([0.0, 1.0, 2.0])), atol=1e-6, rtol=1e-5)


def test_slices_sum_to_one():
    x = torch.randn(2, 3, 5, generator=torch.Generator().manual_seed(1))
    out = softmax(x, dim=1)
    assert out.shape == x.shape and out.dtype == x.dtype
    torch.testing.assert_close(out.sum(dim=1), torch.ones(2, 5), atol=1e-5, rtol=0)
