import math


def cosine_lr(t, lr_max, lr_min, warmup_steps, cycle_steps):
    if t < warmup_steps:
        return lr_max * t / warmup_steps
    progress = min(1.0, (t - warmup_steps) / (cycle_steps - warmup_steps))
    return lr_max - (lr_max - lr_min) * (1 - math.cos(math.pi * progress)) / 2
