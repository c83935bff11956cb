import math

import torch


def cosine_lr(t, lr_max, lr_min, warmup_steps, cycle_steps):
    if t < warmup_steps:
        return float(t) / warmup_steps * lr_max
    if t > cycle_steps:
        return float(lr_min)
    angle = torch.tensor(math.pi * (t - warmup_steps) / (cycle_steps - warmup_steps), dtype=torch.float64)
    return (lr_min + (lr_max - lr_min) * (1 + torch.cos(angle)) / 2).item()
