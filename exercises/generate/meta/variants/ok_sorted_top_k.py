import torch


def generate(model, idx, max_new_tokens, temperature=1.0, top_k=None, generator=None):
    """Top-k by sorting, and the crop from the model's attribute when it has one."""
    limit = getattr(model, "block_size", None)
    with torch.no_grad():
        for _ in range(max_new_tokens):
            logits = model(idx if limit is None else idx[:, -limit:])[:, -1, :] / temperature
            if top_k is not None and top_k < logits.shape[-1]:
                threshold = logits.sort(dim=-1, descending=True).values[:, top_k - 1:top_k]
                logits = torch.where(logits < threshold, torch.full_like(logits, -float("inf")), logits)
            nxt = torch.multinomial(logits.softmax(-1), num_samples=1, generator=generator)
            idx = torch.cat([idx, nxt], dim=-1)
    return idx
