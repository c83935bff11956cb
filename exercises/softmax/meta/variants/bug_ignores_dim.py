import torch


def softmax(x, dim=-1):
    # Bug: always normalises over the last dim, whatever `dim` says.
    exps = (x - x.amax(dim=-1, keepdim=True)).exp()
    return exps / exps.sum(dim=-1, keepdim=True)
