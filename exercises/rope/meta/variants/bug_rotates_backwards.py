import torch


def apply_rope(x, positions, base=10000.0):
    d = x.shape[-1]
    theta = positions.double()[:, None] * base ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)[None, :]
    cos, sin = theta.cos().to(x.dtype), theta.sin().to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos + odd * sin, -even * sin + odd * cos), dim=-1).flatten(-2)
