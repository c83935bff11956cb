"""Reference solution: a cosine learning-rate schedule with linear warm-up."""

import math


def cosine_lr(t: int, lr_max: float, lr_min: float, warmup_steps: int, cycle_steps: int) -> float:
    """The learning rate at step t: a linear warm-up to lr_max, a half cosine down to lr_min, then lr_min."""
    if t < warmup_steps:
        return t / warmup_steps * lr_max
    if t <= cycle_steps:
        progress = (t - warmup_steps) / (cycle_steps - warmup_steps)  # 0 at the peak, 1 at the end
        return lr_min + 0.5 * (1.0 + math.cos(math.pi * progress)) * (lr_max - lr_min)
    return float(lr_min)  # lr_min may be given as an int
