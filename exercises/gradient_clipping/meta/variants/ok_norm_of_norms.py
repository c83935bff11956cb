"""Correct: the global norm as the norm of the per-parameter norms, in float32."""

import torch


def clip_grad_norm(parameters, max_norm, eps=1e-6):
    grads = [p.grad for p in parameters if p.grad is not None]
    if len(grads) == 0:
        return 0.0
    norms = torch.stack([torch.linalg.vector_norm(g).float() for g in grads])
    total = torch.linalg.vector_norm(norms).item()
    if total > max_norm:
        factor = max_norm / (total + eps)
        for g in grads:
            g.mul_(factor)
    return total
