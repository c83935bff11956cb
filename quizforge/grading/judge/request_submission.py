"""The grader's side of the `submission` fixture: the Submission API as requests to a worker.

The API itself (`Submission`, `RemoteObject`, `SubmissionError`) is the hidden suites'
contract and lives with them, in quizforge.challenges.submission; here are the requests
and replies that carry it, whatever carries them: the sandbox's pipes (sandbox_host/isolated_submission.py)
or this process (loopback_submission.py).
"""

from __future__ import annotations

from typing import Any, Callable

from quizforge.challenges.submission import (RemoteObject, Submission, SubmissionError, expected_reply_bytes,
                                             expecting_reply)

__all__ = ["KINDS", "RemoteObject", "RequestObject", "RequestSubmission", "Submission", "SubmissionError",
           "expected_reply_bytes", "expecting_reply", "reply_value"]


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

    def limit_calls(self, seconds: float) -> None:
        """Each later request may take at most `seconds` (the challenge's call_timeout); run_suite
        sets it. The sandboxed submission has its limits from the start, so by default a no-op."""

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
