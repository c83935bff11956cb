"""Checks on a calculator's sizes that need neither torch nor sympy, so that `quiz calc`
refuses bad input at once instead of after a multi-second import."""

from __future__ import annotations

from quizforge.errors import InputError
from quizforge.reference.config import ModelConfig

# Architectures with no decoder self-attention, hence nothing to cache.
NO_KV_CACHE = ("bert", "encoder-layer", "mha", "ffn", "layernorm", "rmsnorm")


# Tokens per sequence and sequences per batch: far above any real run, and small enough that
# the largest tensor measured (the attention scores) stays within torch's 64-bit sizes.
MAX_TOKENS = 2**24
MAX_BATCH = 2**16
# Entries in the largest tensor measured: its bytes (4 an entry in fp32) must fit torch's 64-bit sizes.
LARGEST_TENSOR = 2**58


def check_positive(**values: int) -> None:
    for name, value in values.items():
        if not isinstance(value, int) or value <= 0:
            raise InputError(f"--{name.replace('_', '-')} must be a positive integer, got {value}")
        most = MAX_BATCH if name == "batch" else MAX_TOKENS
        if value > most:
            raise InputError(f"{value:,} is more than the {most:,} quizforge measures", param=name)


def check_tensor_sizes(cfg: ModelConfig, seq_len: int, batch: int, tgt_len: int | None = None) -> None:
    """The largest activation (the attention scores, batch × heads × n × n, or batch × n by the
    widest of d_ff, the vocabulary and d_model) must be a tensor torch can size."""
    longest = max(seq_len, tgt_len or 0)
    sizes = {"attention scores": cfg.n_heads * longest, "feed-forward activations": cfg.d_ff,
             "logits": cfg.vocab_size, "hidden states": cfg.d_model}
    what, widest = max(sizes.items(), key=lambda item: item[1])
    entries = batch * longest * widest
    if entries > LARGEST_TENSOR:
        raise InputError(f"--batch {batch:,} of {longest:,} tokens makes {what} of {entries:.2e} entries, "
                         f"more than the {LARGEST_TENSOR:.2e} quizforge measures in one tensor; "
                         "use a smaller --batch or --seq-len")


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
    check_tensor_sizes(cfg, seq_len, batch, tgt_len)
