"""Small models the judge can ask the worker to build, for challenges whose function takes a
model (`generate`) or trains one (`adamw`): a module cannot cross the wire, but its description can.

One file on both sides: the hidden suites import it from here to compute their expected values,
and the sandbox copies this same file in beside the worker's modules (as `models.py`, see
quizforge/grading/sandbox_host/sandbox.py worker_modules), whose `build` and `train` it serves. So it imports
the standard library and torch only, never quizforge.
"""

from __future__ import annotations

import torch
from torch import nn


class TableLM(nn.Module):
    """A language model whose next-token logits depend on the last token alone, looked up in
    a (vocab, vocab) table, plus a per-position `drift` so that cropping the context changes
    nothing while the positions of the window stay the same. It refuses a context longer than
    `block_size`, as a transformer with learned positions does."""

    def __init__(self, table: torch.Tensor, block_size: int | None = None):
        super().__init__()
        self.register_buffer("table", table.clone())
        if block_size is not None:
            self.block_size = int(block_size)
        self.calls: list[tuple[int, ...]] = []

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        if not isinstance(idx, torch.Tensor) or idx.dtype != torch.long or idx.dim() != 2:
            raise TypeError("the model takes a (B, T) LongTensor of token ids")
        block = getattr(self, "block_size", None)
        if block is not None and idx.shape[1] > block:
            raise ValueError(f"the model got a context of {idx.shape[1]} tokens; its block_size is {block}")
        self.calls.append(tuple(idx.shape))
        return self.table[idx]  # (B, T, vocab): row t holds the logits for the token after idx[:, t]


class RegressionMLP(nn.Module):
    """Linear, tanh, Linear (biases if the state has them), fitted by mean squared error to fixed batches (step t uses batch
    t mod n), for challenges that train with the submission's optimizer (`adamw`). `frozen`, a
    parameter the loss never uses, keeps a grad of None, as an optimizer must tolerate."""

    def __init__(self, state: dict, x: torch.Tensor, y: torch.Tensor):
        super().__init__()
        hidden, d_in = state["fc1.weight"].shape
        self.fc1 = nn.Linear(d_in, hidden, bias="fc1.bias" in state)
        self.fc2 = nn.Linear(hidden, state["fc2.weight"].shape[0], bias="fc2.bias" in state)
        if "frozen" in state:
            self.frozen = nn.Parameter(torch.empty_like(state["frozen"]))
        self.load_state_dict(state, strict=True)
        self.x, self.y = x.clone(), y.clone()

    def loss(self, step: int) -> torch.Tensor:
        batch = step % self.x.shape[0]
        return ((self.fc2(torch.tanh(self.fc1(self.x[batch]))) - self.y[batch]) ** 2).mean()


def build(spec: dict) -> nn.Module:
    if spec.get("kind") == "table" and isinstance(spec.get("table"), torch.Tensor):
        return TableLM(spec["table"], spec.get("block_size"))
    if spec.get("kind") == "mlp" and isinstance(spec.get("state"), dict):
        return RegressionMLP(spec["state"], spec["x"], spec["y"])
    raise ValueError("unknown model description")


def train(model: nn.Module, optimizer_class, steps: int, groups: list | None, options: dict,
          closure: bool) -> dict:
    """`steps` steps of optimizer_class(parameters or groups, **options) on model.loss: the
    judge runs the same loop with the reference optimizer. Gradients are cleared by the model,
    not the optimizer, so only the optimizer's constructor and step() are the submission's."""
    named = dict(model.named_parameters())
    if groups is None:
        params = list(named.values())
    else:
        params = [{**{k: v for k, v in group.items() if k != "names"}, "params": [named[n] for n in group["names"]]}
                  for group in groups]
    optimizer = optimizer_class(params, **options)
    returns = []
    for step in range(steps):
        def compute_loss(step=step):
            model.zero_grad(set_to_none=True)
            loss = model.loss(step)
            loss.backward()
            return loss

        if closure:
            returns.append(optimizer.step(compute_loss))
        else:
            compute_loss()
            optimizer.step()
    return {"params": {k: v.detach().clone() for k, v in named.items()}, "returns": returns}
