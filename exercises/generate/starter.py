"""Challenge: sampling from a language model. See README.md."""

import torch


def generate(model, idx: torch.Tensor, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None,
             generator: torch.Generator | None = None) -> torch.Tensor:
    """Extend idx (B, T) by max_new_tokens sampled tokens -> (B, T + max_new_tokens), a LongTensor."""
    raise NotImplementedError("write generate")
