import math

import torch
from torch import nn


class CachedCausalSelfAttention(nn.Module):
    """The cache as a dict, and the mask from explicit positions."""

    def __init__(self, d_model, n_heads):
        super().__init__()
        self.h, self.dh = n_heads, d_model // n_heads
        self.W_q, self.W_k = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)
        self.W_v, self.W_o = nn.Linear(d_model, d_model), nn.Linear(d_model, d_model)

    def forward(self, x, cache=None):
        B, T, D = x.shape
        split = lambda t: t.view(B, T, self.h, self.dh).transpose(1, 2)  # noqa: E731
        q, k, v = split(self.W_q(x)), split(self.W_k(x)), split(self.W_v(x))
        if cache:
            k, v = torch.cat([cache["k"], k], 2), torch.cat([cache["v"], v], 2)
        n = k.shape[2]
        q_pos = torch.arange(n - T, n)[:, None]
        k_pos = torch.arange(n)[None, :]
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(self.dh)
        scores = scores.masked_fill(k_pos > q_pos, float("-inf"))
        out = scores.softmax(-1) @ v
        return self.W_o(out.transpose(1, 2).reshape(B, T, D)), {"k": k, "v": v}
