"""Running meta kernels without importing torch._dynamo.

Many of torch's meta kernels are Python references wrapped in `torch._disable_dynamo`,
whose first call imports torch._dynamo (about 0.7 s, with sympy and torch.fx behind it)
only to wrap the kernel in "don't trace this". A process that has never imported
torch._dynamo has nothing tracing it, so the unwrapped kernel is the same computation.
While `dynamo_free()` is active, `import torch._dynamo` finds a stand-in whose
`disable(fn)` is `fn` itself; torch caches that per kernel (its `__dynamo_disable`).

The stand-in is removed on exit, so a later real import works; anything that asks the
stand-in for more than `disable` gets the real torch._dynamo (the import just costs
what it always did). If torch._dynamo is already imported, nothing changes.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import sys
import threading
import types
from typing import Callable, Iterator, TypeVar

_NAME = "torch._dynamo"
_lock = threading.RLock()
Fn = TypeVar("Fn", bound=Callable)


class _StandIn(types.ModuleType):
    """torch._dynamo as the meta kernels use it: `disable(fn, ...)` gives fn back."""

    @staticmethod
    def disable(fn=None, recursive=True, *, reason=None, wrapping=True):
        if fn is None:
            return lambda f: f
        return fn

    def __getattr__(self, name: str):
        # Someone needs the real thing: step aside and import it.
        _remove(self)
        return getattr(importlib.import_module(_NAME), name)


def _remove(stand_in: types.ModuleType) -> None:
    import torch

    if sys.modules.get(_NAME) is stand_in:
        del sys.modules[_NAME]
    if vars(torch).get("_dynamo") is stand_in:
        delattr(torch, "_dynamo")


@contextlib.contextmanager
def dynamo_free() -> Iterator[None]:
    import torch

    with _lock:
        if _NAME in sys.modules:
            yield
            return
        stand_in = _StandIn(_NAME)
        sys.modules[_NAME] = stand_in
        torch._dynamo = stand_in  # `import torch._dynamo` reads it back as an attribute of torch
        try:
            yield
        finally:
            _remove(stand_in)


def without_dynamo_import(fn: Fn) -> Fn:
    """Run FN inside `dynamo_free()`."""

    @functools.wraps(fn)
    def run(*args, **kwargs):
        with dynamo_free():
            return fn(*args, **kwargs)

    return run  # type: ignore[return-value]
