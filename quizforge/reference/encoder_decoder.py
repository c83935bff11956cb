"""The encoder–decoder Transformer of Vaswani et al. 2017."""

from __future__ import annotations

import math

from torch import Tensor, nn

from quizforge.reference.attention import causal_mask
from quizforge.reference.config import ModelConfig
from quizforge.reference.heads import LMHead
from quizforge.reference.kv_cache import KVCache
from quizforge.reference.layers import DecoderLayer, EncoderLayer
from quizforge.reference.norms import make_norm
from quizforge.reference.stack import EmbeddedStack


class EncoderDecoder(EmbeddedStack):
    """Shared source/target embedding (scaled by √d_model), positions (sinusoidal in the paper),
    N encoder and N decoder layers, and a pre-softmax projection tied to the embedding."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__(cfg)
        rope = self.shared_rope()
        self.dropout = nn.Dropout(cfg.dropout)
        self.encoder = nn.ModuleList(EncoderLayer(cfg, rope) for _ in range(cfg.encoder_layers))
        self.decoder = nn.ModuleList(DecoderLayer(cfg, rope=rope) for _ in range(cfg.decoder_layers))
        # Pre-norm stacks need a final norm; the post-norm original has none.
        self.encoder_norm = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps) if cfg.norm_first else None
        self.decoder_norm = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps) if cfg.norm_first else None
        self.lm_head = LMHead(cfg.d_model, cfg.vocab_size, self.tok_emb if cfg.tied else None)

    def _embed(self, ids: Tensor, offset: int = 0) -> Tensor:
        x = self.tok_emb(ids) * math.sqrt(self.cfg.d_model)
        return self.dropout(self.pos_emb(x, offset) if self.pos_emb is not None else x)

    def encode(self, src: Tensor, src_keep: Tensor | None = None) -> Tensor:
        """src (B, n_s) token ids; src_keep (B, n_s) bool, True on real tokens. -> (B, n_s, d_model)."""
        mask = None if src_keep is None else src_keep[:, None, None, :]
        x = self._embed(src)
        for layer in self.encoder:
            x = layer(x, mask)
        return self.encoder_norm(x) if self.encoder_norm is not None else x

    def new_cache(self, dtype=None) -> KVCache:
        return KVCache(len(self.decoder), dtype)

    def decode(self, tgt: Tensor, memory: Tensor, src_keep: Tensor | None = None,
               cache: KVCache | None = None) -> Tensor:
        """tgt (B, n_t) ids, memory (B, n_s, d_model) -> logits (B, n_t, vocab).

        With a cache, tgt holds only the new target tokens; the decoder's self-attention
        keys and values are cached (cross-attention is recomputed from memory).
        """
        offset = cache.length if cache is not None else 0
        n_t = tgt.shape[1]
        self_mask = causal_mask(n_t, offset + n_t, device=tgt.device)
        memory_mask = None if src_keep is None else src_keep[:, None, None, :]
        x = self._embed(tgt, offset)
        for i, layer in enumerate(self.decoder):
            x = layer(x, memory, self_mask, memory_mask, cache[i] if cache is not None else None)
        if self.decoder_norm is not None:
            x = self.decoder_norm(x)
        return self.lm_head(x)

    def forward(self, src: Tensor, tgt: Tensor, src_keep: Tensor | None = None) -> Tensor:
        return self.decode(tgt, self.encode(src, src_keep), src_keep)
