import math

import torch


def cosine_lr(t, lr_max, lr_min, warmup_steps, cycle_steps):
    if t < warmup_steps:
        return torch.tensor(t / warmup_steps * lr_max)  # Bug: a tensor, not a Python float.
    if t <= cycle_steps:
        progress = torch.tensor((t - warmup_steps) / (cycle_steps - warmup_steps))
        return lr_min + 0.5 * (1 + torch.cos(math.pi * progress)) * (lr_max - lr_min)
    return torch.tensor(lr_min)
