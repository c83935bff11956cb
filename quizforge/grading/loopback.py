"""`LoopbackSubmission`: the worker's request handling, run in this process. Trusted code only.

Every request is encoded, decoded, handled by the worker's own `Server` and its reply
encoded and decoded again, exactly as across the sandbox's pipes, so checking a hidden
suite against the known solutions exercises the same code as grading, minus the
process and the isolation around it. The baseline of bench/bench_grade.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quizforge.grading.sandboxed import protocol
from quizforge.grading.sandboxed.worker import Server
from quizforge.grading.submission import RequestSubmission, SubmissionError, reply_value


class LoopbackSubmission(RequestSubmission):
    def __init__(self, path: str | Path):
        self._server = Server(str(Path(path).resolve()))
        self._next_id = 0
        self._request("load")

    def _request(self, op: str, **fields: Any) -> Any:
        self._next_id += 1
        try:
            frame = protocol.encode({"op": op, "id": self._next_id, **fields})
        except protocol.EncodeError as exc:
            raise TypeError(f"the hidden test passed a value that cannot be sent to the worker: {exc}") from None
        reply_frame = self._server.handle(protocol.decode_frame(frame))
        try:
            reply = protocol.decode_frame(reply_frame)
        except protocol.ProtocolError as exc:
            raise SubmissionError("protocol", exc.message) from None
        return reply_value(reply, self._next_id, "out of memory")
