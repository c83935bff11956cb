"""A graded suite as plain JSON data and back, for batch jobs and resumable batches.

What is read back was written by quizforge itself (a job's stdout, a batch's own output
folder), but the folder is the user's: every field is type-checked, and a file that does
not hold a result is simply graded again.
"""

from __future__ import annotations

from typing import Any

from quizforge.challenges import seeds
from quizforge.grading.judge.hidden_suite import SuiteResult, TestResult

STATUSES = ("passed", "failed", "skipped")


def result_to_dict(result: SuiteResult) -> dict[str, Any]:
    return {
        "challenge": result.challenge, "duration": result.duration, "output": result.output,
        "submission_output": result.submission_output, "sandbox": result.sandbox, "seed": result.seed,
        "tests": [{"name": t.name, "status": t.status, "score": t.score, "max_score": t.max_score,
                   "message": t.message, "duration": t.duration} for t in result.tests],
    }


def result_from_dict(data: Any) -> SuiteResult | None:
    """The SuiteResult, or None if `data` is not one."""
    if not isinstance(data, dict) or not isinstance(data.get("tests"), list):
        return None
    tests = []
    for t in data["tests"]:
        if not (isinstance(t, dict) and isinstance(t.get("name"), str) and t.get("status") in STATUSES
                and all(isinstance(t.get(k), (int, float)) for k in ("score", "max_score", "duration"))
                and isinstance(t.get("message"), str)):
            return None
        tests.append(TestResult(t["name"], t["status"], float(t["score"]), float(t["max_score"]), t["message"],
                                float(t["duration"])))
    fields = (data.get("challenge"), data.get("output"), data.get("submission_output"))
    if not all(isinstance(f, str) for f in fields) or not isinstance(data.get("duration"), (int, float)) \
            or not isinstance(data.get("sandbox"), dict):
        return None
    seed = data.get("seed")
    if seed is not None and (type(seed) is not int or not 0 <= seed <= seeds.MAX_SEED):
        return None
    return SuiteResult(data["challenge"], tests, float(data["duration"]), data["output"], data["submission_output"],
                       data["sandbox"], seed)
