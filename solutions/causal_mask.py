"""Reference solution: the causal (look-ahead) mask."""

import torch


def causal_mask(n: int, device: torch.device | str | None = None) -> torch.Tensor:
    """(n, n) bool, True at [i, j] when query i may attend to key j, i.e. when j <= i.

    The lower triangle, diagonal included: a position sees itself and its past.
    """
    return torch.ones(n, n, dtype=torch.bool, device=device).tril()
