"""Reference solution: scaled dot-product attention."""

import math

import torch


def scaled_dot_product_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor,
                                 mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √d_k) V over any leading batch dimensions.

    Q: (..., n_q, d_k), K: (..., n_k, d_k), V: (..., n_k, d_v);
    mask: bool, broadcastable to (..., n_q, n_k), True where the query may attend to the key.
    Returns (output (..., n_q, d_v), weights (..., n_q, n_k)).
    """
    d_k = Q.shape[-1]
    # transpose(-2, -1), not K.T: only the last two dims swap, whatever the batch dims.
    scores = Q @ K.transpose(-2, -1) / math.sqrt(d_k)
    if mask is not None:
        # Before the softmax, so each row's weights over the allowed keys still sum to 1.
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
