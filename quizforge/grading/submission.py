"""What a hidden test sees of a student's submission: the `submission` fixture's API.

Hidden suites are written only against `Submission` and `RemoteObject`. Both
implementations send the same requests to the worker's `Server`
(quizforge/grading/sandboxed/worker.py) through the wire protocol:

* the isolated one (`quizforge.grading.isolated`), used by `quiz grade`: the
  submission lives in a sandboxed worker process and only plain data crosses
  back (tensors rebuilt from raw bytes, numbers, strings, lists, dicts);
* the loopback one (`quizforge.grading.loopback`), which runs the Server in this
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
from typing import Any, Callable, Iterator

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
        (see sandboxed/models.py). Returns {"value": the result, "calls": [shape of each
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
        """Train a model built in the worker from its description (sandboxed/models.py) for `steps`
        steps with the submission's optimizer class `name` (see sandboxed/models.train). Returns
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

    def limit_calls(self, seconds: float) -> None:
        """Each later request may take at most `seconds` (the challenge's call_timeout); run_suite
        sets it. The sandboxed submission has its limits from the start, so by default a no-op."""


# --- requests and replies, whatever carries them -------------------------------------

KINDS = {"error", "timeout", "memory", "crash", "forbidden", "missing", "protocol"}


def reply_value(reply: Any, request_id: int, memory_message: str) -> Any:
    """The value of a worker's decoded reply, or the SubmissionError it stands for. A reply
    that is not well-formed raises SubmissionError("protocol")."""
    if type(reply) is not dict or reply.get("id") != request_id or type(reply.get("ok")) is not bool:
        raise SubmissionError("protocol", "the worker sent a reply that does not answer the request")
    if reply["ok"]:
        if set(reply) != {"id", "ok", "value"}:
            raise SubmissionError("protocol", "the worker sent a malformed reply")
        return reply["value"]
    kind, message = reply.get("kind"), reply.get("message")
    exc_type, lineno = reply.get("exc_type"), reply.get("lineno")
    if (kind not in KINDS or type(message) is not str or not (exc_type is None or type(exc_type) is str)
            or not (lineno is None or (type(lineno) is int and lineno >= 0))):
        raise SubmissionError("protocol", "the worker sent a malformed error reply")
    if kind == "memory":
        raise SubmissionError("memory", memory_message)
    return_type = exc_type[:100] if exc_type else None
    raise SubmissionError(kind, message[:500], exc_type=return_type, lineno=lineno)


class RequestObject(RemoteObject):
    """A handle on an object in the worker: each method is one request through `ask`."""

    def __init__(self, ask: Callable[..., Any], oid: int):
        self._ask_owner = ask
        self._oid = oid

    def _ask(self, op: str, **fields: Any) -> Any:
        return self._ask_owner(op, obj=self._oid, **fields)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        return self._ask("forward", args=list(args), kwargs=kwargs)

    def load_state_dict(self, state: dict[str, Any], strict: bool = True) -> None:
        self._ask("load_state_dict", state=dict(state), strict=bool(strict))

    def state_dict(self) -> dict[str, Any]:
        return self._ask("state_dict")

    def parameter_shapes(self) -> dict[str, list[int]]:
        return self._ask("parameter_shapes")

    def submodule_types(self) -> dict[str, str]:
        return self._ask("submodule_types")

    def attribute(self, name: str) -> Any:
        return self._ask("attribute", name=name)

    def backward(self, args: list[Any], grad_output: Any, kwargs: dict[str, Any] | None = None) -> dict[str, Any]:
        return self._ask("backward", args=list(args), grad_output=grad_output, kwargs=dict(kwargs or {}))


class RequestSubmission(Submission):
    """The Submission API as requests to a worker's Server: subclasses carry them (`_request`)."""

    def _request(self, op: str, **fields: Any) -> Any:
        raise NotImplementedError

    def _object(self, oid: int) -> RemoteObject:
        return RequestObject(self._request, oid)

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        return self._request("call", name=name, args=list(args), kwargs=kwargs)

    def new(self, class_name: str, *args: Any, **kwargs: Any) -> RemoteObject:
        oid = self._request("new", name=class_name, args=list(args), kwargs=kwargs)
        if type(oid) is not int:
            raise SubmissionError("protocol", "the worker answered a construction with something else")
        return self._object(oid)

    def call_with_model(self, name: str, model: dict[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        return self._request("call_with_model", name=name, model=dict(model), args=list(args), kwargs=kwargs)

    def call_with_parameters(self, name: str, values: list[Any], grads: list[Any], *args: Any,
                             **kwargs: Any) -> dict[str, Any]:
        return self._request("call_with_parameters", name=name, values=list(values), grads=list(grads),
                             args=list(args), kwargs=kwargs)

    def train(self, name: str, model: dict[str, Any], steps: int, *, groups: list[dict[str, Any]] | None = None,
              closure: bool = False, **kwargs: Any) -> dict[str, Any]:
        return self._request("train", name=name, model=dict(model), steps=int(steps), groups=groups,
                             kwargs=kwargs, closure=bool(closure))

    def grad(self, name: str, args: list[Any], grad_output: Any, kwargs: dict[str, Any] | None = None) -> list[Any]:
        return self._request("grad", name=name, args=list(args), grad_output=grad_output, kwargs=dict(kwargs or {}))

    def has(self, name: str) -> bool:
        answer = self._request("has", name=name)
        if type(answer) is not bool:
            raise SubmissionError("protocol", "the worker answered has() with something else")
        return answer
