import torch


def softmax(x, dim=-1):
    # Bug: without keepdim the sums broadcast along the wrong axis (or not at all).
    exps = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return exps / exps.sum(dim=dim)
