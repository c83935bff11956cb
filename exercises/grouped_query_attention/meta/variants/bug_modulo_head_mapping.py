"""Reference solution: grouped-query attention (Ainslie et al. 2023)."""

import math

import torch
from torch import nn


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, n_kv_heads: int, bias: bool = False):
        super().__init__()
        assert d_model % n_heads == 0 and n_heads % n_kv_heads == 0
        self.n_heads, self.n_kv_heads, self.d_head = n_heads, n_kv_heads, d_model // n_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, n_kv_heads * self.d_head, bias=bias)
        self.W_v = nn.Linear(d_model, n_kv_heads * self.d_head, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        B, T, d_model = x.shape
        q = self.W_q(x).view(B, T, self.n_heads, self.d_head).transpose(1, 2)
        k = self.W_k(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        v = self.W_v(x).view(B, T, self.n_kv_heads, self.d_head).transpose(1, 2)
        group = self.n_heads // self.n_kv_heads
        k, v = k.repeat(1, group, 1, 1), v.repeat(1, group, 1, 1)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        heads = torch.softmax(scores, dim=-1) @ v
        return self.W_o(heads.transpose(1, 2).reshape(B, T, d_model))
