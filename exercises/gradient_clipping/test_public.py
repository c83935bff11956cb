"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch

from starter import clip_grad_norm


def with_grads(*grads):
    params = []
    for grad in grads:
        p = torch.zeros(grad.shape, requires_grad=True)
        p.grad = grad.clone()
        params.append(p)
    return params


def test_the_example_is_clipped():
    a, b = with_grads(torch.tensor([3.0, 0.0]), torch.tensor([4.0]))
    norm = clip_grad_norm([a, b], max_norm=1.0)
    assert type(norm) is float and abs(norm - 5.0) < 1e-6
    assert torch.allclose(a.grad, torch.tensor([0.6, 0.0])) and torch.allclose(b.grad, torch.tensor([0.8]))


def test_a_small_norm_is_left_alone():
    (a,) = with_grads(torch.tensor([0.3, 0.4]))
    assert abs(clip_grad_norm(iter([a]), max_norm=1.0) - 0.5) < 1e-6
    assert torch.equal(a.grad, torch.tensor([0.3, 0.4]))


def test_parameters_without_grad_are_skipped():
    (a,) = with_grads(torch.tensor([6.0, 8.0]))
    frozen = torch.zeros(3, requires_grad=True)
    assert abs(clip_grad_norm([frozen, a], max_norm=5.0) - 10.0) < 1e-5
    assert frozen.grad is None and torch.allclose(a.grad, torch.tensor([3.0, 4.0]))
