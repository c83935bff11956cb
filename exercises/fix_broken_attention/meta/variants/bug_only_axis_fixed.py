import torch


def attention(Q, K, V):
    scores = Q @ K.transpose(-2, -1)
    return torch.softmax(scores, dim=-1) @ V
