import math

import torch


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    exps = torch.exp(scores)  # Bug: overflows for large scores.
    weights = exps / exps.sum(dim=-1, keepdim=True)
    return weights @ V, weights
