import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model, n_heads, bias=True):
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.W_q = nn.Linear(d_model, d_model, bias=bias)
        self.W_k = nn.Linear(d_model, d_model, bias=bias)
        self.W_v = nn.Linear(d_model, d_model, bias=bias)
        self.W_o = nn.Linear(d_model, d_model, bias=bias)

    def split(self, x):
        B, n, _ = x.shape
        return x.view(B, n, self.n_heads, self.d_head).transpose(1, 2)

    def forward(self, query, key, value, mask=None):
        q, k, v = self.split(self.W_q(query)), self.split(self.W_k(key)), self.split(self.W_v(value))
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.d_head)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        heads = torch.softmax(scores, dim=-1) @ v
        B, _, n_q, _ = heads.shape
        return heads.transpose(1, 2).reshape(B, n_q, -1)  # Bug: W_o never applied.
