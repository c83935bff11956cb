"""Small models the judge can ask the worker to build, for challenges whose function takes a
model (`generate`): a module cannot cross the wire, but its description can.

Standard library and torch only, like the rest of this folder.
"""

from __future__ import annotations

import torch
from torch import nn


class TableLM(nn.Module):
    """A language model whose next-token logits depend on the last token alone, looked up in
    a (vocab, vocab) table, plus a per-position `drift` so that cropping the context changes
    nothing while the positions of the window stay the same. It refuses a context longer than
    `block_size`, as a transformer with learned positions does."""

    def __init__(self, table: torch.Tensor, block_size: int | None = None):
        super().__init__()
        self.register_buffer("table", table.clone())
        if block_size is not None:
            self.block_size = int(block_size)
        self.calls: list[tuple[int, ...]] = []

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        if not isinstance(idx, torch.Tensor) or idx.dtype != torch.long or idx.dim() != 2:
            raise TypeError("the model takes a (B, T) LongTensor of token ids")
        block = getattr(self, "block_size", None)
        if block is not None and idx.shape[1] > block:
            raise ValueError(f"the model got a context of {idx.shape[1]} tokens; its block_size is {block}")
        self.calls.append(tuple(idx.shape))
        return self.table[idx]  # (B, T, vocab): row t holds the logits for the token after idx[:, t]


def build(spec: dict) -> nn.Module:
    if spec.get("kind") == "table" and isinstance(spec.get("table"), torch.Tensor):
        return TableLM(spec["table"], spec.get("block_size"))
    raise ValueError("unknown model description")
