"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import math

import torch
import torch.nn.functional as F

from starter import scaled_dot_product_attention

Q = torch.tensor([[1.0, 0.0], [0.0, 2.0]])
K = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
V = torch.tensor([[1.0, 2.0, 0.0], [3.0, 4.0, 1.0], [5.0, 6.0, 0.0]])


def test_worked_example():
    output, weights = scaled_dot_product_attention(Q, K, V)
    torch.testing.assert_close(weights, torch.tensor([[0.4011, 0.1978, 0.4011],
                                                      [0.1084, 0.4458, 0.4458]]), atol=1e-4, rtol=0)
    torch.testing.assert_close(output, torch.tensor([[3.0000, 4.0000, 0.1978],
                                                     [3.6748, 4.6748, 0.4458]]), atol=1e-4, rtol=0)


def test_worked_example_with_mask():
    mask = torch.tensor([[True, False, False], [True, True, False]])
    output, weights = scaled_dot_product_attention(Q, K, V, mask)
    torch.testing.assert_close(weights, torch.tensor([[1.0000, 0.0000, 0.0000],
                                                      [0.1956, 0.8044, 0.0000]]), atol=1e-4, rtol=0)
    torch.testing.assert_close(output, torch.tensor([[1.0000, 2.0000, 0.0000],
                                                     [2.6089, 3.6089, 0.8044]]), atol=1e-4, rtol=0)


def test_batched_matches_pytorch():
    gen = torch.Generator().manual_seed(0)
    q, k, v = torch.randn(2, 3, 4, 8, generator=gen), torch.randn(2, 3, 5, 8, generator=gen), \
        torch.randn(2, 3, 5, 6, generator=gen)
    output, weights = scaled_dot_product_attention(q, k, v)
    assert output.shape == (2, 3, 4, 6) and weights.shape == (2, 3, 4, 5)
    torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v), atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(weights, torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(8), dim=-1),
                               atol=1e-5, rtol=1e-4)


def test_causal_mask_matches_pytorch():
    gen = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(2, 5, 4, generator=gen) for _ in range(3))
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    output, weights = scaled_dot_product_attention(q, k, v, causal)
    assert (weights[:, ~causal] == 0).all(), "a masked key must get weight 0"
    torch.testing.assert_close(output, F.scaled_dot_product_attention(q, k, v, attn_mask=causal),
                               atol=1e-5, rtol=1e-4)
