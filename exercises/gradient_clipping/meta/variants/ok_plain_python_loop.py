"""Correct: a running sum of squares, and a single tensor accepted as well as an iterable."""

import math

import torch


def clip_grad_norm(parameters, max_norm, eps=1e-6):
    if isinstance(parameters, torch.Tensor):
        parameters = [parameters]
    with_grad = []
    squares = 0.0
    for p in parameters:
        if p.grad is None:
            continue
        with_grad.append(p)
        squares += float((p.grad.double() * p.grad.double()).sum())
    norm = math.sqrt(squares)
    if norm > max_norm:
        for p in with_grad:
            p.grad *= max_norm / (norm + eps)
    return norm
