"""Challenge: a numerically stable cross-entropy loss. See README.md."""

import torch


def cross_entropy(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """The mean over all positions of -log(softmax(logits)[target]).

    logits: (..., V) floating; targets: (...) long, each in 0..V-1.
    Returns a 0-d tensor of logits' dtype. It must stay finite for logits scaled by 1000.
    Do not use F.cross_entropy, F.nll_loss, nn.CrossEntropyLoss, log_softmax or torch.logsumexp.
    """
    raise NotImplementedError("write cross_entropy")
