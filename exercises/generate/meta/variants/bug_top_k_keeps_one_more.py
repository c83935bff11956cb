"""Reference solution: temperature and top-k sampling from a language model."""

import torch


@torch.no_grad()
def generate(model, idx: torch.Tensor, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None,
             generator: torch.Generator | None = None) -> torch.Tensor:
    block_size = getattr(model, "block_size", None)
    for _ in range(max_new_tokens):
        context = idx if block_size is None else idx[:, -block_size:]
        logits = model(context)[:, -1, :] / temperature
        if top_k is not None:
            kth = torch.topk(logits, min(top_k + 1, logits.shape[-1]), dim=-1).values[:, -1:]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        probs = torch.softmax(logits, dim=-1)
        idx = torch.cat((idx, torch.multinomial(probs, 1, generator=generator)), dim=1)
    return idx
