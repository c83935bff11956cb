"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch
from torch import nn

from starter import SwiGLU


def test_submodules():
    ffn = SwiGLU(4, 6)
    shapes = {name: list(p.shape) for name, p in ffn.named_parameters()}
    assert shapes == {"w1.weight": [6, 4], "w2.weight": [4, 6], "w3.weight": [6, 4]}, shapes
    assert all(isinstance(getattr(ffn, name), nn.Linear) for name in ("w1", "w2", "w3"))


def test_worked_example():
    ffn = SwiGLU(2, 3)
    ffn.load_state_dict({"w1.weight": torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
                         "w3.weight": torch.tensor([[1.0, 1.0], [2.0, 0.0], [0.0, -1.0]]),
                         "w2.weight": torch.tensor([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])})
    torch.testing.assert_close(ffn(torch.tensor([1.0, 2.0])), torch.tensor([-3.5223, 3.5232]), atol=1e-4, rtol=0)


def test_matches_the_formula_on_a_batch():
    torch.manual_seed(0)
    ffn = SwiGLU(8, 16)
    x = torch.randn(2, 5, 8)
    out = ffn(x)
    assert out.shape == x.shape and out.dtype == x.dtype
    gate = x @ ffn.w1.weight.T
    expected = (gate * torch.sigmoid(gate) * (x @ ffn.w3.weight.T)) @ ffn.w2.weight.T
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-4)


def test_large_pre_activations_stay_finite():
    ffn = SwiGLU(2, 2)
    eye = torch.eye(2)
    ffn.load_state_dict({"w1.weight": eye, "w2.weight": eye, "w3.weight": eye})
    out = ffn(torch.tensor([200.0, -200.0]))  # silu(200) = 200, silu(-200) ≈ 0
    torch.testing.assert_close(out, torch.tensor([40000.0, 0.0]), atol=1e-3, rtol=1e-5)
