"""Bug: returns the norm as a 0-d tensor, not a Python float."""

import torch


def clip_grad_norm(parameters, max_norm, eps=1e-6):
    grads = [p.grad for p in parameters if p.grad is not None]
    if not grads:
        return torch.tensor(0.0)
    norm = torch.sqrt(sum((g ** 2).sum() for g in grads))
    if norm > max_norm:
        for g in grads:
            g.mul_(max_norm / (norm + eps))
    return norm
