import torch


def softmax(x, dim=-1):
    # Bug: exp of the raw logits overflows to inf (and inf / inf is NaN).
    exps = torch.exp(x)
    return exps / exps.sum(dim=dim, keepdim=True)
