import math

import torch


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores + (~mask).to(scores.dtype) * -1e9
    scores = scores - scores.max(dim=-1, keepdim=True).values
    weights = scores.exp() / scores.exp().sum(dim=-1, keepdim=True)
    return weights @ V, weights
