import math


def cosine_lr(t, lr_max, lr_min, warmup_steps, cycle_steps):
    if t < warmup_steps:
        return t / warmup_steps * lr_max
    if t <= cycle_steps:
        progress = t / cycle_steps  # Bug: the warm-up's steps count towards the decay.
        return lr_min + 0.5 * (1 + math.cos(math.pi * progress)) * (lr_max - lr_min)
    return float(lr_min)
