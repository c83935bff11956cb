"""Challenge: multi-head attention. See README.md."""

import math

import torch
from torch import nn


class MultiHeadAttention(nn.Module):
    """Multi-head attention with n_heads heads of width d_head = d_model // n_heads.

    Submodules: W_q, W_k, W_v, W_o, each nn.Linear(d_model, d_model, bias=bias).
    Do not use F.scaled_dot_product_attention or nn.MultiheadAttention.
    """

    def __init__(self, d_model: int, n_heads: int, bias: bool = True) -> None:
        super().__init__()
        raise NotImplementedError("create W_q, W_k, W_v and W_o")

    def forward(self, query: torch.Tensor, key: torch.Tensor, value: torch.Tensor,
                mask: torch.Tensor | None = None) -> torch.Tensor:
        """query: (B, n_q, d_model); key and value: (B, n_k, d_model).

        mask: optional bool tensor broadcastable to (B, n_heads, n_q, n_k); True = may attend.
        Returns the output, (B, n_q, d_model).
        """
        raise NotImplementedError("write forward")
