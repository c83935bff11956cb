"""LayerNorm and RMSNorm over the last dimension."""

from __future__ import annotations

import torch
from torch import Tensor, nn


class LayerNorm(nn.Module):
    """(x - mean) / sqrt(var + eps) * weight + bias, with the biased variance."""

    accounting_component = "norms"

    def __init__(self, d_model: int, eps: float = 1e-5, bias: bool = True) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model)) if bias else None

    def forward(self, x: Tensor) -> Tensor:
        var, mean = torch.var_mean(x, dim=-1, keepdim=True, correction=0)
        y = (x - mean) * torch.rsqrt(var + self.eps) * self.weight
        return y + self.bias if self.bias is not None else y


class RMSNorm(nn.Module):
    """x / sqrt(mean(x²) + eps) * weight: no centring and no bias (Zhang & Sennrich 2019)."""

    accounting_component = "norms"

    def __init__(self, d_model: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x: Tensor) -> Tensor:
        return x * torch.rsqrt(x.pow(2).mean(dim=-1, keepdim=True) + self.eps) * self.weight


def make_norm(kind: str, d_model: int, eps: float) -> nn.Module:
    return RMSNorm(d_model, eps) if kind == "rmsnorm" else LayerNorm(d_model, eps)
