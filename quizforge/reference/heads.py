"""Output heads: the language-model projection (optionally tied) and BERT's pooler."""

from __future__ import annotations

import torch
from torch import Tensor, nn


class LMHead(nn.Module):
    """Projects d_model to vocabulary logits. Tied: reuses the token embedding matrix (Press & Wolf 2017)."""

    accounting_component = "head"

    def __init__(self, d_model: int, vocab_size: int, tied_to: nn.Embedding | None = None) -> None:
        super().__init__()
        self.proj = nn.Linear(d_model, vocab_size, bias=False)
        if tied_to is not None:
            self.proj.weight = tied_to.weight

    def forward(self, x: Tensor) -> Tensor:  # (B, n, d_model) -> (B, n, vocab)
        return self.proj(x)


class Pooler(nn.Module):
    """tanh(W h_[CLS] + b): BERT's sentence vector from the first token."""

    accounting_component = "pooler"

    def __init__(self, d_model: int) -> None:
        super().__init__()
        self.dense = nn.Linear(d_model, d_model)

    def forward(self, hidden: Tensor) -> Tensor:  # (B, n, d_model) -> (B, d_model)
        return torch.tanh(self.dense(hidden[:, 0]))
