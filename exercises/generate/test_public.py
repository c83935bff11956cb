"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch

from starter import generate


class Bigram(torch.nn.Module):
    """Next-token logits from the last token alone; refuses contexts longer than block_size."""

    def __init__(self, logits, block_size=None):
        super().__init__()
        self.logits = logits
        if block_size is not None:
            self.block_size = block_size

    def forward(self, idx):
        assert idx.shape[1] <= getattr(self, "block_size", idx.shape[1]), "context longer than block_size"
        return self.logits[idx]


def test_shape_and_prompt():
    model = Bigram(torch.randn(5, 5))
    idx = torch.tensor([[1, 2]])
    out = generate(model, idx, 3, generator=torch.Generator().manual_seed(0))
    assert out.shape == (1, 5) and out.dtype == torch.long and torch.equal(out[:, :2], idx)


def test_top_k_of_one_picks_the_most_likely():
    logits = torch.zeros(3, 3)
    logits[:, 2] = 5.0  # token 2 is always the most likely
    out = generate(Bigram(logits), torch.tensor([[0]]), 4, top_k=1)
    assert out.tolist() == [[0, 2, 2, 2, 2]]


def test_context_is_cropped_to_block_size():
    out = generate(Bigram(torch.randn(4, 4), block_size=2), torch.tensor([[0, 1, 2, 3]]), 2,
                   generator=torch.Generator().manual_seed(1))
    assert out.shape == (1, 6)
