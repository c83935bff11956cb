"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch
from torch import nn

from starter import TransformerBlock


def test_submodules():
    b = TransformerBlock(8, 2, 32)
    assert isinstance(b.ln1, nn.LayerNorm) and isinstance(b.ln2, nn.LayerNorm)
    assert all(isinstance(getattr(b.attn, n), nn.Linear) for n in ("W_q", "W_k", "W_v", "W_o"))
    assert [type(m) for m in b.ffn] == [nn.Linear, nn.GELU, nn.Linear]


def test_output_shape():
    assert TransformerBlock(8, 2, 32)(torch.randn(2, 5, 8)).shape == (2, 5, 8)


def test_zero_sublayers_leave_the_input_unchanged():
    # With W_o and the last feed-forward layer at zero, both residual branches add nothing.
    b = TransformerBlock(8, 2, 32)
    with torch.no_grad():
        for layer in (b.attn.W_o, b.ffn[2]):
            layer.weight.zero_()
            layer.bias.zero_()
    x = torch.randn(1, 4, 8)
    assert torch.allclose(b(x), x)
