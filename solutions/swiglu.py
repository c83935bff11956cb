"""Reference solution: the SwiGLU feed-forward layer."""

import torch
from torch import nn


class SwiGLU(nn.Module):
    """w2(silu(w1 x) * w3 x): a SiLU-gated linear unit, then a projection back to d_model."""

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)  # the gate
        self.w3 = nn.Linear(d_model, d_ff, bias=False)  # the value it gates
        self.w2 = nn.Linear(d_ff, d_model, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        gate = self.w1(x)
        silu = gate * torch.sigmoid(gate)  # sigmoid saturates rather than overflowing
        return self.w2(silu * self.w3(x))
