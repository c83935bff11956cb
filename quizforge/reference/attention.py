"""Scaled dot-product attention, written as explicit matrix products.

Explicit on purpose: `FlopCounterMode` sees every matmul here, while on CPU it
counts 0 for PyTorch's fused kernel. Masks are boolean; True means "may attend".
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def scaled_dot_product_attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Tensor | None = None,
    dropout_p: float = 0.0,
    training: bool = False,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    """softmax(Q Kᵀ / √d_k) V over any leading batch dimensions.

    q: (..., n_q, d_k)  k: (..., n_k, d_k)  v: (..., n_k, d_v)
    mask: bool, broadcastable to (..., n_q, n_k).
    Returns (output (..., n_q, d_v), weights (..., n_q, n_k)). A query row with no
    allowed key gets all-zero weights (as PyTorch's SDPA does), not NaN.
    """
    d_k = q.shape[-1]
    scale = 1.0 / math.sqrt(d_k) if scale is None else scale
    scores = (q @ k.transpose(-2, -1)) * scale  # (..., n_q, n_k)
    if mask is not None:
        if mask.dtype != torch.bool:
            raise TypeError(f"attention mask must be bool (True = may attend), got {mask.dtype}")
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        # softmax of an all -inf row is NaN; such a query attends to nothing.
        weights = weights.masked_fill(~mask.any(dim=-1, keepdim=True), 0.0)
    if dropout_p > 0.0 and training:
        weights = F.dropout(weights, p=dropout_p, training=True)
    return weights @ v, weights


class ScaledDotProductAttention(nn.Module):
    """Module form, so accounting can attribute the QKᵀ and AV products to 'attention scores'."""

    def __init__(self, dropout: float = 0.0) -> None:
        super().__init__()
        self.dropout = dropout

    def forward(self, q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        return scaled_dot_product_attention(q, k, v, mask, self.dropout, self.training)


def causal_mask(n_q: int, n_k: int | None = None, device: torch.device | str | None = None) -> Tensor:
    """(n_q, n_k) bool, True where key j may be seen by query i.

    With n_k > n_q (queries are the last n_q positions, as when decoding with a
    KV cache) query i sits at absolute position i + n_k - n_q.
    """
    n_k = n_q if n_k is None else n_k
    offset = n_k - n_q
    return torch.ones(n_q, n_k, dtype=torch.bool, device=device).tril(diagonal=offset)


def padding_mask(lengths: Tensor, n_k: int) -> Tensor:
    """(B, 1, 1, n_k) bool from per-sequence lengths: True on real tokens, False on padding."""
    positions = torch.arange(n_k, device=lengths.device)
    return (positions[None, :] < lengths[:, None])[:, None, None, :]
