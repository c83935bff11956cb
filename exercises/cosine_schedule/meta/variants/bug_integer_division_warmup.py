import math


def cosine_lr(t, lr_max, lr_min, warmup_steps, cycle_steps):
    if t < warmup_steps:
        return float(t // warmup_steps * lr_max)  # Bug: t // warmup_steps is 0 throughout the warm-up.
    if t <= cycle_steps:
        progress = (t - warmup_steps) / (cycle_steps - warmup_steps)
        return lr_min + 0.5 * (1 + math.cos(math.pi * progress)) * (lr_max - lr_min)
    return float(lr_min)
