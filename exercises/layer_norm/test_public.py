"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch
import torch.nn.functional as F

from starter import LayerNorm


def test_parameters():
    norm = LayerNorm(4)
    params = dict(norm.named_parameters())
    assert set(params) == {"weight", "bias"}, f"parameters {sorted(params)}, expected weight and bias"
    assert torch.equal(params["weight"], torch.ones(4)) and torch.equal(params["bias"], torch.zeros(4))


def test_worked_example():
    out = LayerNorm(4)(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    torch.testing.assert_close(out, torch.tensor([-1.3416, -0.4472, 0.4472, 1.3416]), atol=1e-4, rtol=0)


def test_matches_pytorch_with_trained_parameters():
    gen = torch.Generator().manual_seed(0)
    norm = LayerNorm(6)
    weight, bias = torch.randn(6, generator=gen), torch.randn(6, generator=gen)
    norm.load_state_dict({"weight": weight, "bias": bias})
    x = torch.randn(2, 3, 6, generator=gen) * 3 + 1
    torch.testing.assert_close(norm(x), F.layer_norm(x, (6,), weight, bias, 1e-5), atol=1e-5, rtol=1e-4)


def test_small_variance_and_custom_eps():
    x = torch.randn(3, 8, generator=torch.Generator().manual_seed(1)) * 1e-3  # variance ~1e-6
    for eps in (1e-5, 0.1):
        torch.testing.assert_close(LayerNorm(8, eps=eps)(x), F.layer_norm(x, (8,), eps=eps), atol=1e-4, rtol=1e-4)
