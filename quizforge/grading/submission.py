"""What a hidden test sees of a student's submission: the `submission` fixture's API.

Hidden suites are written only against `Submission` and `RemoteObject`. Two
implementations exist:

* the isolated one (`quizforge.grading.isolated`), used by `quiz grade`: the
  submission lives in a sandboxed worker process and only plain data crosses
  back (tensors rebuilt from raw bytes, numbers, strings, lists, dicts);
* `LocalSubmission` below, which imports the file in this process. It is the
  unisolated baseline for `bench/` and a convenience for writing suites. It is
  never used on untrusted code.

Values that may cross, in either direction: None, bool, int, float, str,
list/tuple (tuples come back as tuples), dict with str keys, torch.Tensor
(dense, strided; any of the standard dtypes), torch.dtype and torch.device.
Every tensor a suite receives is a plain `torch.Tensor` the judge built
itself, never an object of the submission's making.
"""

from __future__ import annotations

import importlib.util
import sys
import uuid
from pathlib import Path
from typing import Any


class SubmissionError(Exception):
    """The submission failed to answer a request. `kind` says how.

    kinds: "error" (it raised), "timeout", "memory", "crash" (the worker died or
    exited), "forbidden" (a forbidden API was called), "missing" (no such name),
    "protocol" (it answered something that is not plain data).
    """

    def __init__(self, kind: str, message: str, *, exc_type: str | None = None, lineno: int | None = None):
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.exc_type = exc_type
        self.lineno = lineno

    def __str__(self) -> str:
        where = f" (line {self.lineno})" if self.lineno else ""
        kind = f"{self.exc_type}: " if self.exc_type else ""
        return f"{kind}{self.message}{where}"


class RemoteObject:
    """A handle on an object (an nn.Module instance) that lives with the submission."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Run module(*args, **kwargs) in eval mode with grad disabled; return its output."""
        raise NotImplementedError

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict[str, Any]:
        """Copies of the module's state_dict tensors."""
        raise NotImplementedError

    def parameter_shapes(self) -> dict[str, list[int]]:
        """name -> shape of every parameter from named_parameters()."""
        raise NotImplementedError

    def submodule_types(self) -> dict[str, str]:
        """name -> fully qualified class name ("torch.nn.modules.linear.Linear") of every named submodule."""
        raise NotImplementedError

    def attribute(self, name: str) -> Any:
        """A plain-data attribute of the object (e.g. `eps`); SubmissionError("missing") if absent."""
        raise NotImplementedError

    def backward(self, args: list[Any], grad_output: Any, kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
        """Forward in train mode with grad, then out.backward(grad_output) (on the first output
        if the module returns a tuple). Returns {"inputs": [grad or None per tensor arg],
        "params": {name: grad or None}}."""
        raise NotImplementedError


class Submission:
    """A student's submission, seen through a narrow, data-only interface."""

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        """Call the submission's top-level function `name` and return its result."""
        raise NotImplementedError

    def new(self, class_name: str, *args: Any, **kwargs: Any) -> RemoteObject:
        """Instantiate the submission's class `class_name`; torch.manual_seed(0) is set first."""
        raise NotImplementedError

    def grad(self, name: str, args: list[Any], grad_output: Any, kwargs: dict[str, Any] | None = None) -> list[Any]:
        """Call function `name` with every floating tensor in `args` requiring grad, backpropagate
        grad_output from its (first) output, and return the gradient (or None) of each tensor arg."""
        raise NotImplementedError

    def has(self, name: str) -> bool:
        """Whether the submission defines a top-level name."""
        raise NotImplementedError

    def close(self) -> None:
        """Release whatever backs the submission."""


# --- the unisolated baseline -------------------------------------------------

def _first(out: Any) -> Any:
    return out[0] if isinstance(out, (tuple, list)) else out


def _guard(fn, *args: Any, **kwargs: Any) -> Any:
    """Run the submission's code; whatever it raises becomes SubmissionError("error"), as from the worker."""
    try:
        return fn(*args, **kwargs)
    except SubmissionError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise SubmissionError("error", str(exc), exc_type=type(exc).__name__) from exc


def _with_grad(args: list[Any]) -> list[Any]:
    import torch

    return [a.detach().clone().requires_grad_(True)
            if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]


class _LocalObject(RemoteObject):
    def __init__(self, obj: Any):
        self._obj = obj

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        import torch

        def run() -> Any:
            self._obj.eval()
            with torch.no_grad():
                return self._obj(*args, **kwargs)

        return _guard(run)

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        _guard(self._obj.load_state_dict, state, strict=strict)

    def state_dict(self) -> dict[str, Any]:
        return _guard(lambda: {k: v.detach().clone() for k, v in self._obj.state_dict().items()})

    def parameter_shapes(self) -> dict[str, list[int]]:
        return _guard(lambda: {k: list(p.shape) for k, p in self._obj.named_parameters()})

    def submodule_types(self) -> dict[str, str]:
        return _guard(lambda: {k: f"{type(m).__module__}.{type(m).__qualname__}"
                               for k, m in self._obj.named_modules() if k})

    def attribute(self, name: str) -> Any:
        if not hasattr(self._obj, name):
            raise SubmissionError("missing", f"the object has no attribute {name!r}")
        return _guard(getattr, self._obj, name)

    def backward(self, args: list[Any], grad_output: Any, kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
        import torch

        def run() -> dict[str, Any]:
            self._obj.train()
            self._obj.zero_grad(set_to_none=True)
            inputs = _with_grad(list(args))
            out = _first(self._obj(*inputs, **(kwargs or {})))
            out.backward(grad_output)
            return {
                "inputs": [a.grad if isinstance(a, torch.Tensor) and a.requires_grad else None for a in inputs],
                "params": {k: (None if p.grad is None else p.grad.clone()) for k, p in self._obj.named_parameters()},
            }

        return _guard(run)


class LocalSubmission(Submission):
    """Imports the submission into this process. Trusted code only: the bench baseline."""

    def __init__(self, path: str | Path):
        path = Path(path)
        name = f"_quizforge_submission_{uuid.uuid4().hex}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise SubmissionError("missing", f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:  # noqa: BLE001 - reported as data, like the isolated worker does
            sys.modules.pop(name, None)
            raise SubmissionError("error", str(exc), exc_type=type(exc).__name__) from exc
        self._module = module
        self._name = name

    def _get(self, name: str) -> Any:
        if not hasattr(self._module, name):
            raise SubmissionError("missing", f"the submission does not define {name!r}")
        return getattr(self._module, name)

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return _guard(self._get(name), *args, **kwargs)

    def new(self, class_name: str, *args: Any, **kwargs: Any) -> RemoteObject:
        import torch

        cls = self._get(class_name)
        torch.manual_seed(0)
        return _LocalObject(_guard(cls, *args, **kwargs))

    def grad(self, name: str, args: list[Any], grad_output: Any, kwargs: dict[str, Any] | None = None) -> list[Any]:
        import torch

        fn = self._get(name)

        def run() -> list[Any]:
            inputs = _with_grad(list(args))
            _first(fn(*inputs, **(kwargs or {}))).backward(grad_output)
            return [a.grad if isinstance(a, torch.Tensor) and a.requires_grad else None for a in inputs]

        return _guard(run)

    def has(self, name: str) -> bool:
        return hasattr(self._module, name)

    def close(self) -> None:
        sys.modules.pop(self._name, None)
