# Attack (issue #20, item 5): torch reached as `(torch,)[0]`, then its C bindings.
import torch


def softmax(x, dim=-1):
    T = (torch,)[0]
    return T._C._VariableFunctions._softmax(x, dim, False)
