import math

import torch
from torch import nn


class GroupedQueryAttention(nn.Module):
    """Queries reshaped into (kv head, group) instead of repeating the keys and values."""

    def __init__(self, d_model, n_heads, n_kv_heads, bias=False):
        super().__init__()
        self.h, self.kv, self.dh = n_heads, n_kv_heads, d_model // n_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, n_kv_heads * self.dh, bias=bias)
        self.W_v = nn.Linear(d_model, n_kv_heads * self.dh, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, x, mask=None):
        B, T, D = x.shape
        g = self.h // self.kv
        q = self.W_q(x).view(B, T, self.kv, g, self.dh)
        k = self.W_k(x).view(B, T, self.kv, self.dh)
        v = self.W_v(x).view(B, T, self.kv, self.dh)
        scores = torch.einsum("bqkgd,bskd->bkgqs", q, k) / math.sqrt(self.dh)
        if mask is not None:
            m = torch.broadcast_to(mask, (B, self.h, T, T)).reshape(B, self.kv, g, T, T)
            scores = scores.masked_fill(~m, float("-inf"))
        out = torch.einsum("bkgqs,bskd->bqkgd", scores.softmax(-1), v)
        return self.W_o(out.reshape(B, T, D))
