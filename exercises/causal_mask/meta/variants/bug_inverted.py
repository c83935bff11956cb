import torch


def causal_mask(n, device=None):
    # Bug: True marks the positions to hide, the opposite of the convention.
    return torch.triu(torch.ones(n, n, device=device), diagonal=1).bool()
