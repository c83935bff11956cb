# Attack (issue #20, item 5): pydoc.locate hands back torch._masked_softmax by a string.
import pydoc

import torch


def softmax(x, dim=-1):
    return pydoc.locate("torch._masked_softmax")(x, torch.zeros_like(x, dtype=torch.bool), dim % x.dim())
