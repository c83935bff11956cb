import torch


def softmax(x, dim=-1):
    last = x.movedim(dim, -1)
    e = (last - last.max(-1, keepdim=True)[0]).exp()
    return (e / e.sum(-1, keepdim=True)).movedim(-1, dim)
