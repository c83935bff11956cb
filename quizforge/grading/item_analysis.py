"""Item analysis of a batch: how each hidden test went across the class, and why it failed.

For every test: its pass rate, and its most common failure messages, with the numbers
in them blanked (`line 12` and `line 13` are one message), so that a class-wide mistake
shows as one line with its count. Messages of the hidden suites name the classic bugs
("the softmax runs over the queries"), so the commonest messages are the commonest bugs.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from quizforge.grading.gradebook import hidden_tests, write_atomically
from quizforge.grading.judge import SuiteResult
from quizforge.grading.text_safety import markdown_text, plain

TOP_MESSAGES = 3
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def message_pattern(message: str) -> str:
    """The message with its numbers replaced by #: one pattern for one kind of failure. Messages
    come partly from submissions: no control or bidi character survives (text_safety.py)."""
    return _NUMBER.sub("#", " ".join(plain(message).split()))


# checks.attempt's wording for a call that raised or died, with no hint naming the bug after it.
_BARE_ERROR = re.compile(r"\) (raised|failed \(\w+\):) ")


def is_diagnosis(pattern: str) -> bool:
    """Whether a failure names the bug ("the softmax overflows …") rather than only reporting what
    the submission raised (`softmax(…) raised NotImplementedError`)."""
    return not _BARE_ERROR.search(pattern) or " — " in pattern


def analyse(graded: list[tuple[str, SuiteResult]]) -> list[dict]:
    items = []
    for name in hidden_tests(graded):
        outcomes = [t for _, r in graded for t in r.tests if t.name == name]
        passed = sum(t.status == "passed" for t in outcomes)
        failures = Counter(message_pattern(t.message) for t in outcomes if t.status == "failed" and t.message)
        # Ties go to a named diagnosis over a bare exception (sorted is stable: first seen next).
        ranked = sorted(failures.items(), key=lambda pair: (-pair[1], not is_diagnosis(pair[0])))
        items.append({
            "test": name, "submissions": len(outcomes), "passed": passed,
            "pass_rate": round(passed / len(outcomes), 4) if outcomes else None,
            "common_failures": [{"message": m, "count": c} for m, c in ranked[:TOP_MESSAGES]],
        })
    return items


def markdown(items: list[dict], challenge: str) -> str:
    lines = [f"# Item analysis: {challenge}", ""]
    if not items:
        return "\n".join(lines + ["Nothing was graded, so there is nothing to analyse."]) + "\n"
    lines += ["| test | pass rate | most common failure |", "|---|---:|---|"]
    for item in items:
        rate = "—" if item["pass_rate"] is None else f"{100 * item['pass_rate']:.0f}% of {item['submissions']}"
        top = item["common_failures"][0] if item["common_failures"] else None
        failure = f"{markdown_text(top['message'])} ({top['count']}×)" if top else ""
        lines.append(f"| `{plain(item['test']).replace('`', chr(39))}` | {rate} | {failure} |")
    return "\n".join(lines) + "\n"


def write_item_analysis(out: Path, graded: list[tuple[str, SuiteResult]], challenge: str = "") -> list[dict]:
    items = analyse(graded)
    challenge = graded[0][1].challenge if graded else challenge
    write_atomically(out / "item_analysis.json", json.dumps(items, indent=2, ensure_ascii=False) + "\n")
    write_atomically(out / "item_analysis.md", markdown(items, challenge))
    return items
