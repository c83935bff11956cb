"""grade()'s progress callback: called as each hidden test begins, 1..N of N."""

from __future__ import annotations

from pathlib import Path

from grading_support import namespaces_available, write_submission
from quizforge.challenges import load_challenge
from quizforge.grading.grade import grade
from quizforge.grading.judge import failed_suite
from quizforge.grading.sandbox import SandboxPolicy

SOLUTIONS = Path(__file__).resolve().parent.parent / "solutions"
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
