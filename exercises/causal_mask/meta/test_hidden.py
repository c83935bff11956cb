"""Hidden suite for `causal_mask(n, device=None)`: a bool (n, n) mask, True where j <= i."""

from __future__ import annotations

import pytest
import torch

from quizforge.challenges import checks


def expected(n: int) -> torch.Tensor:
    rows = torch.arange(n)[:, None]
    cols = torch.arange(n)[None, :]
    return cols <= rows


def known_mistakes(n: int) -> list[tuple[str, torch.Tensor]]:
    allowed = expected(n)
    return [
        ("the diagonal is left out (j < i): a query may attend to its own position, so mask[i, i] is True",
         allowed & ~torch.eye(n, dtype=torch.bool)),
        ("it is transposed: True above the diagonal lets query i see the future keys j > i; "
         "keep the lower triangle (tril), not the upper", allowed.T),
        ("it is inverted: True must mean 'may attend' (PyTorch's boolean-mask convention), "
         "so the past and the diagonal are True and the future is False", ~allowed),
        ("it allows everything: the future keys j > i must be False", torch.ones(n, n, dtype=torch.bool)),
    ]


def get_mask(submission, n: int, **kwargs) -> torch.Tensor:
    mask = checks.call(submission, "causal_mask", n, **kwargs)
    return checks.expect_tensor(mask, f"causal_mask({n})", shape=(n, n), dtype=torch.bool)


def assert_mask(mask: torch.Tensor, n: int) -> None:
    if torch.equal(mask, expected(n)):
        return
    for description, wrong in known_mistakes(n):
        if torch.equal(mask, wrong):
            raise AssertionError(f"causal_mask({n}): {description}")
    i, j = (int(v) for v in (mask != expected(n)).nonzero()[0])
    raise AssertionError(f"causal_mask({n})[{i}, {j}] is {bool(mask[i, j])}, expected {j <= i} "
                         "(True exactly when j <= i)")


def test_dtype_and_shape(submission):
    get_mask(submission, 4)


def test_small_mask(submission):
    assert_mask(get_mask(submission, 3), 3)


@pytest.mark.parametrize("n", [1, 2, 5, 16])
def test_matches_lower_triangle(submission, n):
    assert_mask(get_mask(submission, n), n)


def test_diagonal_is_allowed(submission):
    mask = get_mask(submission, 6)
    missing = [i for i in range(6) if not bool(mask[i, i])]
    assert not missing, (f"causal_mask(6) is False on the diagonal at {missing}: "
                         "a query may attend to its own position, so mask[i, i] must be True")


def test_future_is_masked(submission):
    mask = get_mask(submission, 6)
    future = torch.ones(6, 6, dtype=torch.bool).triu(diagonal=1)
    seen = future & mask
    assert not bool(seen.any()), (
        f"causal_mask(6) is True at {tuple(int(v) for v in seen.nonzero()[0])}, a key after its query: "
        "the future (j > i) must be False")
    past = ~future
    hidden = past & ~mask
    assert not bool(hidden.any()), (
        f"causal_mask(6) is False at {tuple(int(v) for v in hidden.nonzero()[0])}, a key at or before its query: "
        "the past and present (j <= i) must be True")


@pytest.mark.parametrize("device", ["cpu", torch.device("cpu")], ids=["str", "torch.device"])
def test_device_argument(submission, device):
    mask = get_mask(submission, 4, device=device)
    assert mask.device.type == "cpu", f"causal_mask(4, device={device!r}) is on {mask.device}, expected cpu"
    assert_mask(mask, 4)
