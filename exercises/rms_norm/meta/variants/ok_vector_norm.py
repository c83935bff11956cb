import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.d_model = d_model
        self.weight = nn.Parameter(torch.ones(d_model))

    def forward(self, x):
        # ||x||² / d is the mean square.
        mean_square = torch.linalg.vector_norm(x, dim=-1, keepdim=True) ** 2 / self.d_model
        return self.weight * (x / torch.sqrt(mean_square + self.eps))
