# Attack (issue #20, item 3): a softmax kernel that no deny-list named, reached as `(torch,)[0]`.
import torch


def softmax(x, dim=-1):
    T = (torch,)[0]
    keep_all = T.zeros_like(x, dtype=T.bool)
    return T._masked_softmax(x, keep_all, dim % x.dim())
