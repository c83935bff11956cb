import torch


def causal_mask(n, device=None):
    i = torch.arange(n, device=device)
    return i[None, :] <= i[:, None]
