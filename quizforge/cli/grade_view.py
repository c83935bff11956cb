"""`quiz grade`'s terminal table: a graded suite drawn with rich.

The CLI imports this before any submission code runs (with rich's pieces it uses), as it
does grading/exports/results.py: nothing that reports a result is loaded after the submission has run.
"""

from __future__ import annotations

from typing import Any, Callable

from rich.console import Console, Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from quizforge.grading.exports.results import clean, points, sandbox_summary, seed_line, shared_failure
from quizforge.grading.judge.hidden_suite import SuiteResult
from quizforge.render.fit import TableOrLines


# A message may wrap onto this many lines of its column; taller rows read better as lines.
LINES_PER_ROW = 3


def messages_fit(messages: list[str]) -> Callable[[list[str]], bool]:
    """Whether, in a drawn table, the message column is wide enough for each message to take at
    most LINES_PER_ROW lines: its width is read off the drawn header."""
    def fits(drawn: list[str]) -> bool:
        header = next((line for line in drawn if "┃" in line and "message" in line), None)
        if header is None:
            return False
        width = len(header.split("┃")[-2]) - 2
        console = Console(width=max(width, 1))
        return all(len(Text(m).wrap(console, max(width, 1))) <= LINES_PER_ROW for m in messages if m)
    return fits


def folded_messages(messages: list[str]) -> tuple[list[str], list[tuple[str, int]]]:
    """Each message, or "see note N" where it is one that several tests share; and the notes,
    each with how many tests gave it, in order of first appearance."""
    counts: dict[str, int] = {}
    for message in messages:
        if message:
            counts[message] = counts.get(message, 0) + 1
    notes = [m for m in counts if counts[m] > 1]
    number = {m: n for n, m in enumerate(notes, 1)}
    cells = [f"see note {number[m]}" if m in number else m for m in messages]
    return cells, [(m, counts[m]) for m in notes]


def table(result: SuiteResult) -> Group:
    """One row per test and a total line, then the grading's output. Messages come partly from
    the submission, so they are cleaned and never read as markup. A message several tests share
    is written once, as a note under the table; the table is drawn only where its messages fit
    whole words on at most LINES_PER_ROW lines a row, and otherwise each test is a few lines."""
    view = Table(title=f"quiz grade: {result.challenge}", title_justify="left")
    view.add_column("test", no_wrap=True, overflow="fold")   # the message wraps first
    view.add_column("points", justify="right")
    view.add_column("status")
    view.add_column("message", overflow="fold")
    styles = {"passed": "green", "failed": "red", "skipped": "yellow"}
    shared = shared_failure(result)
    rows = []
    messages = ["" if shared is not None and test.message == shared else clean(test.message)
                for test in result.tests]
    cells, notes = folded_messages(messages)
    for test, message in zip(result.tests, cells):
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

    words = {word for row in rows for word in row[3].plain.split()}
    whole = [row[0] for row in rows] + [row[1] for row in rows] + [total, f"{passed}/{len(result.tests)} passed"]
    parts: list[Any] = [TableOrLines(view, [*whole, *words], lines, fits=messages_fit([row[3].plain for row in rows]))]
    for number, (message, count) in enumerate(notes, 1):
        parts.append(Text.assemble((f"note {number}", "bold"), f" ({count} tests): ", message))
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
