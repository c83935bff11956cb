# Attack (issue #20, item 3): group_norm with one group is layer_norm over the last dimension.
import torch
from torch import nn
import torch.nn.functional as F


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        rows = x.reshape(-1, x.shape[-1])
        return F.group_norm(rows, 1, self.weight, self.bias, self.eps).reshape(x.shape)
