"""Challenge: grouped-query attention. See README.md."""

import torch
from torch import nn


class GroupedQueryAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, n_kv_heads: int, bias: bool = False):
        super().__init__()
        raise NotImplementedError("create W_q, W_k, W_v and W_o")

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """x (B, T, d_model) -> (B, T, d_model); mask True where a query may attend to a key."""
        raise NotImplementedError("write forward")
