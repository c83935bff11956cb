import torch


def apply_rope(x, positions, base=10000.0):
    d = x.shape[-1]
    theta = positions.double()[:, None] * base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)[None, :]
    cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    a, b = x[..., : d // 2], x[..., d // 2:]
    return torch.cat((a * cos - b * sin, a * sin + b * cos), dim=-1)
