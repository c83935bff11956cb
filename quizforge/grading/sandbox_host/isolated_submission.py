"""`IsolatedSubmission`: the submission fixture backed by a sandboxed worker.

Every request goes to the worker under the per-call limit, capped by what is left of
the suite's. When a request kills the worker (memory, crash, garbage on the pipe) that
request fails and the next one starts a fresh worker, which imports the submission
again. A call that timed out is not waited on again: every later request fails at
once with the same message, and so do all of them after the worker has died
MAX_CRASHES times, so a submission that hangs or crashes in every call is graded fast. Objects live in the worker; a handle from before a restart raises
SubmissionError("crash") instead of silently talking to a new object. After a second
restart a spare worker is kept warming up, so a submission that keeps killing workers
does not pay a torch import per test.
"""

from __future__ import annotations

import time
from typing import Any

from quizforge.grading.judge.limits import STARTUP_SECONDS, Limits

MAX_CRASHES = 5
from quizforge.grading.judge.output import CapturedOutput
from quizforge.grading.judge.request_submission import RemoteObject, RequestObject, RequestSubmission, SubmissionError
from quizforge.grading.judge.rules import GuardRules
from quizforge.grading.sandbox_host.sandbox import Sandbox, SandboxInfo, SandboxPolicy, StartupTimeout


class IsolatedSubmission(RequestSubmission):
    def __init__(self, source: bytes, limits: Limits, forbidden: GuardRules | tuple[str, ...] = (), *,
                 deadline: float | None = None, policy: SandboxPolicy | None = None, zygote=None):
        self.source = source
        self.limits = limits
        self.rules = GuardRules.of(forbidden)  # a bare tuple: forbidden APIs only, plain Python (tests)
        self.deadline = deadline
        self.policy = policy
        self.zygote = zygote  # a quizforge.grading.sandbox_host.zygote_control.Zygote to fork workers from, or None
        self.crashes = 0
        self.gave_up: SubmissionError | None = None  # set once the worker is not worth restarting
        self.output = CapturedOutput()
        self.starts = 0                          # workers started, restarts included
        self.startup_seconds: list[float] = []   # until the worker's hello, as the judge measured it
        self.torch_import_seconds: list[float] = []  # inside each worker, as it reported
        self.info = SandboxInfo()
        self._sandbox: Sandbox | None = None
        self._spare: Sandbox | None = None
        self._generation = 0

    # --- the worker's lifetime ---------------------------------------------------

    def _suite_message(self) -> str:
        return f"timed out (suite limit of {self.limits.total_seconds:g} s)"

    def _call_deadline(self) -> tuple[float, str]:
        end = time.monotonic() + self.limits.call_seconds
        if self.deadline is not None and self.deadline < end:
            return self.deadline, self._suite_message()
        return end, f"timed out after {self.limits.call_seconds:g} s (per-call limit)"

    def prelaunch(self) -> None:
        """Start the first worker without waiting: it imports torch while the judge collects."""
        if self._spare is None and self._sandbox is None:
            self._spare = self._launch()

    def start(self) -> None:
        """Have a worker ready with the submission imported. SubmissionError if the import fails."""
        self._worker()

    def _worker(self) -> Sandbox:
        if self._sandbox is not None and self._sandbox.alive:
            return self._sandbox
        self._discard()
        now = time.monotonic()
        if self.deadline is not None and now >= self.deadline:
            raise SubmissionError("timeout", self._suite_message())
        self._generation += 1
        self.starts += 1
        sandbox, self._spare = self._spare or self._launch(), None
        self._sandbox = sandbox
        if self.starts >= 3:
            # A submission that has killed two workers will likely kill more: keep a spare
            # importing torch meanwhile, so the next restart costs no startup.
            self._spare = self._launch()
        startup_deadline = now + STARTUP_SECONDS
        try:
            sandbox.wait_ready(min(startup_deadline, self.deadline or startup_deadline))
        except StartupTimeout:
            self._discard()
            if self.deadline is not None and self.deadline < startup_deadline:
                raise SubmissionError("timeout", self._suite_message()) from None
            raise
        except BaseException:
            self._discard()
            raise
        self.info = sandbox.info
        self.startup_seconds.append(time.monotonic() - now)
        self.torch_import_seconds.append(sandbox.torch_import_seconds)
        deadline, message = self._call_deadline()
        try:
            sandbox.request({"op": "load"}, deadline, f"importing the submission {message}",
                            during="while being imported")
        except SubmissionError as exc:
            self._discard()
            raise SubmissionError(exc.kind, f"the submission could not be imported: {exc}") from None
        return sandbox

    def _launch(self) -> Sandbox:
        if self.zygote is not None:
            sandbox = self.zygote.sandbox(self.source, self.rules, self.limits, self.output)
        else:
            sandbox = Sandbox(self.source, self.rules, self.limits, self.output, self.policy)
        try:
            sandbox.launch()
        except BaseException:
            sandbox.kill()
            raise
        return sandbox

    def _discard(self) -> None:
        if self._sandbox is not None:
            self._sandbox.kill()
            self._sandbox = None

    def _request(self, op: str, generation: int | None = None, **fields: Any) -> Any:
        if generation is not None and (generation != self._generation or self._sandbox is None):
            raise SubmissionError("crash", "this object was lost when the worker was restarted after an earlier failure")
        if self.gave_up is not None:
            raise SubmissionError(self.gave_up.kind, self.gave_up.message, lineno=self.gave_up.lineno)
        sandbox = self._worker()
        deadline, message = self._call_deadline()
        try:
            return sandbox.request({"op": op, **fields}, deadline, message)
        except SubmissionError as exc:
            self._count_failure(exc)
            raise
        finally:
            if not sandbox.alive:
                self._discard()

    def _count_failure(self, exc: SubmissionError) -> None:
        if exc.kind == "timeout":
            self.gave_up = exc  # waiting again would only take as long again
        elif exc.kind in ("crash", "memory", "protocol") and not (self._sandbox and self._sandbox.alive):
            self.crashes += 1
            if self.crashes >= MAX_CRASHES:
                self.gave_up = SubmissionError(exc.kind, f"{exc.message} (the worker died {self.crashes} times; "
                                                         "the remaining tests were not run)", lineno=exc.lineno)

    # --- the Submission interface ------------------------------------------------

    def _object(self, oid: int) -> RemoteObject:
        generation = self._generation
        # Objects live in one worker: a handle from before a restart must not reach a new one.
        return RequestObject(lambda op, **fields: self._request(op, generation=generation, **fields), oid)

    def new(self, class_name: str, *args: Any, **kwargs: Any) -> RemoteObject:
        try:
            return super().new(class_name, *args, **kwargs)
        except SubmissionError as exc:
            if exc.kind == "protocol":
                self._discard()
            raise

    def has(self, name: str) -> bool:
        try:
            return super().has(name)
        except SubmissionError as exc:
            if exc.kind == "protocol":
                self._discard()
            raise

    def close(self) -> None:
        self._discard()
        if self._spare is not None:
            self._spare.kill()
            self._spare = None
