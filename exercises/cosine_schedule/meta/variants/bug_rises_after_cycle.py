import math


def cosine_lr(t, lr_max, lr_min, warmup_steps, cycle_steps):
    if t < warmup_steps:
        return t / warmup_steps * lr_max
    # Bug: no case for t > cycle_steps, so the cosine comes back up.
    progress = (t - warmup_steps) / (cycle_steps - warmup_steps)
    return lr_min + 0.5 * (1 + math.cos(math.pi * progress)) * (lr_max - lr_min)
