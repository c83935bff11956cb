import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mean = x.mean()  # Bug: statistics of the whole tensor.
        var = ((x - mean) ** 2).mean()
        return (x - mean) / torch.sqrt(var + self.eps) * self.weight + self.bias
