"""Bug: each parameter is clipped by its own norm instead of the global one."""

import torch


def clip_grad_norm(parameters, max_norm, eps=1e-6):
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return 0.0
    total = float(torch.sqrt(sum((g ** 2).sum() for g in grads)))
    for g in grads:
        own = float(g.norm())
        if own > max_norm:
            g.mul_(max_norm / (own + eps))
    return total
