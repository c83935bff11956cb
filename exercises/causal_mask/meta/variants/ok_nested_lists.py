import torch


def causal_mask(n, device=None):
    return torch.tensor([[j <= i for j in range(n)] for i in range(n)], dtype=torch.bool, device=device)
