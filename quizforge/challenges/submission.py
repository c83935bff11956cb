"""What a hidden test sees of a student's submission: the `submission` fixture's API.

The contract between the hidden suites and the grader: the suites (and `checks`) are
written against it, and `quizforge.grading` implements it, so the challenges never import
the grader.

Hidden suites are written only against `Submission` and `RemoteObject`. Both of the
grader's implementations send the same requests to the worker's `Server`
(quizforge/grading/sandbox_inside/worker.py) through the wire protocol:

* the isolated one (`quizforge.grading.sandbox_host.isolated_submission`), used by `quiz grade`: the
  submission lives in a sandboxed worker process and only plain data crosses
  back (tensors rebuilt from raw bytes, numbers, strings, lists, dicts);
* the loopback one (`quizforge.grading.judge.loopback_submission`), which runs the Server in this
  process: the unisolated baseline for `bench/` and for checking the suites
  against known solutions. It is never used on untrusted code.

Values that may cross, in either direction: None, bool, int, float, str,
list/tuple (tuples come back as tuples), dict with str keys or with int keys, bytes, torch.Tensor
(dense, strided; any of the standard dtypes), torch.dtype and torch.device.
Every tensor a suite receives is a plain `torch.Tensor` the judge built
itself, never an object of the submission's making.
"""

from __future__ import annotations

import contextlib
import contextvars
from typing import Any, Iterator

# Bytes the current request is expected to return beyond what its own arguments could turn
# into (an output whose size comes from integer arguments, such as a positional-encoding
# table): the judge's cap on the reply grows by this much. See sandbox.reply_cap.
_EXPECTED_REPLY_BYTES: contextvars.ContextVar[int] = contextvars.ContextVar("expected_reply_bytes", default=0)


@contextlib.contextmanager
def expecting_reply(nbytes: int) -> Iterator[None]:
    """Within the block, replies may be `nbytes` larger than their requests alone allow."""
    token = _EXPECTED_REPLY_BYTES.set(max(0, int(nbytes)))
    try:
        yield
    finally:
        _EXPECTED_REPLY_BYTES.reset(token)


def expected_reply_bytes() -> int:
    return _EXPECTED_REPLY_BYTES.get()


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

    def call_with_model(self, name: str, model: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        """name(model, *args, **kwargs), the model built in the worker from its description
        (see quizforge/challenges/models.py). Returns {"value": the result, "calls": [shape of each
        context the model was called with]}."""
        raise NotImplementedError

    def call_with_parameters(self, name: str, values: list[Any], grads: list[Any], *args: Any,
                             **kwargs: Any) -> dict[str, Any]:
        """name(parameters, *args, **kwargs) on nn.Parameters made in the worker from `values`, each
        with its .grad from `grads` (None for no gradient). Returns {"value": the result,
        "grads": [each parameter's .grad after the call, or None]}."""
        raise NotImplementedError

    def train(self, name: str, model: dict[str, Any], steps: int, *, groups: list[dict[str, Any]] | None = None,
              closure: bool = False, **kwargs: Any) -> dict[str, Any]:
        """Train a model built in the worker from its description (challenges/models.py) for `steps`
        steps with the submission's optimizer class `name` (see models.train). Returns
        {"params": {name: tensor after training}, "returns": [what each step() returned]}."""
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
