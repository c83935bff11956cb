"""Bug: assumes every parameter has a gradient."""

import torch


def clip_grad_norm(parameters, max_norm, eps=1e-6):
    params = list(parameters)
    norm = float(torch.sqrt(sum((p.grad ** 2).sum() for p in params)))
    if norm > max_norm:
        for p in params:
            p.grad.mul_(max_norm / (norm + eps))
    return norm
