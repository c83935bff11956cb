import torch


def causal_mask(n, device=None):
    return torch.ones(n, n, dtype=torch.bool, device=device).tril(diagonal=-1)  # Bug: j < i.
