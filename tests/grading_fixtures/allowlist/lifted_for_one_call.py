# Attack (issue #20, item 4): both guards lifted around one call, back before anyone looks.
import torch
from torch.utils._python_dispatch import _disable_current_modes


def softmax(x, dim=-1):
    with torch._C.DisableTorchFunction():
        with _disable_current_modes():
            return torch.ops.aten._softmax(x, dim, False)
