"""Correct: new tensors for m and v each step, the update written out term by term."""

import torch


class AdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                t = st.get("t", 0) + 1
                m = b1 * st.get("m", torch.zeros_like(p)) + (1 - b1) * p.grad
                v = b2 * st.get("v", torch.zeros_like(p)) + (1 - b2) * p.grad ** 2
                st.update(t=t, m=m, v=v)
                m_hat = m / (1 - b1 ** t)
                v_hat = v / (1 - b2 ** t)
                decayed = p * (1 - group["lr"] * group["weight_decay"])
                p.copy_(decayed - group["lr"] * m_hat / (torch.sqrt(v_hat) + group["eps"]))
        return loss
