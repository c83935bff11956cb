"""Challenge: causal self-attention with a KV cache. See README.md."""

import torch
from torch import nn


class CachedCausalSelfAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int):
        super().__init__()
        raise NotImplementedError("create W_q, W_k, W_v and W_o")

    def forward(self, x: torch.Tensor, cache=None):
        """x (B, T_new, d_model), the tokens after those in `cache` -> (out, new cache)."""
        raise NotImplementedError("write forward")
