import torch
from torch import nn


class SwiGLU(nn.Module):
    def __init__(self, d_model, d_ff):
        super().__init__()
        self.w1 = nn.Linear(d_model, d_ff, bias=False)
        self.w2 = nn.Linear(d_ff, d_model, bias=False)
        self.w3 = nn.Linear(d_model, d_ff, bias=False)

    def forward(self, x):
        # One matmul for both projections, then split them apart again.
        both = x @ torch.cat([self.w1.weight, self.w3.weight], dim=0).T
        gate, value = both.chunk(2, dim=-1)
        return self.w2(gate / (1 + torch.exp(-gate)) * value)
