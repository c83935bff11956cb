import torch


def sinusoidal_positional_encoding(max_len, d_model):
    positions = torch.arange(max_len, dtype=torch.float32)[:, None]
    i = torch.arange(d_model // 2, dtype=torch.float32)
    angles = positions / 10000 ** (i / d_model)  # Bug: 2i/d_model, not i/d_model.
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)
    pe[:, 1::2] = torch.cos(angles)
    return pe
