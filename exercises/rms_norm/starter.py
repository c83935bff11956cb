"""Challenge: RMS normalisation. See README.md."""

import torch
from torch import nn


class RMSNorm(nn.Module):
    """y = x / sqrt(mean(x², -1) + eps) * weight, over the last dimension of x.

    Unlike LayerNorm, no mean is subtracted and there is no bias. weight is learnable,
    of shape (d_model,), and starts as ones. Do not use F.rms_norm or nn.RMSNorm.
    """

    def __init__(self, d_model: int, eps: float = 1e-5) -> None:
        super().__init__()
        # self.weight: nn.Parameter of ones, (d_model,).
        raise NotImplementedError("create the parameter")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., d_model) -> (..., d_model), same dtype."""
        raise NotImplementedError("write forward")
