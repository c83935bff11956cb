import torch
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)

    def forward(self, x):
        z = self.w1(x)
        silu = z * torch.exp(z) / (1 + torch.exp(z))  # Bug: exp(z) overflows to inf for z > 88.
        return self.w2(silu * self.w3(x))
