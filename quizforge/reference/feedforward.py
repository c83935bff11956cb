"""Position-wise feed-forward networks: ReLU, GELU and SwiGLU."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor, nn


class FeedForward(nn.Module):
    """W_2 · act(W_1 x + b_1) + b_2 for relu/gelu; W_2 · (silu(W_1 x) ⊙ W_3 x) for swiglu.

    SwiGLU (Shazeer 2020) has a third matrix, W_3, the gate's linear branch.
    """

    accounting_component = "ffn"

    def __init__(self, d_model: int, d_ff: int, activation: str = "relu", bias: bool = True,
                 dropout: float = 0.0) -> None:
        super().__init__()
        self.activation = activation
        self.W_1 = nn.Linear(d_model, d_ff, bias=bias)
        self.W_3 = nn.Linear(d_model, d_ff, bias=bias) if activation == "swiglu" else None
        self.W_2 = nn.Linear(d_ff, d_model, bias=bias)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:  # (..., d_model) -> (..., d_model)
        h = self.W_1(x)
        if self.activation == "relu":
            h = F.relu(h)
        elif self.activation == "gelu":
            h = F.gelu(h)
        else:
            h = F.silu(h) * self.W_3(x)
        return self.W_2(self.dropout(h))
