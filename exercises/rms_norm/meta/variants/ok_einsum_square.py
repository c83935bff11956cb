import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        mean_square = torch.einsum("...d,...d->...", x, x).unsqueeze(-1) / x.shape[-1]
        return torch.mul(x / (mean_square + self.eps).sqrt(), self.weight)
