"""The judge: runs a challenge's hidden suite in this (trusted) process.

The suite sees the submission only through the `submission` fixture, whichever
implementation backs it; results are collected from pytest's own reports in
memory, never from files.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from quizforge.challenges import Challenge
from quizforge.grading.submission import Submission, SubmissionError

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
    output: str = ""     # grading-level messages (e.g. a syntax error), shown once

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
    for prefix in ("AssertionError: ", "Failed: ", "quizforge.grading.submission.SubmissionError: "):
        if text.startswith(prefix):
            text = text[len(prefix):]
    return _short(text.split("\nassert ")[0])


class _Plugin:
    """Provides the `submission` fixture and collects each test's outcome."""

    def __init__(self, challenge: Challenge, submission: Submission):
        self.challenge = challenge
        self.submission = submission
        self.results: dict[str, TestResult] = {}
        self.collected: list[str] = []

    @pytest.fixture(name="submission")
    def submission_fixture(self) -> Submission:
        return self.submission

    def pytest_collection_modifyitems(self, items) -> None:
        self.collected = [item.name for item in items]

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


def run_suite(challenge: Challenge, submission: Submission, extra_args: list[str] | None = None) -> SuiteResult:
    """Run the hidden suite against `submission`; every collected test gets a result."""
    plugin = _Plugin(challenge, submission)
    start = time.perf_counter()
    args = [str(p) for p in challenge.suite_files] + [
        "-p", "no:terminal", "-p", "no:cacheprovider", "--noconftest", "--import-mode=importlib",
        "-c", str(Path(__file__).resolve().parent.parent / "challenges" / "pytest.ini"), "--rootdir", str(challenge.folder),
        "-o", "addopts=", "-W", "ignore::pytest.PytestConfigWarning",
        *(extra_args or []),
    ]
    pytest.main(args, plugins=[plugin])
    result = SuiteResult(challenge.id, duration=time.perf_counter() - start)
    for name in plugin.collected:
        # An expected test with no result counts as failed.
        result.tests.append(plugin.results.get(
            name, TestResult(name, "failed", 0.0, challenge.weight(name), "no result was recorded")))
    return result


__all__ = ["SuiteResult", "TestResult", "run_suite", "SubmissionError"]
