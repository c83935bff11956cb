"""Positional information: sinusoidal tables, learned embeddings, rotary embeddings (RoPE)."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from quizforge.reference.embedding import Embedding


def sinusoidal_table(max_len: int, d_model: int, device: torch.device | str | None = None,
                     dtype: torch.dtype = torch.float32) -> Tensor:
    """PE[p, 2i] = sin(p / 10000^(2i/d_model)), PE[p, 2i+1] = cos(same angle). Shape (max_len, d_model)."""
    positions = torch.arange(max_len, device=device, dtype=torch.float64)[:, None]
    two_i = torch.arange(0, d_model, 2, device=device, dtype=torch.float64)
    angles = positions / torch.pow(torch.tensor(10000.0, dtype=torch.float64, device=device), two_i / d_model)
    pe = torch.empty(max_len, d_model, device=device, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles[:, : d_model // 2])  # odd d_model: the last column is a sine
    return pe.to(dtype)


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal table (Vaswani et al. 2017, §3.5). No parameters."""

    def __init__(self, d_model: int, max_len: int) -> None:
        super().__init__()
        # Computed on the CPU: on 'meta' these ops would cost seconds of first-use imports.
        self.register_buffer("pe", sinusoidal_table(max_len, d_model, device="cpu"), persistent=False)

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:  # x: (B, n, d_model)
        n = x.shape[-2]
        if offset + n > self.pe.shape[0]:
            raise ValueError(f"sequence of {offset + n} positions exceeds the table's {self.pe.shape[0]}")
        return x + self.pe[offset : offset + n].to(device=x.device, dtype=x.dtype)


class LearnedPositionalEmbedding(Embedding):
    """One trained vector per position (GPT, BERT): max_len × d_model parameters."""

    def __init__(self, max_len: int, d_model: int) -> None:
        super().__init__(max_len, d_model)

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:  # x: (B, n, d_model)
        n = x.shape[-2]
        if offset + n > self.num_embeddings:
            raise ValueError(f"sequence of {offset + n} positions exceeds max_len={self.num_embeddings}")
        positions = torch.arange(offset, offset + n, device=x.device)
        return x + super().forward(positions)


class RotaryEmbedding(nn.Module):
    """Rotates each (2i, 2i+1) pair of q and k by the angle pos · base^(-2i/d_head) (Su et al. 2021).

    Applied to queries and keys only, so q·k depends on the relative offset. No parameters.
    """

    def __init__(self, d_head: int, base: float = 10000.0) -> None:
        super().__init__()
        self.d_head = d_head
        self.base = base

    def inv_freq(self, device: torch.device | str | None = None) -> Tensor:
        """(d_head/2,) base^(-2i/d_head), always float64 (not a buffer, so model.to(dtype) leaves it alone)."""
        two_i = torch.arange(0, self.d_head, 2, device=device, dtype=torch.float64)
        return 1.0 / torch.pow(torch.tensor(self.base, dtype=torch.float64, device=device), two_i / self.d_head)

    def angles(self, positions: Tensor) -> Tensor:
        """(n,) positions -> (n, d_head/2) rotation angles, in float64 whatever the model's dtype:
        in bf16 the positions themselves round (256 and 257 are the same number)."""
        return positions.to(torch.float64)[:, None] * self.inv_freq(positions.device)[None, :]

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:  # x: (..., n, d_head)
        n = x.shape[-2]
        positions = torch.arange(offset, offset + n, device=x.device)
        theta = self.angles(positions)
        cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
        even, odd = x[..., 0::2], x[..., 1::2]
        rotated = torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1)
        return rotated.flatten(-2)


def rope_angle(position: int, pair: int, d_head: int, base: float = 10000.0) -> float:
    """Rotation angle (radians) of pair i at a position, for by-hand questions."""
    return position * base ** (-2 * pair / d_head)


def sinusoidal_angle(position: int, pair: int, d_model: int) -> float:
    return position / math.pow(10000.0, 2 * pair / d_model)
