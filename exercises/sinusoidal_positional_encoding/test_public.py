"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import math

import torch

from starter import sinusoidal_positional_encoding


def test_shape_and_dtype():
    pe = sinusoidal_positional_encoding(10, 8)
    assert pe.shape == (10, 8)
    assert pe.dtype == torch.float32, f"dtype {pe.dtype}, expected torch.float32"


def test_worked_example():
    expected = torch.tensor([[0.0000, 1.0000, 0.0000, 1.0000],
                             [0.8415, 0.5403, 0.0100, 0.9999],
                             [0.9093, -0.4161, 0.0200, 0.9998]])
    torch.testing.assert_close(sinusoidal_positional_encoding(3, 4), expected, atol=1e-4, rtol=0)


def test_one_entry_from_the_formula():
    p, i, d_model = 7, 3, 16
    angle = p / 10000 ** (2 * i / d_model)
    pe = sinusoidal_positional_encoding(10, d_model)
    assert math.isclose(pe[p, 2 * i], math.sin(angle), abs_tol=1e-5)
    assert math.isclose(pe[p, 2 * i + 1], math.cos(angle), abs_tol=1e-5)


def test_pairs_hold_sine_and_cosine_of_one_angle():
    pe = sinusoidal_positional_encoding(20, 8)
    torch.testing.assert_close(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, torch.ones(20, 4), atol=1e-5, rtol=0)
