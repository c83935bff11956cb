import torch


def sinusoidal_positional_encoding(max_len, d_model):
    positions = torch.arange(max_len, dtype=torch.float32)[:, None]
    k = torch.arange(d_model, dtype=torch.float32)
    angles = positions / 10000 ** (k / d_model)  # Bug: column 2i+1 must reuse column 2i's exponent.
    return torch.where(k % 2 == 0, torch.sin(angles), torch.cos(angles))
