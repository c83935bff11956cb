"""Instantiate the module a `ModelConfig` describes, on any device (meta included)."""

from __future__ import annotations

import torch
from torch import nn

from quizforge.reference.config import ModelConfig
from quizforge.reference.decoder_only import DecoderOnly
from quizforge.reference.encoder_decoder import EncoderDecoder
from quizforge.reference.encoder_only import EncoderOnly
from quizforge.reference.feedforward import FeedForward
from quizforge.reference.layers import DecoderLayer, EncoderLayer
from quizforge.reference.mha import MultiHeadAttention
from quizforge.reference.norms import LayerNorm, RMSNorm


def build(cfg: ModelConfig, device: torch.device | str = "cpu", dtype: torch.dtype | None = None) -> nn.Module:
    """The model or component for cfg.arch. On 'meta' nothing is allocated, so gpt3-175b is cheap."""
    with torch.device(device):
        module = _construct(cfg)
    if dtype is not None:
        module = module.to(dtype)
    return module


def _construct(cfg: ModelConfig) -> nn.Module:
    arch = cfg.arch
    if arch == "encoder-decoder":
        return EncoderDecoder(cfg)
    if arch == "bert":
        return EncoderOnly(cfg)
    if arch in ("gpt", "llama"):
        return DecoderOnly(cfg)
    if arch == "mha":
        return MultiHeadAttention(cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.bias, cfg.dropout)
    if arch == "ffn":
        return FeedForward(cfg.d_model, cfg.d_ff, cfg.activation, cfg.bias, cfg.dropout)
    if arch == "layernorm":
        return LayerNorm(cfg.d_model, cfg.norm_eps)
    if arch == "rmsnorm":
        return RMSNorm(cfg.d_model, cfg.norm_eps)
    if arch == "encoder-layer":
        return EncoderLayer(cfg)
    if arch == "decoder-layer":
        return DecoderLayer(cfg, cross_attention=True)
    raise AssertionError(f"unhandled arch {arch}")  # ModelConfig already rejected unknown names
