"""grade()'s progress callback: called as each hidden test begins, 1..N of N."""

from __future__ import annotations

from pathlib import Path

import pytest

from grading_support import NO_SANDBOX, namespaces_available, write_submission
from quizforge.challenges import load_challenge
from quizforge.grading.grade import grade
from quizforge.grading.judge.hidden_suite import failed_suite
from quizforge.grading.sandbox_host.sandbox import SandboxPolicy

SOLUTIONS = Path(__file__).resolve().parents[2] / "solutions"
# The real sandbox where this machine can build it; the reference solution is trusted code.
POLICY = None if namespaces_available() else SandboxPolicy(isolated=False)


def test_progress_counts_every_hidden_test_of_a_real_challenge():
    calls = []
    result = grade(SOLUTIONS / "softmax.py", "softmax", policy=POLICY, progress=lambda n, total: calls.append((n, total)))
    total = len(failed_suite(load_challenge("softmax"), "collect only").tests)   # what pytest collects
    assert total >= 10 and len(result.tests) == total
    assert calls == [(n, total) for n in range(1, total + 1)]
    assert result.score == result.max_score > 0


def test_progress_counts_tests_that_fail_because_the_import_failed(tmp_path):
    path = write_submission(tmp_path, "raise RuntimeError('boom')\n\ndef softmax(x, dim=-1):\n    return x\n")
    calls = []
    result = grade(path, "softmax", policy=POLICY, progress=lambda n, total: calls.append((n, total)))
    assert result.score == 0
    assert calls == [(n, len(result.tests)) for n in range(1, len(result.tests) + 1)]


def test_no_progress_when_the_submission_is_rejected_before_it_runs(tmp_path):
    path = write_submission(tmp_path, "def softmax(x, dim=-1:\n    return x\n")
    calls = []
    result = grade(path, "softmax", progress=lambda n, total: calls.append((n, total)))
    assert result.score == 0 and result.output.startswith("syntax error")
    assert calls == []


def test_the_spinner_names_the_hanging_test_on_a_terminal_while_it_hangs(tmp_path):
    """pytest, run inside `quiz grade`, points fd 2 elsewhere while each test runs: the spinner
    draws on its own copy of the terminal, so "test 1 of N" is on screen during test 1's
    10-second hang, not only in the last moment."""
    import os
    import pty
    import re
    import sys
    import time

    if not namespaces_available():
        pytest.skip(NO_SANDBOX)
    path = write_submission(tmp_path, "def softmax(x, dim=-1):\n    while True:\n        pass\n")
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-m", "quizforge", "grade", str(path), "--challenge", "softmax"])
    started, first_test, text = time.monotonic(), None, b""
    while True:
        try:
            data = os.read(fd, 4096)
        except OSError:
            break
        if not data:
            break
        text += data
        if first_test is None and re.search(rb"test 1 of \d+", text):
            first_test = time.monotonic()
    os.waitpid(pid, 0)
    ended = time.monotonic()
    assert first_test is not None, text[-2000:]
    assert ended - first_test > 5, (first_test - started, ended - started)  # shown during the hang
    assert b"total" in text  # and the result table came after
