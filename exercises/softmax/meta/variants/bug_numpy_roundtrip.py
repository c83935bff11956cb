import numpy as np
import torch


def softmax(x, dim=-1):
    # Bug: right values, but the detour through numpy cuts autograd off.
    a = x.detach().numpy()
    exps = np.exp(a - a.max(axis=dim, keepdims=True))
    return torch.from_numpy(exps / exps.sum(axis=dim, keepdims=True))
