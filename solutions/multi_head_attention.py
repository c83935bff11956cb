"""Reference solution: multi-head attention."""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """n_heads heads of width d_head = d_model / n_heads, each attending on its own slice
    of the projected queries, keys and values; the heads are concatenated and projected by W_o."""

    def __init__(self, d_model: int, n_heads: int, bias: bool = True) -> None:
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        """(B, n, d_model) -> (B, n_heads, n, d_head)."""
        B, n, _ = x.shape
        # Heads are slices of the feature dim: split it, then bring the head dim forward.
        return x.view(B, n, self.n_heads, self.d_head).transpose(1, 2)

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                mask: torch.Tensor | None = None) -> torch.Tensor:
        """query (B, n_q, d_model), key and value (B, n_k, d_model);
        mask: bool, broadcastable to (B, n_heads, n_q, n_k), True = may attend.
        Returns the output, (B, n_q, d_model)."""
        q = self._split_heads(self.W_q(query))
        k = self._split_heads(self.W_k(key))
        v = self._split_heads(self.W_v(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)  # (B, n_heads, n_q, n_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        heads = torch.softmax(scores, dim=-1) @ v  # (B, n_heads, n_q, d_head)
        B, _, n_q, _ = heads.shape
        # Undo the split: heads back next to each other in the feature dim.
        merged = heads.transpose(1, 2).reshape(B, n_q, self.n_heads * self.d_head)
        return self.W_o(merged)
