import math

import torch


def attention(Q, K, V):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    return torch.softmax(scores, dim=-2) @ V
