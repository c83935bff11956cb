"""Challenge: layer normalisation. See README.md."""

import torch
from torch import nn


class LayerNorm(nn.Module):
    """y = (x - mean) / sqrt(var + eps) * weight + bias, over the last dimension of x.

    mean and var are taken over the last dimension of each vector; var is the biased
    variance (divided by d_model). weight and bias are learnable, of shape (d_model,).
    Do not use F.layer_norm or nn.LayerNorm.
    """

    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__()
        # self.weight: nn.Parameter of ones, self.bias: nn.Parameter of zeros, both (d_model,).
        raise NotImplementedError("create the parameters")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., d_model) -> (..., d_model), same dtype."""
        raise NotImplementedError("write forward")
