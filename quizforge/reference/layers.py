"""Encoder and decoder layers, post-norm (Vaswani, BERT) or pre-norm (GPT-2, LLaMA)."""

from __future__ import annotations

from torch import Tensor, nn

from quizforge.reference.config import ModelConfig
from quizforge.reference.feedforward import FeedForward
from quizforge.reference.kv_cache import LayerKVCache
from quizforge.reference.mha import MultiHeadAttention
from quizforge.reference.norms import make_norm
from quizforge.reference.positional import RotaryEmbedding


def _attention(cfg: ModelConfig, rope: RotaryEmbedding | None = None) -> MultiHeadAttention:
    return MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head, bias=cfg.bias,
                              dropout=cfg.dropout, rope=rope)


class _Residual(nn.Module):
    """Shared wiring: post-norm is norm(x + f(x)); pre-norm is x + f(norm(x))."""

    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.norm_first = cfg.norm_first
        self.dropout = nn.Dropout(cfg.dropout)

    def residual(self, x: Tensor, norm: nn.Module, sublayer) -> Tensor:
        if self.norm_first:
            return x + self.dropout(sublayer(norm(x)))
        return norm(x + self.dropout(sublayer(x)))


class EncoderLayer(_Residual):
    """Self-attention (no causal mask) then FFN."""

    def __init__(self, cfg: ModelConfig, rope: RotaryEmbedding | None = None) -> None:
        super().__init__(cfg)
        self.self_attn = _attention(cfg, rope)
        self.norm1 = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps)
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.bias, cfg.dropout)
        self.norm2 = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps)

    def forward(self, x: Tensor, mask: Tensor | None = None) -> Tensor:  # (B, n, d_model)
        x = self.residual(x, self.norm1, lambda h: self.self_attn(h, mask=mask)[0])
        return self.residual(x, self.norm2, self.ffn)


class DecoderLayer(_Residual):
    """Masked self-attention, cross-attention over the encoder's memory, then FFN.

    With cross_attention=False it is the decoder-only block of GPT and LLaMA.
    """

    def __init__(self, cfg: ModelConfig, cross_attention: bool = True,
                 rope: RotaryEmbedding | None = None) -> None:
        super().__init__(cfg)
        self.self_attn = _attention(cfg, rope)
        self.norm1 = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps)
        if cross_attention:
            self.cross_attn = _attention(cfg)
            self.norm2 = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps)
        else:
            self.cross_attn = self.norm2 = None
        self.ffn = FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.bias, cfg.dropout)
        self.norm3 = make_norm(cfg.norm, cfg.d_model, cfg.norm_eps)

    def forward(self, x: Tensor, memory: Tensor | None = None, self_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, cache: LayerKVCache | None = None) -> Tensor:
        """x (B, n_t, d_model), memory (B, n_s, d_model). Masks are bool, True = may attend."""
        x = self.residual(x, self.norm1, lambda h: self.self_attn(h, mask=self_mask, cache=cache)[0])
        if self.cross_attn is not None:
            if memory is None:
                raise ValueError("this decoder layer has cross-attention and needs the encoder's memory")
            x = self.residual(x, self.norm2, lambda h: self.cross_attn(h, memory, memory, mask=memory_mask)[0])
        return self.residual(x, self.norm3, self.ffn)
