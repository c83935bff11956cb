"""Challenge: the sinusoidal positional encoding. See README.md."""

import math

import torch


def sinusoidal_positional_encoding(max_len: int, d_model: int) -> torch.Tensor:
    """The (max_len, d_model) float32 table of Vaswani et al. (2017), d_model even:

        PE[p, 2i]   = sin(p / 10000^(2i / d_model))
        PE[p, 2i+1] = cos(p / 10000^(2i / d_model))

    for positions p = 0 .. max_len - 1 and pairs i = 0 .. d_model/2 - 1.
    """
    raise NotImplementedError("write sinusoidal_positional_encoding")
