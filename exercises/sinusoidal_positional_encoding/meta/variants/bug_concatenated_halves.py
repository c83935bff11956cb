import torch


def sinusoidal_positional_encoding(max_len, d_model):
    positions = torch.arange(max_len, dtype=torch.float32)[:, None]
    angles = positions / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    return torch.cat([torch.sin(angles), torch.cos(angles)], dim=-1)  # Bug: not interleaved.
