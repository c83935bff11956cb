"""Reference solution: rotary position embedding, interleaved pairs."""

import torch


def apply_rope(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Rotate each pair (x[..., 2i], x[..., 2i+1]) of row t by positions[t] · base^(-2i/d)."""
    d = x.shape[-1]
    two_i = torch.arange(0, d, 2, dtype=torch.float64)
    theta = positions.to(torch.float64)[:, None] * base ** (-two_i / d)[None, :]  # (T, d/2)
    cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
