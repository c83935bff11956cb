"""Checks on a calculator's sizes that need neither torch nor sympy, so that `quiz calc`
refuses bad input at once instead of after a multi-second import."""

from __future__ import annotations

from quizforge.errors import InputError
from quizforge.reference.config import ModelConfig

# Architectures with no decoder self-attention, hence nothing to cache.
NO_KV_CACHE = ("bert", "encoder-layer", "mha", "ffn", "layernorm", "rmsnorm")


def check_positive(**values: int) -> None:
    for name, value in values.items():
        if not isinstance(value, int) or value <= 0:
            raise InputError(f"--{name.replace('_', '-')} must be a positive integer, got {value}")


def check_positions(cfg: ModelConfig, seq_len: int, tgt_len: int | None) -> None:
    if cfg.is_model and cfg.positional in ("learned", "sinusoidal") and cfg.max_len:
        longest = max(seq_len, tgt_len or 0)
        if longest > cfg.max_len:
            raise InputError(f"{longest} tokens is longer than the model's context of {cfg.max_len}",
                             param="seq_len" if seq_len >= (tgt_len or 0) else "tgt_len")


def check_has_kv_cache(cfg: ModelConfig) -> None:
    if cfg.arch in NO_KV_CACHE:
        raise InputError(f"{cfg.name or cfg.arch} does not decode autoregressively, so it has no KV cache")


def check_sizes(cfg: ModelConfig, seq_len: int, batch: int, tgt_len: int | None = None) -> None:
    """Everything about --seq-len, --batch and --tgt-len that can be told without building the model."""
    check_positive(seq_len=seq_len, batch=batch)
    if tgt_len is not None:
        check_positive(tgt_len=tgt_len)
        if cfg.arch != "encoder-decoder":
            raise InputError("a target length only applies to encoder-decoder models", param="tgt_len")
    check_positions(cfg, seq_len, tgt_len)
