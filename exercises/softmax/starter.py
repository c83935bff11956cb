"""Challenge: a numerically stable softmax. See README.md."""

import torch


def softmax(x: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """Softmax of `x` along `dim`: exp(x_i) / sum_j exp(x_j) over each slice along `dim`.

    x: a floating tensor of any shape. Returns a tensor of the same shape and dtype,
    whose slices along `dim` are non-negative and sum to 1.
    It must stay finite for large logits (e.g. 1000) and for slices of very different scales.
    Do not use torch.softmax, F.softmax, log_softmax or nn.Softmax.
    """
    raise NotImplementedError("write softmax")
