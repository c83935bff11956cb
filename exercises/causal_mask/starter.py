"""Challenge: the causal (look-ahead) attention mask. See README.md."""

import torch


def causal_mask(n: int, device: torch.device | str | None = None) -> torch.Tensor:
    """The (n, n) bool mask of causal self-attention, on `device`.

    mask[i, j] is True when query i may attend to key j, that is exactly when j <= i:
    a position sees itself and the positions before it, never the ones after.
    """
    raise NotImplementedError("write causal_mask")
