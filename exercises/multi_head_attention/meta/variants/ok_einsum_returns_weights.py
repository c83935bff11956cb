import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """einsum throughout, a large negative fill, and (output, weights) returned."""

    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.h = n_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key, value, mask=None):
        q = self.W_q(query).unflatten(-1, (self.h, -1))  # (B, n_q, h, d_head)
        k = self.W_k(key).unflatten(-1, (self.h, -1))
        v = self.W_v(value).unflatten(-1, (self.h, -1))
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / q.shape[-1] ** 0.5
        if mask is not None:
            scores = scores.masked_fill(mask == 0, -1e9)
        weights = scores.softmax(-1)
        out = torch.einsum("bhqk,bkhd->bqhd", weights, v).flatten(-2)
        return self.W_o(out), weights
