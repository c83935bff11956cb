import torch


def causal_mask(n):  # Bug: the signature has no device.
    return torch.ones(n, n, dtype=torch.bool).tril()
