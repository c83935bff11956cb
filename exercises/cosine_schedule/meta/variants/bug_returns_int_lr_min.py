import math


def cosine_lr(t, lr_max, lr_min, warmup_steps, cycle_steps):
    if t < warmup_steps:
        return t / warmup_steps * lr_max
    if t <= cycle_steps:
        progress = (t - warmup_steps) / (cycle_steps - warmup_steps)
        return lr_min + 0.5 * (1 + math.cos(math.pi * progress)) * (lr_max - lr_min)
    return lr_min  # Bug: an int when lr_min is given as one.
