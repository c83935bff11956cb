"""Reference solution: the sinusoidal positional encoding of Vaswani et al. (2017)."""

import torch


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    """(max_len, d_model) float32 table, d_model even:

    PE[p, 2i] = sin(p / 10000^(2i/d_model)),  PE[p, 2i+1] = cos(p / 10000^(2i/d_model)).
    """
    positions = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)             # (d_model / 2,)
    angles = positions / torch.pow(10000.0, two_i / d_model)              # (max_len, d_model / 2)
    pe = torch.empty(max_len, d_model)
    pe[:, 0::2] = torch.sin(angles)  # each pair of columns shares one frequency
    pe[:, 1::2] = torch.cos(angles)
    return pe
