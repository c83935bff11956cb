import math

import torch
import torch.nn.functional as F
from torch import nn


class MultiHeadAttention(nn.Module):
    """permute + contiguous().view, scaling the queries before the product, own stable softmax."""

    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.d_model, self.n_heads = d_model, n_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def forward(self, query, key, value, mask=None):
        B, n_q, _ = query.shape
        d_head = self.d_model // self.n_heads

        def heads(x):
            return x.reshape(B, -1, self.n_heads, d_head).permute(0, 2, 1, 3)

        q = heads(self.W_q(query)) / math.sqrt(d_head)
        k, v = heads(self.W_k(key)), heads(self.W_v(value))
        scores = torch.matmul(q, k.permute(0, 1, 3, 2))
        if mask is not None:
            scores = scores + torch.zeros_like(scores).masked_fill(~mask, -1e9)
        scores = scores - scores.amax(-1, keepdim=True)
        weights = scores.exp() / scores.exp().sum(-1, keepdim=True)
        out = torch.matmul(weights, v).permute(0, 2, 1, 3).contiguous().view(B, n_q, self.d_model)
        return F.linear(out, self.W_o.weight, self.W_o.bias)
