"""Forbidden APIs at run time, inside the worker: Python-level traps and a dispatcher guard.

A challenge forbids dotted names such as `torch.nn.functional.softmax`. The judge's
static check (quizforge/grading/forbidden.py) rejects every spelling it can read. Here,
two more layers catch what it cannot:

* traps: each forbidden callable, and its aliases in torch's namespaces, is replaced by
  a function that records the call and raises;
* a dispatcher guard: a TorchDispatchMode that sits below every Python spelling and
  refuses the ATen kernels behind a forbidden API (`aten::_softmax` behind softmax,
  the fused SDPA kernels behind scaled_dot_product_attention, ...), so
  `torch.ops.aten._softmax` or a C-level alias cannot reach them either.

A call that hits either layer is recorded in HITS, and the judge reports the request
as kind "forbidden" even if the submission swallowed the exception.
"""

from __future__ import annotations

import importlib
import sys
from typing import Iterable

# The ATen kernels behind each forbidden API, keyed by the API's leaf name. Composite
# operators decompose on their way to the dispatcher, so these are the names a
# TorchDispatchMode sees (checked for CPU in the tests).
_SDPA = ("_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention",
         "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
         "_scaled_dot_product_fused_attention_overrideable")
KERNELS: dict[str, tuple[str, ...]] = {
    "softmax": ("_softmax", "_safe_softmax"),
    "log_softmax": ("_log_softmax",),
    "layer_norm": ("native_layer_norm",),
    "LayerNorm": ("native_layer_norm",),
    "scaled_dot_product_attention": _SDPA,
    "multi_head_attention_forward": ("_native_multi_head_attention", *_SDPA),
    "MultiheadAttention": ("_native_multi_head_attention", *_SDPA),
    "TransformerEncoderLayer": ("_transformer_encoder_layer_fwd", "_native_multi_head_attention", *_SDPA),
}


class ForbiddenCall(Exception):
    """Raised by a trap or the guard: the submission called a forbidden API."""


# (api, line in the submission) for every forbidden call during the current request.
HITS: list[tuple[str, int | None]] = []


def _submission_line(path: str) -> int | None:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == path:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _record(api: str, path: str) -> ForbiddenCall:
    HITS.append((api, _submission_line(path)))
    return ForbiddenCall(f"{api} is forbidden in this challenge")


# --- traps -------------------------------------------------------------------------

def _trap(api: str, path: str):
    def trap(*args, **kwargs):
        raise _record(api, path)
    trap.__name__ = api.rsplit(".", 1)[-1]
    trap.__qualname__ = trap.__name__
    return trap


def _resolve(dotted: str):
    """(owner object, attribute name, current value) for a dotted name, importing its module."""
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:-1]:
            owner = getattr(owner, attr)
        return owner, parts[-1], getattr(owner, parts[-1])
    raise LookupError(dotted)


def install_traps(forbidden: Iterable[str], submission_path: str) -> list[str]:
    """Replace each forbidden callable, and its aliases in torch's namespaces, by a trap.
    Returns the names that could not be trapped (the guard and the static check remain)."""
    import torch

    namespaces = [torch, torch.functional, torch.nn.functional, torch.special, torch.linalg,
                  torch._C._VariableFunctions, torch._C._nn, torch._C._special, torch.Tensor, torch._C.TensorBase]
    missed = []
    for api in forbidden:
        try:
            owner, attr, original = _resolve(api)
        except (LookupError, AttributeError):
            missed.append(api)
            continue
        trap = _trap(api, submission_path)
        if isinstance(original, type):
            # A class (e.g. torch.nn.MultiheadAttention): trap construction, whatever it is called.
            def init(self, *args, _trap=trap, **kwargs):
                _trap()
            original.__init__ = init
            continue
        try:
            setattr(owner, attr, trap)
        except (AttributeError, TypeError):
            missed.append(api)
            continue
        for space in namespaces:
            try:
                items = list(vars(space).items())
            except TypeError:
                continue
            for name, value in items:
                if value is original:
                    try:
                        setattr(space, name, trap)
                    except (AttributeError, TypeError):
                        pass  # a C type's own table; the guard below still sees the kernel
    return missed


# --- the torch-level guards -----------------------------------------------------------

def refused_names(forbidden: Iterable[str]) -> dict[str, str]:
    """Operator or kernel name -> the forbidden API it implements: the API's own leaf name
    (as torch.ops and the C bindings call it) and the ATen kernels behind it."""
    found: dict[str, str] = {}
    for api in forbidden:
        leaf = api.rsplit(".", 1)[-1]
        found.setdefault(leaf, api)
        for kernel in KERNELS.get(leaf, ()):
            found.setdefault(kernel, api)
    return found


def _op_name(func) -> str:
    """'softmax' for torch.softmax, Tensor.softmax, torch.ops.aten.softmax and aten.softmax.int."""
    name = getattr(func, "__name__", "")
    return name.split(".", 1)[0] if isinstance(name, str) else ""


class TorchGuards:
    """A TorchFunctionMode (every torch function, method and torch.ops call, before composite
    operators decompose) and a TorchDispatchMode (the kernels after) that refuse the
    forbidden APIs for as long as they stay at the bottom of torch's mode stacks."""

    def __init__(self, forbidden: Iterable[str], submission_path: str):
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode

        refused = refused_names(forbidden)
        path = submission_path

        def check(func) -> None:
            api = refused.get(_op_name(func))
            if api is not None:
                raise _record(api, path)

        class FunctionGuard(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                check(func)
                return func(*args, **(kwargs or {}))

        class DispatchGuard(TorchDispatchMode):
            @classmethod
            def _should_skip_dynamo(cls) -> bool:
                return False  # else torch wraps the handler in a dynamo guard that imports torch._dynamo (1 s)

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                check(func)
                return func(*args, **(kwargs or {}))

        self.active = bool(refused)
        self.function_mode = FunctionGuard() if self.active else None
        self.dispatch_mode = DispatchGuard() if self.active else None

    def install(self) -> None:
        if self.active:  # entered for the worker's whole life
            self.function_mode.__enter__()
            self.dispatch_mode.__enter__()

    def intact(self) -> bool:
        """Whether both guards are still at the bottom of their stacks (the submission may have popped them)."""
        if not self.active:
            return True
        import torch

        try:
            return (torch._C._len_torch_function_stack() >= 1
                    and torch._C._get_function_stack_at(0) is self.function_mode
                    and torch._C._len_torch_dispatch_stack() >= 1
                    and torch._C._get_dispatch_stack_at(0) is self.dispatch_mode)
        except Exception:  # noqa: BLE001 - unreadable means not provably intact
            return False
