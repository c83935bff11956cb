"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch

from starter import AdamW


def test_the_example():
    p = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    opt = AdamW([p], lr=0.1, weight_decay=0.5)
    p.grad = torch.tensor([0.3, 0.0])
    assert opt.step() is None
    assert torch.allclose(p.detach(), torch.tensor([0.85, -1.9]))


def test_two_steps_by_hand():
    # t=2, lr=0.01, no decay, g=1 then g=-1: m = 0.1·0.9 − 0.1 = −0.01, v = 0.001·0.999 + 0.001.
    p = torch.nn.Parameter(torch.tensor([0.0]))
    opt = AdamW([p], lr=0.01, weight_decay=0.0)
    for g in (1.0, -1.0):
        p.grad = torch.tensor([g])
        opt.step()
    m_hat, v_hat = -0.01 / (1 - 0.9 ** 2), (0.001 * 0.999 + 0.001) / (1 - 0.999 ** 2)
    expected = -0.01 - 0.01 * m_hat / (v_hat ** 0.5 + 1e-8)
    assert abs(p.item() - expected) < 1e-6


def test_closure_loss_is_returned():
    p = torch.nn.Parameter(torch.tensor([2.0]))
    opt = AdamW([p], lr=0.1)

    def closure():
        opt.zero_grad()
        loss = (p ** 2).sum()
        loss.backward()
        return loss

    assert opt.step(closure).item() == 4.0
    assert p.item() < 2.0
