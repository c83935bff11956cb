import torch


def causal_mask(n, device=None):
    return torch.tril(torch.ones(n, n, device=device))  # Bug: float 0/1, not bool.
