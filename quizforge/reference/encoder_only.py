"""BERT: an encoder-only stack with token, position and segment embeddings, and a pooler."""

from __future__ import annotations

import torch
from torch import Tensor, nn

from quizforge.reference.config import ModelConfig
from quizforge.reference.embedding import Embedding
from quizforge.reference.heads import Pooler
from quizforge.reference.layers import EncoderLayer
from quizforge.reference.norms import make_norm
from quizforge.reference.stack import EmbeddedStack


class EncoderOnly(EmbeddedStack):
    """Embeddings (token + position (learned in BERT) + token type) -> LayerNorm -> post-norm encoder layers."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__(cfg)
        rope = self.shared_rope()
        self.type_emb = Embedding(cfg.n_token_types, cfg.d_model) if cfg.n_token_types else None
        self.emb_norm = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps)
        self.dropout = nn.Dropout(cfg.dropout)
        self.layers = nn.ModuleList(EncoderLayer(cfg, rope) for _ in range(cfg.n_layers))
        self.final_norm = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps) if cfg.norm_first else None
        self.pooler = Pooler(cfg.d_model) if cfg.pooler else None

    def forward(self, ids: Tensor, token_types: Tensor | None = None,
                keep: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
        """ids (B, n); token_types (B, n); keep (B, n) bool, True on real tokens.

        Returns (hidden states (B, n, d_model), pooled [CLS] vector (B, d_model) or None).
        """
        x = self.tok_emb(ids)
        if self.pos_emb is not None:
            x = self.pos_emb(x)
        if self.type_emb is not None:
            types = torch.zeros_like(ids) if token_types is None else token_types
            x = x + self.type_emb(types)
        x = self.dropout(self.emb_norm(x))
        mask = None if keep is None else keep[:, None, None, :]
        for layer in self.layers:
            x = layer(x, mask)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return x, (self.pooler(x) if self.pooler is not None else None)
