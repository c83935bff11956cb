import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """One head at a time on column slices, then concatenated."""

    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key, value, mask=None):
        Q, K, V = self.W_q(query), self.W_k(key), self.W_v(value)
        if mask is not None:
            mask = torch.broadcast_to(mask, (Q.shape[0], self.n_heads, Q.shape[1], K.shape[1]))
        heads = []
        for h in range(self.n_heads):
            cols = slice(h * self.d_head, (h + 1) * self.d_head)
            scores = torch.bmm(Q[..., cols], K[..., cols].transpose(1, 2)) / math.sqrt(self.d_head)
            if mask is not None:
                scores = torch.where(mask[:, h], scores, torch.full_like(scores, float("-inf")))
            heads.append(torch.bmm(torch.softmax(scores, dim=-1), V[..., cols]))
        return self.W_o(torch.cat(heads, dim=-1))
