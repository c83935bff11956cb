import math

import torch


def sinusoidal_positional_encoding(max_len, d_model):
    pe = torch.tensor([[math.sin(p / 10000 ** (k / d_model)) if k % 2 == 0 else math.cos(p / 10000 ** ((k - 1) / d_model))
                        for k in range(d_model)] for p in range(max_len)], dtype=torch.float64)
    return pe.float()
