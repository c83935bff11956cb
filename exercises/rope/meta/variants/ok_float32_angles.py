import torch


def apply_rope(x, positions, base=10000.0):
    # As GPT-J and LLaMA do: the inverse frequencies and the angles in float32, whatever x's dtype,
    # then cos and sin cast to x's dtype.
    d = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    angles = torch.outer(positions.float(), inv_freq)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]
    return torch.stack((even * cos - odd * sin, even * sin + odd * cos), dim=-1).flatten(-2)
