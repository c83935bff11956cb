import torch


def cross_entropy(logits, targets):
    # Bug: no maximum subtracted, so exp overflows (or underflows) for large logits.
    log_normaliser = torch.log(torch.exp(logits).sum(-1))
    return (log_normaliser - logits.gather(-1, targets.unsqueeze(-1)).squeeze(-1)).mean()
