"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch

from starter import causal_mask


def test_worked_example():
    expected = torch.tensor([[True, False, False],
                             [True, True, False],
                             [True, True, True]])
    assert torch.equal(causal_mask(3), expected)


def test_dtype_and_shape():
    mask = causal_mask(5)
    assert mask.dtype == torch.bool, f"dtype {mask.dtype}, expected torch.bool"
    assert mask.shape == (5, 5)


def test_each_position_sees_itself():
    assert causal_mask(4).diagonal().all(), "mask[i, i] must be True"


def test_device_argument():
    assert causal_mask(2, device="cpu").device.type == "cpu"
