"""Item analysis of a batch: how each hidden test went across the class, and why it failed.

For every test: its pass rate, and its failures grouped by diagnosis, each with its count
and one real message as an example. Messages of the hidden suites name the classic bugs
("the softmax runs over the queries"): that name is the diagnosis. A failure that only says
what the submission raised is grouped by its exception (`raised NotImplementedError`), and
any other message by its wording with the numbers blanked (`line 12` and `line 13` are one
message), so that a class-wide mistake shows as one line with its count.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

from quizforge.grading.batch.gradebook import hidden_tests, write_atomically
from quizforge.grading.intake.text_safety import markdown_text, plain
from quizforge.grading.judge.hidden_suite import SuiteResult

TOP_MESSAGES = 3
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e-?\d+)?")


def message_pattern(message: str) -> str:
    """The message with its numbers replaced by #: one pattern for one kind of failure. Messages
    come partly from submissions: no control or bidi character survives (intake/text_safety.py)."""
    return _NUMBER.sub("#", " ".join(plain(message).split()))


# checks.attempt's wording for a call that raised or died; a hint naming the bug follows " — ".
_RAISED = re.compile(r"\) (?:raised ([\w.]+)|failed \((\w+)\):)")
EXAMPLE_LIMIT = 240


def diagnosis(message: str) -> tuple[str, bool]:
    """The group a failure message belongs to, and whether it names the bug."""
    pattern = message_pattern(message)
    if " — " in pattern:
        return pattern.rsplit(" — ", 1)[1], True
    raised = _RAISED.search(pattern)
    if raised:
        return (f"raised {raised.group(1)}" if raised.group(1) else f"failed ({raised.group(2)})"), False
    return pattern, True


def analyse(graded: list[tuple[str, SuiteResult]]) -> list[dict]:
    items = []
    for name in hidden_tests(graded):
        outcomes = [t for _, r in graded for t in r.tests if t.name == name]
        passed = sum(t.status == "passed" for t in outcomes)
        groups: dict[str, dict] = {}
        for t in outcomes:
            if t.status != "failed" or not t.message:
                continue
            label, named = diagnosis(t.message)
            group = groups.setdefault(label, {"diagnosis": label, "named": named, "count": 0, "examples": Counter()})
            group["count"] += 1
            group["examples"][" ".join(plain(t.message).split())] += 1
        # Ties go to a named diagnosis over a bare exception (sorted is stable: first seen next).
        ranked = sorted(groups.values(), key=lambda g: (-g["count"], not g["named"]))
        for group in ranked:
            example = group.pop("examples").most_common(1)[0][0]
            group["example"] = example if len(example) <= EXAMPLE_LIMIT else example[:EXAMPLE_LIMIT - 1] + "…"
        items.append({
            "test": name, "submissions": len(outcomes), "passed": passed,
            "pass_rate": round(passed / len(outcomes), 4) if outcomes else None,
            "failures": ranked,
        })
    return items


def _rate(item: dict) -> str:
    return "—" if item["pass_rate"] is None else f"{100 * item['pass_rate']:.0f}% of {item['submissions']}"


def _test_name(item: dict) -> str:
    return f"`{plain(item['test']).replace('`', chr(39))}`"


def markdown(items: list[dict], challenge: str) -> str:
    lines = [f"# Item analysis: {challenge}", ""]
    if not items:
        return "\n".join(lines + ["Nothing was graded, so there is nothing to analyse."]) + "\n"
    lines += ["| test | pass rate | most common failure |", "|---|---:|---|"]
    for item in items:
        top = item["failures"][0] if item["failures"] else None
        failure = f"{markdown_text(top['diagnosis'])} ({top['count']}×)" if top else ""
        lines.append(f"| {_test_name(item)} | {_rate(item)} | {failure} |")
    failing = [item for item in items if item["failures"]]
    if failing:
        lines += ["", "## Failures by diagnosis", "",
                  "Each diagnosis with how many submissions failed the test that way, and one real message."]
    for item in failing:
        lines += ["", f"### {_test_name(item)}: {_rate(item)} passed", ""]
        for group in item["failures"][:TOP_MESSAGES]:
            lines.append(f"- **{markdown_text(group['diagnosis'])}** ({group['count']}×)  ")
            lines.append(f"  for example: {markdown_text(group['example'])}")
        if len(item["failures"]) > TOP_MESSAGES:
            rest = item["failures"][TOP_MESSAGES:]
            lines.append(f"- and {sum(g['count'] for g in rest)} more in {len(rest)} other "
                         f"{'kind' if len(rest) == 1 else 'kinds'} (item_analysis.json lists them)")
    return "\n".join(lines) + "\n"


def write_item_analysis(out: Path, graded: list[tuple[str, SuiteResult]], challenge: str = "") -> list[dict]:
    items = analyse(graded)
    challenge = graded[0][1].challenge if graded else challenge
    write_atomically(out / "item_analysis.json", json.dumps(items, indent=2, ensure_ascii=False) + "\n")
    write_atomically(out / "item_analysis.md", markdown(items, challenge))
    return items
