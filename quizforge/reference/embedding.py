"""Token and position tables."""

from __future__ import annotations

from torch import nn


class Embedding(nn.Embedding):
    """nn.Embedding that leaves meta tensors uninitialised.

    Its N(0, 1) init on 'meta' runs through PyTorch's Python reference ops, whose
    first use costs about 2 s of imports; a meta tensor has no values to set anyway.
    """

    def reset_parameters(self) -> None:
        if self.weight.device.type != "meta":
            super().reset_parameters()

