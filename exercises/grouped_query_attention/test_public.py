"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch

from starter import GroupedQueryAttention


def test_projection_shapes():
    m = GroupedQueryAttention(16, 4, 2)
    assert m.W_q.weight.shape == (16, 16) and m.W_o.weight.shape == (16, 16)
    assert m.W_k.weight.shape == (8, 16) and m.W_v.weight.shape == (8, 16)  # 2 kv heads of d_head 4


def test_output_shape():
    m = GroupedQueryAttention(16, 4, 1)
    assert m(torch.randn(2, 5, 16)).shape == (2, 5, 16)


def test_causal_mask_hides_the_future():
    torch.manual_seed(0)
    m = GroupedQueryAttention(8, 4, 2)
    x = torch.randn(1, 4, 8)
    mask = torch.tril(torch.ones(4, 4, dtype=torch.bool))
    y = x.clone()
    y[:, -1] += 1.0  # change the last token only
    assert torch.allclose(m(x, mask)[:, :3], m(y, mask)[:, :3], atol=1e-6)
