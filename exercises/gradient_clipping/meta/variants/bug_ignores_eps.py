"""Bug: scales by max_norm / norm, ignoring eps."""

import torch


def clip_grad_norm(parameters, max_norm, eps=1e-6):
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return 0.0
    norm = float(torch.sqrt(sum((g ** 2).sum() for g in grads)))
    if norm > max_norm:
        for g in grads:
            g.mul_(max_norm / norm)
    return norm
