"""Autoregressive sampling from a decoder-only model, with a KV cache."""

from __future__ import annotations

import torch
from torch import Tensor

from quizforge.reference.decoder_only import DecoderOnly


@torch.no_grad()
def generate(model: DecoderOnly, idx: Tensor, max_new_tokens: int, temperature: float = 1.0,
             top_k: int | None = None, generator: torch.Generator | None = None) -> Tensor:
    """Extend idx (B, n) by max_new_tokens sampled tokens -> (B, n + max_new_tokens).

    temperature 0 picks the most likely token; top_k keeps only the k most likely.
    Decoding reuses cached keys and values while the context fits in max_len; past
    it, the window slides and the last max_len tokens are recomputed each step.
    """
    if max_new_tokens < 0:
        raise ValueError("max_new_tokens must be >= 0")
    if temperature < 0:
        raise ValueError("temperature must be >= 0")
    if top_k is not None and top_k <= 0:
        raise ValueError("top_k must be a positive integer")
    limit = model.cfg.max_len if model.cfg.positional in ("learned", "sinusoidal") else 0
    was_training = model.training
    model.eval()  # sampling must not see dropout
    try:
        cache = model.new_cache()
        pending = idx
        for _ in range(max_new_tokens):
            if limit and cache.length + pending.shape[1] > limit:
                cache, pending = model.new_cache(), idx[:, -limit:]
            logits = model(pending, cache)[:, -1, :]  # (B, vocab)
            next_token = _sample(logits, temperature, top_k, generator)
            idx = torch.cat((idx, next_token), dim=1)
            pending = next_token
    finally:
        model.train(was_training)
    return idx


def _sample(logits: Tensor, temperature: float, top_k: int | None,
            generator: torch.Generator | None) -> Tensor:
    if top_k is not None and top_k < logits.shape[-1]:
        kth = torch.topk(logits, top_k, dim=-1).values[:, -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    if temperature == 0:
        return logits.argmax(dim=-1, keepdim=True)
    probs = torch.softmax(logits / temperature, dim=-1)
    return torch.multinomial(probs, 1, generator=generator)
