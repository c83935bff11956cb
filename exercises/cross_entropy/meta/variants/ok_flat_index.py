import torch


def cross_entropy(logits, targets):
    flat = logits.reshape(-1, logits.shape[-1])
    picked = flat[torch.arange(flat.shape[0]), targets.reshape(-1)]
    m = flat.max(dim=1).values
    log_normaliser = m + torch.log(torch.sum(torch.exp(flat - m[:, None]), dim=1))
    return torch.mean(log_normaliser - picked)
