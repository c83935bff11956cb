"""Challenge: a cosine learning-rate schedule with linear warm-up. See README.md."""


def cosine_lr(t: int, lr_max: float, lr_min: float, warmup_steps: int, cycle_steps: int) -> float:
    """The learning rate at step t (0 <= warmup_steps < cycle_steps):

    t < warmup_steps:                 t / warmup_steps * lr_max
    warmup_steps <= t <= cycle_steps: lr_min + 1/2 (1 + cos(pi (t - warmup_steps) / (cycle_steps - warmup_steps)))
                                      * (lr_max - lr_min)
    t > cycle_steps:                  lr_min
    Returns a Python float. Do not use torch.optim.lr_scheduler.
    """
    raise NotImplementedError("write cosine_lr")
