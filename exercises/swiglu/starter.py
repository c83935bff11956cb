"""Challenge: the SwiGLU feed-forward layer. See README.md."""

import torch
from torch import nn


class SwiGLU(nn.Module):
    """y = w2(silu(w1 x) * w3 x), where silu(z) = z * sigmoid(z).

    w1 and w3 are nn.Linear(d_model, d_ff, bias=False); w2 is nn.Linear(d_ff, d_model, bias=False).
    Do not use F.silu or nn.SiLU.
    """

    def __init__(self, d_model: int, d_ff: int) -> None:
        super().__init__()
        # self.w1, self.w2, self.w3: nn.Linear layers without bias.
        raise NotImplementedError("create w1, w2 and w3")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (..., d_model) -> (..., d_model), same dtype."""
        raise NotImplementedError("write forward")
