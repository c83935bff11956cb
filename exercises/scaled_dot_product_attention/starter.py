"""Challenge: scaled dot-product attention. See README.md."""

import math

import torch


def scaled_dot_product_attention(Q: torch.Tensor, K: torch.Tensor, V: torch.Tensor,
                                 mask: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax(Q Kᵀ / √d_k) V, over any leading batch dimensions.

    Q: (..., n_q, d_k)   K: (..., n_k, d_k)   V: (..., n_k, d_v)
    mask: optional bool tensor broadcastable to (..., n_q, n_k); True where the query
          may attend to the key, False where it may not.
    Returns (output, weights): output (..., n_q, d_v), weights (..., n_q, n_k),
    each row of weights a probability distribution over the keys.
    Do not use F.scaled_dot_product_attention or nn.MultiheadAttention.
    """
    raise NotImplementedError("write scaled_dot_product_attention")
