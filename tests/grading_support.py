"""Shared helpers for the grader's tests: test-only challenges, submissions, the host's processes."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from quizforge.challenges import Challenge, read_challenge

FIXTURES = Path(__file__).resolve().parent / "grading_fixtures"
# The double suite's tests in order, and the input shape each sends (hostile code keys on it).
DOUBLE_TESTS = ["test_1_vector", "test_2_matrix", "test_3_grad", "test_4_square", "test_5_scalar"]


def fixture_challenge(name: str, **overrides) -> Challenge:
    """A test-only challenge laid out as a real one: tests/grading_fixtures/<name>/meta/."""
    return dataclasses.replace(read_challenge(FIXTURES / name), **overrides)


def write_submission(tmp_path: Path, source: str, name: str = "submission.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(source).lstrip())
    return path


def outcomes(result) -> dict[str, tuple[str, str]]:
    """test name -> (status, message)."""
    return {t.name: (t.status, t.message) for t in result.tests}


def processes_with(marker: str) -> list[int]:
    """Pids on this machine whose command line mentions `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


_NAMESPACE_PROBE = r"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
flags = 0x20000000 | 0x40000000 | 0x00020000  # pid, net, mount
print(libc.unshare(flags if os.getuid() == 0 else flags | 0x10000000) == 0)
"""


# Why a sandbox test is skipped where the sandbox cannot be built: it cannot run, so it is no pass.
# (Grading's refusal there, naming the step that failed, is checked before each such skip.)
NO_SANDBOX = ("this machine cannot build the grading sandbox (no user, pid, net or mount namespaces): "
              "only grading's refusal was checked")


def namespaces_available() -> bool:
    """Whether this machine lets the launcher create its namespaces (as it would try)."""
    out = subprocess.run([sys.executable, "-I", "-c", _NAMESPACE_PROBE], capture_output=True, text=True, timeout=30)
    return out.stdout.strip() == "True"


def is_root() -> bool:
    return os.getuid() == 0


def grade_unchecked(path: Path, challenge: Challenge, policy=None, zygote=None, capability: bool = False):
    """Grade as `quiz grade` does but without the judge's static check, and imported as plain
    Python, to test what the sandbox and the worker's guards stop on their own (a submission
    the static check would reject); `capability=True` tests the worker's capability compile alone."""
    from quizforge.grading.judge.hidden_suite import run_suite
    from quizforge.grading.judge.limits import Limits
    from quizforge.grading.judge.rules import GuardRules
    from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission

    from quizforge.grading.judge.request_submission import SubmissionError

    limits = Limits(call_seconds=challenge.call_timeout, total_seconds=challenge.total_timeout)
    rules = GuardRules(challenge.id, tuple(challenge.forbidden), tuple(challenge.imports), capability=capability)
    submission = IsolatedSubmission(path.read_bytes(), limits, rules, policy=policy, zygote=zygote)

    def import_submission() -> str | None:
        try:
            submission.start()
        except SubmissionError as exc:
            return str(exc)
        return None

    try:
        result = run_suite(challenge, submission, time_limit=limits.total_seconds, prepare=import_submission)
    finally:
        submission.close()
    result.sandbox = submission.info.as_dict()
    return result


@pytest.fixture(scope="module")
def zygote():
    """One zygote for a test module: each grading forks a worker instead of importing torch again;
    None where the sandbox cannot be built."""
    from quizforge.grading.judge.limits import Limits
    from quizforge.grading.sandbox_host.zygote_control import Zygote

    if not namespaces_available():
        yield None
        return
    z = Zygote(Limits())
    z.start()
    yield z
    z.close()
