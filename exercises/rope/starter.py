"""Challenge: rotary position embedding (RoPE). See README.md."""

import torch


def apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotate x (..., T, d), d even, by position.

    Row t's pair (x[..., t, 2i], x[..., t, 2i+1]) turns by the angle positions[t] · base^(-2i/d).
    Returns a tensor of x's shape and dtype.
    """
    raise NotImplementedError("write apply_rope")
