"""Decoder-only language models: GPT (learned positions, LayerNorm, GELU) and LLaMA-style
(RoPE, RMSNorm, SwiGLU, no biases, GQA). The config decides which."""

from __future__ import annotations

from torch import Tensor, nn

from quizforge.reference.attention import causal_mask
from quizforge.reference.config import ModelConfig
from quizforge.reference.heads import LMHead
from quizforge.reference.kv_cache import KVCache
from quizforge.reference.layers import DecoderLayer
from quizforge.reference.norms import make_norm
from quizforge.reference.stack import EmbeddedStack


class DecoderOnly(EmbeddedStack):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__(cfg)
        rope = self.shared_rope()
        self.dropout = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(DecoderLayer(cfg, cross_attention=False, rope=rope)
                                    for _ in range(cfg.n_layers))
        self.final_norm = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps) if cfg.norm_first else None
        self.lm_head = LMHead(cfg.d_model, cfg.vocab_size, self.tok_emb if cfg.tied else None)

    def new_cache(self, dtype=None) -> KVCache:
        return KVCache(len(self.blocks), dtype)

    def forward(self, idx: Tensor, cache: KVCache | None = None) -> Tensor:
        """idx (B, n) token ids -> logits (B, n, vocab). With a cache, idx holds only the new tokens."""
        offset = cache.length if cache is not None else 0
        n = idx.shape[1]
        x = self.tok_emb(idx)
        if self.pos_emb is not None:
            x = self.pos_emb(x, offset)
        x = self.dropout(x)
        mask = causal_mask(n, offset + n, device=idx.device)
        for i, block in enumerate(self.blocks):
            x = block(x, self_mask=mask, cache=cache[i] if cache is not None else None)
        if self.final_norm is not None:
            x = self.final_norm(x)
        return self.lm_head(x)
