import torch


def sinusoidal_positional_encoding(max_len, d_model):
    positions = torch.arange(max_len, dtype=torch.float32)[:, None]
    angles = positions / 10000 ** (torch.arange(0, d_model, 2, dtype=torch.float32) / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.cos(angles)  # Bug: the sine belongs in the even columns.
    pe[:, 1::2] = torch.sin(angles)
    return pe
