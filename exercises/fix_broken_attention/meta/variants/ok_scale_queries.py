import torch


def attention(Q, K, V):
    Q = Q * Q.shape[-1] ** -0.5
    return (Q @ K.mT).softmax(-1) @ V
