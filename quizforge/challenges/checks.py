"""Assertions shared by the hidden suites: type, dtype and shape first, then values, then a diagnosis.

A failed assertion's message is what the student reads. Messages name shapes,
dtypes, tolerances and where the worst error is, never the hidden inputs'
values. When a wrong answer matches one of the classic mistakes (computed here,
in the judge, by `quizforge.challenges.mistakes`), the message names the mistake.

Every request to the submission goes through `attempt`, so that a raise, a
timeout or a forbidden call becomes one readable line saying which call failed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import torch
from torch import Tensor

from quizforge.challenges import seeds
from quizforge.challenges.submission import RemoteObject, Submission, SubmissionError, expecting_reply

Mistake = tuple[str, Tensor]  # (what the student did, the output that mistake gives)


# --- inputs ---------------------------------------------------------------------

def seeded(stream: int | str) -> torch.Generator:
    """A private generator for input stream `stream` of this grading: each test's inputs depend only on
    its own stream and the grading's secret seed (quizforge.challenges.seeds), never on fixed numbers."""
    return torch.Generator().manual_seed(seeds.derive(stream))


def integer(gen: torch.Generator, low: int, high: int) -> int:
    """A whole number from low to high inclusive, e.g. a size or a position."""
    return int(torch.randint(low, high + 1, (), generator=gen))


def randn(gen: torch.Generator, *shape: int, scale: float = 1.0, dtype: torch.dtype = torch.float32) -> Tensor:
    return torch.randn(shape, generator=gen, dtype=dtype) * scale


def random_mask(gen: torch.Generator, *shape: int) -> Tensor:
    """A bool mask whose every row (last dim) has at least one True and one False.

    So no query attends to nothing, under the mask or under its inverse: a
    fully masked row has no graded value, and would hide an inverted mask.
    """
    if shape[-1] < 2:
        raise ValueError("a mask row needs at least two keys to hold both a True and a False")
    mask = torch.rand(shape, generator=gen) < 0.5
    keep = torch.randint(shape[-1], shape[:-1], generator=gen)
    drop = (keep + 1 + torch.randint(shape[-1] - 1, shape[:-1], generator=gen)) % shape[-1]
    mask.scatter_(-1, keep.unsqueeze(-1), True)
    mask.scatter_(-1, drop.unsqueeze(-1), False)
    return mask


# --- talking to the submission ----------------------------------------------------

def describe(value: Any) -> str:
    """How an argument is shown in messages: a tensor by dtype and shape only."""
    if isinstance(value, Tensor):
        return f"{str(value.dtype).removeprefix('torch.')}{list(value.shape)}"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(describe(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)


def describe_call(name: str, *args: Any, **kwargs: Any) -> str:
    parts = [describe(a) for a in args] + [f"{k}={describe(v)}" for k, v in kwargs.items()]
    return f"{name}({', '.join(parts)})"


ERROR_TEXT_LIMIT = 200  # of the submission's own error, so that a hint after it survives the judge's cut


def attempt(action: str, fn: Callable[..., Any], *args: Any, hint: str = "", **kwargs: Any) -> Any:
    """Run one request to the submission; a SubmissionError becomes an assertion naming `action`."""
    __tracebackhide__ = True  # failures point at the test, not at this helper
    try:
        return fn(*args, **kwargs)
    except SubmissionError as exc:
        how = "raised" if exc.kind == "error" else f"failed ({exc.kind}):"
        error = str(exc)
        if len(error) > ERROR_TEXT_LIMIT:
            error = error[: ERROR_TEXT_LIMIT - 1] + "…"
        raise AssertionError(f"{action} {how} {error}" + (f" — {hint}" if hint else "")) from None


def call(submission: Submission, name: str, *args: Any, hint: str = "", expect_shape: Iterable[int] = (),
         **kwargs: Any) -> Any:
    """submission.call(name, ...), failures reported with the arguments' shapes. `expect_shape`:
    the shape of an output that the tensor arguments do not bound (one made from integers), so
    the judge accepts a reply that large (as float64) and no larger."""
    __tracebackhide__ = True  # failures point at the test, not at this helper
    expected = math.prod(expect_shape) * 8 if expect_shape else 0
    with expecting_reply(expected):
        return attempt(describe_call(name, *args, **kwargs), submission.call, name, *args, hint=hint, **kwargs)


def construct(submission: Submission, class_name: str, *args: Any, **kwargs: Any) -> RemoteObject:
    __tracebackhide__ = True  # failures point at the test, not at this helper
    return attempt(describe_call(class_name, *args, **kwargs), submission.new, class_name, *args, **kwargs)


def forward(obj: RemoteObject, class_name: str, *args: Any, hint: str = "", **kwargs: Any) -> Any:
    __tracebackhide__ = True  # failures point at the test, not at this helper
    return attempt(describe_call(f"{class_name}.forward", *args, **kwargs), obj.forward, *args, hint=hint, **kwargs)


def load_parameters(obj: RemoteObject, class_name: str, state: Mapping[str, Tensor]) -> None:
    """Load `state` after checking that every parameter exists with the right shape.

    Loaded non-strictly, so an extra buffer is tolerated; the parameter check
    makes sure nothing the test relies on is silently left at its initial value.
    """
    __tracebackhide__ = True  # failures point at the test, not at this helper
    shapes = attempt(f"{class_name}.named_parameters()", obj.parameter_shapes)
    for name, tensor in state.items():
        assert name in shapes, (
            f"{class_name} has no parameter {name!r} (it has {sorted(shapes) or 'none'}): "
            "it must be a registered parameter (an nn.Parameter, or a submodule's) of that name")
        assert list(shapes[name]) == list(tensor.shape), (
            f"{class_name}'s parameter {name!r} has shape {list(shapes[name])}, expected {list(tensor.shape)}")
    attempt(f"{class_name}.load_state_dict(...)", obj.load_state_dict, dict(state), strict=False)


# --- types and shapes -------------------------------------------------------------

def expect_tensor(value: Any, what: str, *, shape: Iterable[int], dtype: torch.dtype) -> Tensor:
    """Assert that `value` is a tensor of this dtype and shape; return it detached."""
    __tracebackhide__ = True  # failures point at the test, not at this helper
    assert isinstance(value, Tensor), f"{what} should be a torch.Tensor, got {type(value).__name__}"
    assert value.dtype == dtype, f"{what} has dtype {value.dtype}, expected {dtype}"
    assert list(value.shape) == list(shape), f"{what} has shape {list(value.shape)}, expected {list(shape)}"
    return value.detach()


def expect_pair(value: Any, what: str) -> tuple[Any, Any]:
    """A function documented to return two things returned exactly two."""
    __tracebackhide__ = True  # failures point at the test, not at this helper
    assert isinstance(value, (tuple, list)) and len(value) == 2, (
        f"{what} should return a tuple (output, weights), got "
        + (f"a {type(value).__name__} of length {len(value)}" if isinstance(value, (tuple, list))
           else type(value).__name__))
    return value[0], value[1]


def first_output(value: Any) -> Any:
    """A module's output, whether it returned the tensor alone or a tuple starting with it."""
    return value[0] if isinstance(value, (tuple, list)) and value else value


# --- values ---------------------------------------------------------------------

def tolerance(atol: float, rtol: float) -> str:
    return f"atol={atol:g}, rtol={rtol:g}"


def _graded(actual: Tensor, ignore: Tensor | None) -> Tensor:
    """Bool tensor: True where a value counts."""
    if ignore is None:
        return torch.ones(actual.shape, dtype=torch.bool)
    return ~torch.broadcast_to(ignore, actual.shape)


def agrees(actual: Tensor, expected: Tensor, *, atol: float, rtol: float, ignore: Tensor | None = None) -> bool:
    """Elementwise close where graded; NaN agrees with NaN (so a NaN-giving mistake can be recognised)."""
    if actual.shape != expected.shape:
        return False
    close = torch.isclose(actual.double(), expected.double(), rtol=rtol, atol=atol, equal_nan=True)
    return bool((close | ~_graded(actual, ignore)).all())


def assert_values(actual: Tensor, expected: Tensor, *, what: str, atol: float, rtol: float,
                  mistakes: Iterable[Mistake] = (), hint: str = "", ignore: Tensor | None = None) -> None:
    """Assert `actual` ≈ `expected` (where not ignored); otherwise name the first matching mistake,
    or else report the largest error, its index and the tolerance."""
    __tracebackhide__ = True  # failures point at the test, not at this helper
    if agrees(actual, expected, atol=atol, rtol=rtol, ignore=ignore):
        return
    for description, wrong in mistakes:
        # A mistake that gives the right answer on these inputs says nothing about this one.
        if agrees(wrong, expected, atol=atol, rtol=rtol, ignore=ignore):
            continue
        if agrees(actual, wrong, atol=atol, rtol=rtol, ignore=ignore):
            raise AssertionError(f"{what}: {description} "
                                 f"(your values match this mistake; {tolerance(atol, rtol)})")
    graded = _graded(actual, ignore)
    error = (actual.double() - expected.double()).abs()
    error = torch.where(torch.isnan(error), torch.inf, error).masked_fill(~graded, 0.0)
    worst = int(error.flatten().argmax())
    index = tuple(int(i) for i in torch.unravel_index(torch.tensor(worst), actual.shape))
    message = (f"{what}: the largest error is {float(error.flatten()[worst]):.3g}, at index {index}, "
               f"beyond the tolerance {tolerance(atol, rtol)}")
    not_finite = int((~torch.isfinite(actual) & graded).sum())
    if not_finite:
        message += f"; {not_finite} of {int(graded.sum())} values are NaN or infinite"
    raise AssertionError(message + (f" — {hint}" if hint else ""))


def assert_sums_to_one(probabilities: Tensor, *, what: str, dim: int, atol: float,
                       ignore_rows: Tensor | None = None, hint: str = "") -> None:
    """Every slice along `dim` sums to 1 (within atol), except rows marked in `ignore_rows`."""
    __tracebackhide__ = True  # failures point at the test, not at this helper
    sums = probabilities.double().sum(dim=dim)
    wrong = ~((sums - 1).abs() <= atol)  # NaN counts as wrong
    if ignore_rows is not None:
        wrong &= ~torch.broadcast_to(ignore_rows, sums.shape)
    if bool(wrong.any()):
        index = tuple(int(i) for i in wrong.nonzero()[0])
        where = f"slice {index}" if len(index) != 1 else f"row {index[0]}"
        raise AssertionError(f"{where} of {what} sums to {float(sums[index]):.4g} along dim={dim}, "
                             f"not 1 (atol={atol:g})" + (f" — {hint}" if hint else ""))


def assert_gradient(actual: Any, expected: Tensor, *, wrt: str, dtype: torch.dtype,
                    atol: float, rtol: float) -> None:
    """A gradient the submission computed, against the reference's (which may be in float64)."""
    __tracebackhide__ = True  # failures point at the test, not at this helper
    what = f"the gradient with respect to {wrt}"
    assert actual is not None, (
        f"no gradient reached {wrt}: autograd cannot follow your computation back to it "
        "(avoid .detach(), .data, .item(), numpy and torch.no_grad inside it)")
    actual = expect_tensor(actual, what, shape=expected.shape, dtype=dtype)
    hint = ""
    if bool((actual == 0).all()) and not bool((expected == 0).all()):
        hint = "it is all zeros: is part of the computation detached from autograd?"
    assert_values(actual, expected, what=what, atol=atol, rtol=rtol, hint=hint)
