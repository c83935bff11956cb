"""A graded suite as Gradescope's results.json or as JUnit XML, and the plain pieces the
terminal table (quizforge/cli/grade_view.py) is drawn from.

Messages and output come partly from the submission (exception texts, prints), so
every format strips control characters and bidi overrides (intake/text_safety.py).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from quizforge.grading.intake.text_safety import plain
from quizforge.grading.judge.hidden_suite import SuiteResult

# What XML 1.0 cannot hold and what would drive a terminal or reorder a line: see text_safety.
clean = plain


def points(value: float) -> str:
    return f"{value:g}"


UNSAFE_WARNING = ("WARNING: graded with --unsafe-no-sandbox: the submission ran without isolation "
                  "and could have changed this result")
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")


def sandbox_summary(result: SuiteResult) -> str:
    """One line saying what held while the submission ran."""
    box = result.sandbox
    if not box:
        return "sandbox: the submission never ran (rejected before it could)"
    if box.get("mode") == "unsafe":
        return UNSAFE_WARNING
    limits = box.get("limits", {})
    memory = limits.get("memory_bytes")
    parts = [f"namespaces {'+'.join(box.get('namespaces', []))}", f"uid {box.get('uid')}",
             f"visible: {len(box.get('visible', []))} allowed paths (interpreter, system libraries, torch)"]
    if memory:
        parts.append(f"memory {memory / 2**30:g} GiB")
    if limits.get("processes"):
        parts.append(f"processes {limits['processes']}")
    if box.get("seccomp", {}).get("held"):
        parts.append("one thread (seccomp)")
    if box.get("memory"):
        parts.append(f"memory bound: {box['memory']}")
    return "sandbox: isolated · " + " · ".join(parts)


def seed_line(result: SuiteResult) -> str:
    """Which seed the hidden inputs came from, and how to grade with the same ones again."""
    if result.seed is None:
        return ""
    return f"inputs: seed {result.seed}, fresh for each grading (--seed {result.seed} grades with the same inputs)"


def _all_output(result: SuiteResult) -> str:
    parts = [result.output, result.submission_output, seed_line(result)]
    if result.sandbox.get("mode") == "unsafe":
        parts.insert(0, UNSAFE_WARNING)
    return "\n\n".join(p for p in parts if p)


def gradescope(result: SuiteResult, visibility: str = "after_due_date") -> dict[str, Any]:
    """The fields of Gradescope's results.json (autograder specification), plus a `sandbox`
    block and the grading's `seed` (Gradescope keeps extra keys). `visibility` applies to every hidden test."""
    return {
        "score": result.score,
        "max_score": result.max_score,
        "execution_time": round(result.duration, 3),
        "output": clean(_all_output(result)),
        "stdout_visibility": "hidden",
        "seed": result.seed,
        "sandbox": result.sandbox,
        "tests": [
            {
                "name": test.name,
                "score": test.score,
                "max_score": test.max_score,
                "status": "passed" if test.status == "passed" else "failed",
                "output": clean(test.message) if test.status != "skipped" else clean(f"skipped: {test.message}"),
                "visibility": visibility,
            }
            for test in result.tests
        ],
    }


def _flat(prefix: str, value: Any) -> list[tuple[str, str]]:
    """("sandbox.limits.memory_bytes", "2147483648") pairs; lists joined by commas."""
    if isinstance(value, dict):
        return [pair for k, v in value.items() for pair in _flat(f"{prefix}.{k}", v)]
    if isinstance(value, (list, tuple)):
        return [(prefix, ", ".join(map(str, value)))]
    return [(prefix, "" if value is None else str(value).lower() if isinstance(value, bool) else str(value))]


def junit(result: SuiteResult) -> str:
    """A JUnit XML <testsuite>, one <testcase> per test, a <failure> for each failed one."""
    failures = sum(t.status == "failed" for t in result.tests)
    skipped = sum(t.status == "skipped" for t in result.tests)
    suite = ET.Element("testsuite", {
        "name": f"quizforge.{result.challenge}", "tests": str(len(result.tests)), "failures": str(failures),
        "errors": "0", "skipped": str(skipped), "time": f"{result.duration:.3f}",
    })
    properties = ET.SubElement(suite, "properties")
    ET.SubElement(properties, "property", {"name": "score", "value": points(result.score)})
    ET.SubElement(properties, "property", {"name": "max_score", "value": points(result.max_score)})
    if result.seed is not None:
        ET.SubElement(properties, "property", {"name": "seed", "value": str(result.seed)})
    for name, value in _flat("sandbox", result.sandbox):
        ET.SubElement(properties, "property", {"name": name, "value": clean(value)})
    for test in result.tests:
        case = ET.SubElement(suite, "testcase", {
            "classname": f"quizforge.{result.challenge}", "name": clean(test.name), "time": f"{test.duration:.3f}",
        })
        if test.status == "failed":
            failure = ET.SubElement(case, "failure", {"message": clean(test.message), "type": "failed"})
            failure.text = clean(test.message)
        elif test.status == "skipped":
            ET.SubElement(case, "skipped", {"message": clean(test.message)})
    if _all_output(result):
        ET.SubElement(suite, "system-out").text = clean(_all_output(result))
    ET.indent(suite)
    return ET.tostring(suite, encoding="unicode", xml_declaration=True)


def shared_failure(result: SuiteResult) -> str | None:
    """The message every test failed with, when a rule break (a forbidden call, a syntax error, a
    missing function) failed them all alike: the table says it once, above the rows."""
    messages = {t.message for t in result.tests}
    if len(result.tests) < 2 or len(messages) != 1 or any(t.status != "failed" for t in result.tests):
        return None
    (message,) = messages
    return message or None
