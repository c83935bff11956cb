"""End-of-session summaries for drills and interviews."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from quizforge.practice.view import clock_text


def _when(seconds: float) -> str:
    if seconds <= 0:
        return "now"
    if seconds < 3600:
        return f"in {max(1, round(seconds / 60))} min"
    if seconds < 86400:
        return f"in {seconds / 3600:.0f} h"
    return f"in {seconds / 86400:.0f} days"


def drill_summary_view(summary, planner, now: float) -> Group:
    answered = summary.correct + summary.wrong
    parts = [Text("")]
    head = Text.assemble(("Session over", "bold"), f" · {summary.asked} question{'s' if summary.asked != 1 else ''}")
    if answered:
        head.append(f" · {summary.correct}/{answered} right ({summary.correct / answered:.0%})",
                    style="green" if summary.correct * 2 >= answered else "red")
    if summary.skipped:
        head.append(f" · {summary.skipped} skipped", style="dim")
    parts.append(head)
    if summary.ratings:
        parts.append(Text("ratings: " + ", ".join(f"{k} {v}" for k, v in summary.ratings.items()), style="dim"))
    due = planner.due_count(now)
    cards = planner.history.cards()
    upcoming = sorted(row["due_at"] for key, row in cards.items() if key.startswith("template:") and row["due_at"] > now)
    line = f"{due} review{'s' if due != 1 else ''} due now"
    if upcoming:
        line += f" · next {_when(upcoming[0] - now)}"
    parts.append(Text(line + " · progress: quiz stats", style="dim"))
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
