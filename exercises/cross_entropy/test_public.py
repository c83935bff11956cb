"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch
import torch.nn.functional as F

from starter import cross_entropy


def test_worked_examples():
    logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.0]])
    out = cross_entropy(logits, torch.tensor([0, 1]))
    assert out.shape == () and out.dtype == torch.float32, "return a 0-d tensor of the logits' dtype"
    torch.testing.assert_close(out, torch.tensor(0.3069), atol=1e-4, rtol=0)
    torch.testing.assert_close(cross_entropy(torch.tensor([2.0, 1.0, 0.1]), torch.tensor(2)), torch.tensor(2.3170),
                               atol=1e-4, rtol=0)


def test_matches_pytorch_on_a_batch():
    gen = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 5, 11, generator=gen) * 3
    targets = torch.randint(11, (2, 5), generator=gen)
    expected = F.cross_entropy(logits.reshape(-1, 11), targets.reshape(-1))
    torch.testing.assert_close(cross_entropy(logits, targets), expected, atol=1e-5, rtol=1e-5)


def test_logits_scaled_by_1000_stay_finite():
    logits = torch.tensor([[2.0, 1.0, 0.1], [0.5, 2.5, 0.0]]) * 1000
    out = cross_entropy(logits, torch.tensor([0, 2]))
    assert torch.isfinite(out), "exp overflows: subtract each row's maximum first"
    torch.testing.assert_close(out, torch.tensor(1250.0), atol=1e-3, rtol=1e-5)
    shifted = cross_entropy(logits - 3000, torch.tensor([0, 2]))  # every exp(logit) underflows to 0
    torch.testing.assert_close(shifted, torch.tensor(1250.0), atol=1e-3, rtol=1e-5)
