"""Reference solution: clip the global L2 norm of the gradients in place."""

import torch


def clip_grad_norm(parameters, max_norm: float, eps: float = 1e-6) -> float:
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return 0.0
    norm = float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads)))
    if norm > max_norm:
        scale = max_norm / (norm + eps)
        for g in grads:
            g.mul_(scale)
    return norm
