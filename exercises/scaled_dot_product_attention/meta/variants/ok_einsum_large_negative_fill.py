import math

import torch


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = torch.einsum("...qd,...kd->...qk", Q, K) / math.sqrt(K.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, -1e9)
    weights = scores.softmax(dim=-1)
    return torch.einsum("...qk,...kv->...qv", weights, V), weights
