"""Challenge: a pre-norm transformer block. See README.md."""

import torch
from torch import nn


class TransformerBlock(nn.Module):
    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        raise NotImplementedError("create ln1, attn (with W_q, W_k, W_v, W_o), ln2 and ffn")

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        """x (B, T, d_model) -> (B, T, d_model); mask True where a query may attend to a key."""
        raise NotImplementedError("write forward")
