"""Challenge: fix the broken attention. See README.md.

This code runs, and its output has the right shape, but it is wrong in two places.
Find both and fix them.
"""

import torch


def attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor) -> torch.Tensor:
    """Scaled dot-product attention: Q (..., n_q, d_k), K (..., n_k, d_k), V (..., n_k, d_v) -> (..., n_q, d_v)."""
    scores = Q @ K.transpose(-2, -1)
    weights = torch.softmax(scores, dim=-2)
    return weights @ V
