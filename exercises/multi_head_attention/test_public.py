"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more.

PyTorch's own nn.MultiheadAttention serves as the reference here (the hidden suite uses another).
Its bool attn_mask has the opposite meaning (True = masked), hence the `~mask` below.
"""

import torch
from torch import nn

from starter import MultiHeadAttention


def pytorch_twin(module: MultiHeadAttention, d_model: int, n_heads: int) -> nn.MultiheadAttention:
    """An nn.MultiheadAttention with the same weights as `module`."""
    twin = nn.MultiheadAttention(d_model, n_heads, batch_first=True)
    with torch.no_grad():
        twin.in_proj_weight.copy_(torch.cat([module.W_q.weight, module.W_k.weight, module.W_v.weight]))
        twin.in_proj_bias.copy_(torch.cat([module.W_q.bias, module.W_k.bias, module.W_v.bias]))
        twin.out_proj.weight.copy_(module.W_o.weight)
        twin.out_proj.bias.copy_(module.W_o.bias)
    return twin


def output_of(result):
    return result[0] if isinstance(result, tuple) else result


def test_projections():
    module = MultiHeadAttention(8, 2)
    for name in ("W_q", "W_k", "W_v", "W_o"):
        layer = getattr(module, name)
        assert isinstance(layer, nn.Linear) and layer.weight.shape == (8, 8) and layer.bias is not None
    assert all(getattr(MultiHeadAttention(8, 2, bias=False), n).bias is None for n in ("W_q", "W_k", "W_v", "W_o"))


def test_cross_attention_matches_pytorch():
    torch.manual_seed(0)
    module = MultiHeadAttention(8, 2)
    query, key, value = torch.randn(2, 3, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8)
    with torch.no_grad():
        out = output_of(module(query, key, value))
        expected, _ = pytorch_twin(module, 8, 2)(query, key, value)
    assert out.shape == (2, 3, 8)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-4)


def test_causal_self_attention_matches_pytorch():
    torch.manual_seed(1)
    module = MultiHeadAttention(12, 3)
    x = torch.randn(2, 4, 12)
    causal = torch.ones(4, 4, dtype=torch.bool).tril()
    with torch.no_grad():
        out = output_of(module(x, x, x, mask=causal))
        expected, _ = pytorch_twin(module, 12, 3)(x, x, x, attn_mask=~causal)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-4)
