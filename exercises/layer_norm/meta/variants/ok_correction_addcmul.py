import torch
from torch import nn


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        mu = torch.mean(x, -1, True)
        sigma = torch.sqrt(torch.var(x, -1, correction=0, keepdim=True) + self.eps)
        return torch.addcmul(self.bias, (x - mu) / sigma, self.weight)
