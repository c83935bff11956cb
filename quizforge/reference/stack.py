"""What every architecture builds first: the token table, the absolute position table (None
under RoPE or without positions) and the rotary embedding its layers share (None without RoPE)."""

from __future__ import annotations

from torch import nn

from quizforge.reference.config import ModelConfig
from quizforge.reference.embedding import Embedding
from quizforge.reference.positional import RotaryEmbedding, absolute_positions, rotary


class EmbeddedStack(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.tok_emb = Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = absolute_positions(cfg.positional, cfg.d_model, cfg.max_len)

    def shared_rope(self) -> RotaryEmbedding | None:
        """One rotary embedding for all the layers (it holds no parameters)."""
        return rotary(self.cfg.positional, self.cfg.d_head, self.cfg.rope_base)
