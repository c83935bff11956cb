"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch

from starter import CachedCausalSelfAttention


def test_returns_output_and_cache():
    m = CachedCausalSelfAttention(8, 2)
    out, cache = m(torch.randn(1, 3, 8))
    assert out.shape == (1, 3, 8) and cache is not None


def test_token_by_token_equals_one_pass():
    torch.manual_seed(0)
    m = CachedCausalSelfAttention(8, 2)
    x = torch.randn(2, 5, 8)
    full, _ = m(x)
    cache, outs = None, []
    for t in range(5):
        out, cache = m(x[:, t:t + 1], cache)
        outs.append(out)
    assert torch.allclose(torch.cat(outs, dim=1), full, atol=1e-5)


def test_first_token_sees_only_itself():
    torch.manual_seed(1)
    m = CachedCausalSelfAttention(4, 1)
    x = torch.randn(1, 3, 4)
    alone, _ = m(x[:, :1])
    together, _ = m(x)
    assert torch.allclose(together[:, 0], alone[:, 0], atol=1e-6)
