import math

import torch


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores * mask  # Bug: a masked score of 0 still gets weight.
    weights = torch.softmax(scores, dim=-1)
    return weights @ V, weights
