# Attack (issue #20, item 3): aten::_sparse_softmax on a COO tensor holding every element.
import torch


def softmax(x, dim=-1):
    every = torch.stack(torch.meshgrid(*[torch.arange(n) for n in x.shape], indexing="ij")).reshape(x.dim(), -1)
    full = torch.sparse_coo_tensor(every, x.reshape(-1), x.shape, check_invariants=False)
    return torch.ops.aten._sparse_softmax.default(full.coalesce(), dim % x.dim(), False).to_dense()
