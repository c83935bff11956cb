import torch


def sinusoidal_positional_encoding(max_len, d_model):
    positions = torch.arange(1, max_len + 1, dtype=torch.float32)[:, None]  # Bug: the first position is 0.
    angles = positions / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
