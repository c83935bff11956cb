"""End-of-session summaries for drills and interviews."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from quizforge.practice.timefmt import clock_text


def when(seconds: float) -> str:
    """How far off a moment is: now, in 5 min, in 3 h, in 2 days."""
    if seconds <= 0:
        return "now"
    if seconds < 3600:
        return f"in {max(1, round(seconds / 60))} min"
    if seconds < 86400:
        return f"in {seconds / 3600:.0f} h"
    days = seconds / 86400
    return f"in {days:.0f} day{'s' if round(days) != 1 else ''}"


def due_line(due_now: int, next_due_at: float | None, now: float) -> str | None:
    """One true thing about reviews: how many are due now, else when the next one is."""
    if due_now:
        return f"{due_now} review{'s' if due_now != 1 else ''} due now"
    if next_due_at is not None:
        return f"next review {when(next_due_at - now)}"
    return None


def drill_summary_view(over, now: float) -> Group:
    """The end of a drill, from the engine's SessionOver event."""
    summary = over.summary
    answered = summary.correct + summary.wrong
    parts = [Text("")]
    head = Text.assemble(("Session over", "bold"), f" · {summary.asked} question{'s' if summary.asked != 1 else ''}")
    if answered:
        head.append(f" · {summary.correct}/{answered} right ({summary.correct / answered:.0%})",
                    style="green" if summary.correct * 2 >= answered else "red")
    if summary.skipped:
        head.append(f" · {summary.skipped} skipped", style="dim")
    parts.append(head)
    if over.why:
        parts.append(Text(f"no more questions: {over.why}", style="dim"))
    if summary.ratings:
        parts.append(Text("ratings: " + ", ".join(f"{k} {v}" for k, v in summary.ratings.items()), style="dim"))
    due = due_line(over.due_now, over.next_due_at, now)
    parts.append(Text((f"{due} · " if due else "") + "progress: quiz stats", style="dim"))
    if summary.ended_by == "eof":
        parts.append(Text("input ended · answers so far are saved", style="dim"))
    return Group(*parts)


def interview_summary_view(summary) -> Group:
    parts = [Text(""), Text.assemble(("Interview over", "bold"), f" · {summary.asked} prompt"
                                     f"{'s' if summary.asked != 1 else ''} · {clock_text(summary.seconds)}")]
    if summary.ratings:
        parts.append(Text("self-ratings: " + ", ".join(f"{k} {v}" for k, v in summary.ratings.items()), style="dim"))
    if summary.weak:
        parts.append(Text("to revisit: " + "; ".join(summary.weak), style="yellow"))
    return Group(*parts)
