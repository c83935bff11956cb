import torch


def causal_mask(n, device=None):
    return ~torch.triu(torch.ones(n, n, dtype=torch.bool, device=device), diagonal=1)
