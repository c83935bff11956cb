import torch


def sinusoidal_positional_encoding(max_len, d_model):
    p = torch.arange(max_len, dtype=torch.float32)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float32)
    angles = p * (1.0 / 10000 ** (2 * i / d_model))
    return torch.stack([angles.sin(), angles.cos()], dim=-1).flatten(1)
