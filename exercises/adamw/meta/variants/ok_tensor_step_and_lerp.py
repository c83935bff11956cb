"""Correct: the step count kept as a tensor, m updated with lerp, bias corrections folded into lr and eps."""

import math

import torch
from torch.optim import Optimizer


class AdamW(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay})

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        with torch.no_grad():
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for p in group["params"]:
                    grad = p.grad
                    if grad is None:
                        continue
                    state = self.state[p]
                    if len(state) == 0:
                        state["step"] = torch.tensor(0.0)
                        state["m"] = torch.zeros_like(p)
                        state["v"] = torch.zeros_like(p)
                    state["step"] += 1
                    t = state["step"].item()
                    state["m"].lerp_(grad, 1 - beta1)
                    state["v"].mul_(beta2).add_(grad * grad * (1 - beta2))
                    p.mul_(1 - group["lr"] * group["weight_decay"])
                    correction2 = math.sqrt(1 - beta2 ** t)
                    step_size = group["lr"] * correction2 / (1 - beta1 ** t)
                    p.sub_(step_size * state["m"] / (state["v"].sqrt() + group["eps"] * correction2))
        return loss
