"""Positional information: sinusoidal tables, learned embeddings, rotary embeddings (RoPE)."""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from quizforge.reference.embedding import Embedding


def sinusoidal_angles(positions: Tensor, d_model: int) -> Tensor:
    """(n,) positions -> (n, ceil(d_model/2)) angles pos / 10000^(2i/d_model), in float64."""
    two_i = torch.arange(0, d_model, 2, device=positions.device, dtype=torch.float64)
    base = torch.tensor(10000.0, dtype=torch.float64, device=positions.device)
    return positions.to(torch.float64)[:, None] / torch.pow(base, two_i / d_model)


def sinusoidal_encoding(positions: Tensor, d_model: int) -> Tensor:
    """PE[p, 2i] = sin(angle), PE[p, 2i+1] = cos(angle) for the given positions. (n, d_model) float64."""
    angles = sinusoidal_angles(positions, d_model)
    pe = torch.empty(positions.shape[0], d_model, device=positions.device, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles[:, : d_model // 2])  # odd d_model: the last column is a sine
    return pe


def sinusoidal_table(max_len: int, d_model: int, device: torch.device | str | None = None,
                     dtype: torch.dtype = torch.float32) -> Tensor:
    """The (max_len, d_model) table of Vaswani et al. 2017, §3.5."""
    return sinusoidal_encoding(torch.arange(max_len, device=device), d_model).to(dtype)


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding. No parameters, and no table: rows are computed
    for the positions in use, so max_len (0 = unlimited) is only a guard."""

    def __init__(self, d_model: int, max_len: int = 0) -> None:
        super().__init__()
        self.d_model = d_model
        self.max_len = max_len

    def forward(self, x: Tensor, offset: int = 0) -> Tensor:  # x: (B, n, d_model)
        n = x.shape[-2]
        if self.max_len and offset + n > self.max_len:
            raise ValueError(f"sequence of {offset + n} positions exceeds max_len={self.max_len}")
        if x.is_meta:   # only shapes exist on 'meta': a CPU table of n × d_model could need terabytes
            return x + torch.empty(n, self.d_model, device=x.device, dtype=x.dtype)
        # Computed in float64 on the CPU (exact for float64 models).
        pe = sinusoidal_encoding(torch.arange(offset, offset + n), self.d_model)
        return x + pe.to(device=x.device, dtype=x.dtype)


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
        """(d_head/2,) base^(-2i/d_head), always float64 (not a buffer, so model.to(dtype) leaves it alone).
        Computed on the CPU, then moved: cheap, and no first-use cost on 'meta'."""
        two_i = torch.arange(0, self.d_head, 2, device="cpu", dtype=torch.float64)
        return (1.0 / self.base ** (two_i / self.d_head)).to(device)

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


def absolute_positions(kind: str, d_model: int, max_len: int) -> nn.Module | None:
    """The module that adds positions to the embeddings, or None (RoPE acts inside attention)."""
    if kind == "learned":
        return LearnedPositionalEmbedding(max_len, d_model)
    if kind == "sinusoidal":
        return SinusoidalPositionalEncoding(d_model, max_len)
    return None


def rotary(kind: str, d_head: int, base: float) -> RotaryEmbedding | None:
    return RotaryEmbedding(d_head, base) if kind == "rope" else None
