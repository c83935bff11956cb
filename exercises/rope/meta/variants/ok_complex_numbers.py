import torch


def apply_rope(x, positions, base=10000.0):
    d = x.shape[-1]
    inv = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    rotation = torch.polar(torch.ones(len(positions), d // 2, dtype=torch.float64),
                           positions.double()[:, None] * inv[None, :])
    pairs = torch.view_as_complex(x.double().reshape(*x.shape[:-1], d // 2, 2).contiguous())
    return torch.view_as_real(pairs * rotation).flatten(-2).to(x.dtype)
