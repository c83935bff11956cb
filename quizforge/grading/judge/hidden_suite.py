"""The judge: runs a challenge's hidden suite in this (trusted) process.

The suite sees the submission only through the `submission` fixture, whichever
implementation backs it; results are collected from pytest's own reports in
memory, never from files. Each run draws its inputs from a grading seed
(quizforge/challenges/seeds.py): a fresh one unless the caller gives one to reproduce
a grading, and recorded in the result either way.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest

from quizforge.challenges import Challenge, seeds
from quizforge.grading.judge.request_submission import Submission, SubmissionError

MESSAGE_LIMIT = 500


@dataclass
class TestResult:
    name: str            # test id within the suite, e.g. "test_rows_sum_to_one[batched]"
    status: str          # "passed" | "failed" | "skipped"
    score: float
    max_score: float
    message: str = ""
    duration: float = 0.0


@dataclass
class SuiteResult:
    challenge: str
    tests: list[TestResult] = field(default_factory=list)
    duration: float = 0.0
    output: str = ""     # the grader's own messages (e.g. a syntax error), shown once
    submission_output: str = ""  # what the submission printed, fenced (see output.py)
    sandbox: dict = field(default_factory=dict)  # how the isolated run went: workers, timings, notes
    seed: int | None = None  # the grading seed every input was drawn from (None: no test ran)

    @property
    def score(self) -> float:
        return sum(t.score for t in self.tests)

    @property
    def max_score(self) -> float:
        return sum(t.max_score for t in self.tests)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 1] + "…"


def _failure_message(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    for prefix in ("AssertionError: ", "Failed: ", "quizforge.challenges.submission.SubmissionError: "):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return _short(text.split("\nassert ")[0])


class _Plugin:
    """Provides the `submission` fixture and collects each test's outcome."""

    def __init__(self, challenge: Challenge, submission: Submission | None, deadline: float | None = None,
                 limit_message: str = "timed out (suite limit)", prepare: Callable[[], str | None] | None = None,
                 progress: Callable[[int, int], None] | None = None):
        self.challenge = challenge
        self.progress = progress
        self.started = 0                         # tests begun so far, for `progress`
        self.submission = submission
        self.deadline = deadline
        self.limit_message = limit_message
        self.prepare = prepare
        self.failure: str | None = None          # from prepare: every test fails with it
        self.error: BaseException | None = None  # raised by prepare: re-raised once pytest is done
        self.results: dict[str, TestResult] = {}
        self.collected: list[str] = []

    @pytest.fixture(name="submission")
    def submission_fixture(self) -> Submission:
        return self.submission

    def pytest_configure(self, config) -> None:
        # Only the failing line is shown to students; pytest's source-level tracebacks
        # cost about a third of the judge's time.
        config.option.tbstyle = "native"

    def pytest_collection_modifyitems(self, items) -> None:
        self.collected = [item.name for item in items]

    def pytest_collection_finish(self, session) -> None:
        # Collection done: now the submission may be needed (a worker started earlier has been
        # importing torch meanwhile).
        if self.prepare is not None:
            try:
                self.failure = self.prepare()
            except BaseException as exc:  # noqa: BLE001 - pytest would swallow it; run_suite re-raises
                self.error = exc
                session.shouldstop = "the submission could not be prepared"

    def pytest_runtest_setup(self, item) -> None:
        if self.failure is not None:
            pytest.fail(self.failure, pytrace=False)
        # Past the suite's deadline, the remaining tests fail without running.
        if self.deadline is not None and time.monotonic() >= self.deadline:
            pytest.fail(self.limit_message, pytrace=False)

    def pytest_runtest_logstart(self, nodeid: str, location) -> None:
        if self.progress is not None:
            self.started += 1
            self.progress(self.started, len(self.collected))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        name = report.nodeid.split("::")[-1]
        weight = self.challenge.weight(name)
        previous = self.results.get(name)
        if report.when == "call" or report.failed or (report.skipped and previous is None):
            if previous is not None and previous.status == "failed":
                return  # a teardown error never turns a failure into a pass
            if report.passed:
                self.results[name] = TestResult(name, "passed", weight, weight, duration=report.duration)
            elif report.skipped:
                self.results[name] = TestResult(name, "skipped", 0.0, weight, _failure_message(report))
            else:
                self.results[name] = TestResult(name, "failed", 0.0, weight, _failure_message(report),
                                                report.duration)


def _forget_other_suites(challenge: Challenge) -> None:
    """pytest's importlib mode caches a test module under its file's name, and every challenge's
    suite is meta/test_hidden.py: one cached from another challenge must not stand in for this one."""
    for path in challenge.suite_files:
        cached = sys.modules.get(path.stem)
        if cached is not None and Path(getattr(cached, "__file__", "") or "").resolve() != path.resolve():
            del sys.modules[path.stem]


def _pytest_args(challenge: Challenge) -> list[str]:
    _forget_other_suites(challenge)
    return [str(p) for p in challenge.suite_files] + [
        "-p", "no:terminal", "-p", "no:cacheprovider", "-p", "no:unraisableexception", "--noconftest", "--import-mode=importlib",
        "-c", str(Path(__file__).resolve().parent / "pytest.ini"), "--rootdir", str(challenge.meta),
        "-o", "addopts=", "-W", "ignore::pytest.PytestConfigWarning",
    ]


def run_suite(challenge: Challenge, submission: Submission, extra_args: list[str] | None = None, *,
              deadline: float | None = None, time_limit: float | None = None,
              prepare: Callable[[], str | None] | None = None,
              progress: Callable[[int, int], None] | None = None, seed: int | None = None) -> SuiteResult:
    """Run the hidden suite against `submission`; every collected test gets a result.

    Its inputs come from `seed` (a fresh secret one when None), kept in the result.

    `deadline` (time.monotonic()) or `time_limit` (seconds from now) bounds the whole
    suite: once past it, the tests not yet run fail with "timed out (suite limit ...)".
    `prepare` runs once the tests are collected; if it returns a message, every test
    fails with it (e.g. the submission could not be imported); what it raises is re-raised.
    `progress(n, total)` is called as the n-th of the suite's `total` tests begins.
    """
    start = time.perf_counter()
    if deadline is None and time_limit is not None:
        deadline = time.monotonic() + time_limit
    total = time_limit if time_limit is not None else challenge.total_timeout
    plugin = _Plugin(challenge, submission, deadline, f"timed out (suite limit of {total:g} s)", prepare, progress)
    seed = seeds.fresh() if seed is None else seed
    if submission is not None:
        submission.limit_calls(challenge.call_timeout)
    with seeds.using(seed):
        exit_code = pytest.main(_pytest_args(challenge) + list(extra_args or []), plugins=[plugin])
    if plugin.error is not None:
        raise plugin.error
    if exit_code == pytest.ExitCode.INTERRUPTED:
        raise KeyboardInterrupt  # pytest turned Ctrl-C into a partial run; the caller must stop
    result = SuiteResult(challenge.id, duration=time.perf_counter() - start, output=plugin.failure or "", seed=seed)
    for name in plugin.collected:
        # An expected test with no result counts as failed.
        result.tests.append(plugin.results.get(
            name, TestResult(name, "failed", 0.0, challenge.weight(name), "no result was recorded")))
    return result


def failed_suite(challenge: Challenge, message: str) -> SuiteResult:
    """Every test of the suite failed with one message, without running any (e.g. a syntax error)."""
    start = time.perf_counter()
    plugin = _Plugin(challenge, None)
    pytest.main(_pytest_args(challenge) + ["--collect-only"], plugins=[plugin])
    result = SuiteResult(challenge.id, duration=time.perf_counter() - start, output=message)
    one_line = _short(message)
    result.tests = [TestResult(name, "failed", 0.0, challenge.weight(name), one_line) for name in plugin.collected]
    return result


__all__ = ["SuiteResult", "TestResult", "failed_suite", "run_suite", "SubmissionError"]
