"""The reference transformer: the source of truth for every computed answer.

Names are resolved lazily (PEP 562) so that `quizforge.reference.config` and
`.presets`, which are torch-free, can be imported without paying for torch.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "scaled_dot_product_attention": "attention", "ScaledDotProductAttention": "attention",
    "causal_mask": "attention", "padding_mask": "attention",
    "build": "build",
    "ModelConfig": "config",
    "DecoderOnly": "decoder_only", "EncoderDecoder": "encoder_decoder", "EncoderOnly": "encoder_only",
    "FeedForward": "feedforward", "generate": "generate", "LMHead": "heads", "Pooler": "heads",
    "KVCache": "kv_cache", "LayerKVCache": "kv_cache",
    "DecoderLayer": "layers", "EncoderLayer": "layers", "MultiHeadAttention": "mha",
    "LayerNorm": "norms", "RMSNorm": "norms",
    "LearnedPositionalEmbedding": "positional", "RotaryEmbedding": "positional",
    "SinusoidalPositionalEncoding": "positional", "sinusoidal_table": "positional",
    "PRESETS": "presets", "get_preset": "presets",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    globals()[name] = value
    return value
