import torch


def softmax(x, dim=-1):
    # Bug: one global shift; slices far below the global maximum underflow to 0 / 0.
    exps = torch.exp(x - x.max())
    return exps / exps.sum(dim=dim, keepdim=True)
