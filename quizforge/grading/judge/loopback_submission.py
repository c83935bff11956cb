"""`LoopbackSubmission`: the worker's request handling, run in this process. Trusted code only.

Every request is encoded, decoded, handled by the worker's own `Server` and its reply
encoded and decoded again, exactly as across the sandbox's pipes, so checking a hidden
suite against the known solutions exercises the same code as grading, minus the
process and the isolation around it. The baseline of bench/bench_grade.py.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Any

from quizforge.challenges import models
from quizforge.grading.judge.request_submission import RequestSubmission, SubmissionError, reply_value
from quizforge.grading.sandbox_inside import protocol
from quizforge.grading.sandbox_inside.worker import Server


class _CallTimedOut(BaseException):
    """Raised by the timer inside a request that ran past its limit (a BaseException, so that the
    submission's `except Exception` cannot swallow it)."""


class LoopbackSubmission(RequestSubmission):
    def __init__(self, path: str | Path):
        self._server = Server(str(Path(path).resolve()), models=models)
        self._next_id = 0
        self._call_limit: float | None = None
        self._request("load")

    def limit_calls(self, seconds: float) -> None:
        """As the sandbox does, a request past `seconds` fails with kind "timeout" (by a timer signal,
        so only in the main thread; elsewhere requests are not limited)."""
        self._call_limit = float(seconds)

    def _handle(self, request: Any) -> bytes:
        limit = self._call_limit
        if not limit or threading.current_thread() is not threading.main_thread():
            return self._server.handle(request)

        def expire(signum, frame):
            raise _CallTimedOut

        previous = signal.signal(signal.SIGALRM, expire)
        try:
            signal.setitimer(signal.ITIMER_REAL, limit)
            try:
                return self._server.handle(request, reraise=(_CallTimedOut,))
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
        except _CallTimedOut:
            return protocol.encode({"id": request.get("id"), "ok": False, "kind": "timeout",
                                    "message": f"the call took longer than the {limit:g} s limit"})
        finally:
            signal.signal(signal.SIGALRM, previous)

    def _request(self, op: str, **fields: Any) -> Any:
        self._next_id += 1
        try:
            frame = protocol.encode({"op": op, "id": self._next_id, **fields})
        except protocol.EncodeError as exc:
            raise TypeError(f"the hidden test passed a value that cannot be sent to the worker: {exc}") from None
        reply_frame = self._handle(protocol.decode_frame(frame))
        try:
            reply = protocol.decode_frame(reply_frame)
        except protocol.ProtocolError as exc:
            raise SubmissionError("protocol", exc.message) from None
        return reply_value(reply, self._next_id, "out of memory")
