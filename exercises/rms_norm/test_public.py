"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch

from starter import RMSNorm


def test_parameters():
    norm = RMSNorm(4)
    params = dict(norm.named_parameters())
    assert set(params) == {"weight"}, f"parameters {sorted(params)}, expected only weight"
    assert torch.equal(params["weight"], torch.ones(4))


def test_worked_examples():
    out = RMSNorm(4)(torch.tensor([1.0, 2.0, 3.0, 4.0]))
    torch.testing.assert_close(out, torch.tensor([0.3651, 0.7303, 1.0954, 1.4606]), atol=1e-4, rtol=0)
    norm = RMSNorm(4)
    norm.load_state_dict({"weight": torch.tensor([1.0, 2.0, 0.5, -1.0])})
    torch.testing.assert_close(norm(torch.tensor([3.0, -4.0, 0.0, 0.0])), torch.tensor([1.2, -3.2, 0.0, 0.0]),
                               atol=1e-4, rtol=0)


def test_the_mean_is_not_subtracted():
    # Shifting a row changes its RMS: an RMS-normalised row keeps its sign pattern and mean square 1.
    x = torch.randn(3, 8, generator=torch.Generator().manual_seed(0)) + 5.0
    out = RMSNorm(8)(x)
    assert out.shape == x.shape and out.dtype == x.dtype
    assert (out > 0).all(), "every entry of these rows is positive, so every output must be too"
    torch.testing.assert_close((out ** 2).mean(-1), torch.ones(3), atol=1e-4, rtol=1e-4)


def test_small_values_and_custom_eps():
    x = torch.randn(2, 3, 6, generator=torch.Generator().manual_seed(1)) * 1e-3  # mean square ~1e-6
    for eps in (1e-5, 0.1):
        expected = x / torch.sqrt((x ** 2).mean(-1, keepdim=True) + eps)
        torch.testing.assert_close(RMSNorm(6, eps=eps)(x), expected, atol=1e-5, rtol=1e-4)
