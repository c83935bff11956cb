"""`quiz grade`'s terminal table: a graded suite drawn with rich.

The CLI imports this before any submission code runs (with rich's pieces it uses), as it
does results.py: nothing that reports a result is loaded after the submission has run.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from quizforge.render.fit import TableOrLines
from quizforge.grading.judge import SuiteResult
from quizforge.grading.results import clean, points, sandbox_summary, seed_line, shared_failure


def table(result: SuiteResult) -> Group:
    """One row per test and a total line, then the grading's output. Messages come partly from
    the submission, so they are cleaned and never read as markup."""
    view = Table(title=f"quiz grade: {result.challenge}", title_justify="left")
    view.add_column("test", no_wrap=True, overflow="fold")   # the message wraps first
    view.add_column("points", justify="right")
    view.add_column("status")
    view.add_column("message", overflow="fold")
    styles = {"passed": "green", "failed": "red", "skipped": "yellow"}
    shared = shared_failure(result)
    rows = []
    for test in result.tests:
        message = "" if shared is not None and test.message == shared else clean(test.message)
        rows.append((clean(test.name), f"{points(test.score)}/{points(test.max_score)}",
                     Text(test.status, style=styles.get(test.status, "")), Text(message)))
        view.add_row(Text(rows[-1][0]), *rows[-1][1:])
    view.add_section()
    passed = sum(t.status == "passed" for t in result.tests)
    total = f"{points(result.score)}/{points(result.max_score)}"
    view.add_row(Text("total", style="bold"), Text(total, style="bold"),
                 f"{passed}/{len(result.tests)} passed", f"{result.duration:.1f} s")

    def lines() -> list:
        """Where a test name would be broken mid-word: one line per test, its name whole."""
        out: list = []
        for name, score, status, message in rows:
            out += [Text(name, style="bold"),
                    Padding(Text.assemble(score, " ", status, *((" · ", message) if message.plain else ())),
                            (0, 0, 0, 2), expand=False)]
        out.append(Text.assemble(("total ", "bold"), (total, "bold"),
                                 f" · {passed}/{len(result.tests)} passed · {result.duration:.1f} s"))
        return out

    parts: list[Any] = [TableOrLines(view, [row[0] for row in rows] + [row[1] for row in rows] + [total], lines)]
    if shared is not None:
        parts.insert(0, Text(f"Every test failed for one reason: {clean(shared)}", style="bold red"))
    if result.output and (shared is None or result.output.strip() != shared.strip()):
        parts.append(Text(clean(result.output)))
    if result.submission_output:
        parts.append(Text(clean(result.submission_output), style="dim"))
    if result.seed is not None:
        parts.append(Text(seed_line(result), style="dim"))
    unsafe = result.sandbox.get("mode") == "unsafe"
    parts.append(Text(sandbox_summary(result), style="bold red" if unsafe else "dim"))
    return Group(*parts)
