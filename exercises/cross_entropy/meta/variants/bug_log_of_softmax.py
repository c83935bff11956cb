import torch


def cross_entropy(logits, targets):
    exps = torch.exp(logits - logits.amax(-1, keepdim=True))
    probs = exps / exps.sum(-1, keepdim=True)
    # Bug: a probability that underflows to 0 has log -inf.
    return -torch.log(probs.gather(-1, targets.unsqueeze(-1))).mean()
