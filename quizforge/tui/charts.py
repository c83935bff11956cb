"""Terminal charts for `quiz stats`: rich renderables drawn with unicode blocks.

`stats_view(stats)` takes the dict of `quizforge.practice.stats.compute_stats` and
returns a `rich.console.Group`: totals, topics (accuracy bar, trend arrow, daily
sparkline), streak, interview ratings, due cards with a 14-day forecast, the weakest
misconceptions and the mock history. No plotting library is involved.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Sequence

from rich.console import Group
from rich import box
from rich.table import Table
from rich.padding import Padding
from rich.text import Text

from quizforge.practice.timefmt import clock_text
from quizforge.render.fit import TableOrLines, rows_table

EMPTY_MESSAGE = "No history yet — run `quiz practice`."

SPARKS = "▁▂▃▄▅▆▇█"
EIGHTHS = " ▏▎▍▌▋▊▉"
FULL = "█"
GOOD, WEAK = 0.75, 0.5


def colour(fraction: float | None) -> str:
    """green for good, red for weak (< 50%), yellow in between; dim when unknown."""
    if fraction is None:
        return "dim"
    if fraction < WEAK:
        return "red"
    return "green" if fraction >= GOOD else "yellow"


def bar(fraction: float | None, width: int = 12) -> str:
    """A horizontal bar of `width` cells, in eighths of a cell."""
    if fraction is None or width <= 0:
        return " " * max(width, 0)
    eighths = round(max(0.0, min(1.0, fraction)) * width * 8)
    full, part = divmod(eighths, 8)
    text = FULL * full + (EIGHTHS[part] if part else "")
    return text.ljust(width)


def sparkline(values: Sequence[float | None], low: float = 0.0, high: float = 1.0) -> str:
    """One character per value, ▁ at `low` up to █ at `high`; a space for None."""
    span = high - low
    out = []
    for v in values:
        if v is None:
            out.append(" ")
            continue
        level = (min(max(v, low), high) - low) / span if span > 0 else 1.0
        out.append(SPARKS[round(level * (len(SPARKS) - 1))])
    return "".join(out)


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def percent(fraction: float | None) -> str:
    return "–" if fraction is None else f"{100 * fraction:.0f}%"


def duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"


def trend_cell(trend: dict[str, Any]) -> Text:
    delta = trend.get("delta")
    if delta is None:
        return Text("–", style="dim")
    points = round(100 * delta)
    if points > 0:
        return Text(f"▲ +{points}", style="green")
    if points < 0:
        return Text(f"▼ {points}", style="red")
    return Text("– 0", style="dim")


def _short_day(day: str) -> str:
    d = date.fromisoformat(day)
    return f"{d.strftime('%a')} {d.day:2d} {d.strftime('%b')}"


# --- sections --------------------------------------------------------------

def _totals_line(stats: dict) -> Text:
    t = stats["totals"]
    line = Text()
    line.append(plural(t["attempts"], "attempt"), style="bold")
    line.append(f" · {t['answered']} answered · ")
    line.append(f"{percent(t['accuracy'])} correct", style=colour(t["accuracy"]))
    line.append(f" · {plural(t['sessions'], 'session')} · {duration(t['seconds'])} on questions")
    if t["first_day"]:
        line.append(f" · {t['first_day']} to {t['last_day']}", style="dim")
    return line


def _topics_table(stats: dict) -> TableOrLines:
    window = stats.get("window", {})
    table = Table(title="Topics", title_justify="left", box=box.SIMPLE_HEAD,
                  show_edge=False)
    table.add_column("topic", min_width=max((len(w) for t in stats["topics"] for w in t["title"].split()), default=5))
    table.add_column("answered", justify="right", no_wrap=True)
    table.add_column("accuracy", no_wrap=True)
    table.add_column("7-day trend", justify="right", width=6)
    table.add_column(f"last {stats['days']} days", no_wrap=True, min_width=stats['days'])
    rows = []
    for t in stats["topics"]:
        style = colour(t["accuracy"])
        accuracy = Text(bar(t["accuracy"], 8), style=style)
        accuracy.append(f" {percent(t['accuracy']):>4}", style=style)
        spark = Text(sparkline(t["daily"]), style=style)
        rows.append((t.get("title") or t["topic"], f"{t['correct']}/{t['answered']}", accuracy,
                     trend_cell(t["trend"]), spark))
        table.add_row(*rows[-1])
    if window:
        table.caption = f"daily accuracy from {window['first']} to {window['last']}; trend in percent points"
        table.caption_justify = "left"

    def lines() -> list:
        out: list = []
        for title, answered, accuracy, trend, spark in rows:
            out += [Text(title, style="bold"),
                    Padding(Text.assemble(f"answered {answered} · accuracy ", accuracy, " · 7-day trend ", trend),
                            (0, 0, 0, 2), expand=False),
                    Padding(Text.assemble(f"last {stats['days']} days ", spark), (0, 0, 0, 2), expand=False)]
        return out

    # Titles may wrap at spaces (a cut word shows as …); counts and percents stay whole.
    whole = [row[1] for row in rows] + [percent(t["accuracy"]) for t in stats["topics"]]
    return TableOrLines(table, whole, lines)


def _streak_line(stats: dict) -> Text:
    s = stats["streak"]
    line = Text("Streak: ")
    style = "bold green" if s["current"] else "dim"
    line.append(plural(s["current"], "day"), style=style)
    line.append(f" (longest {s['longest']}) · {plural(s['active_days'], 'active day')}")
    if s["current"] == 0 and s["last_active_day"]:
        line.append(f" · last active {s['last_active_day']}", style="dim")
    return line


def _interview_line(stats: dict) -> Text | None:
    iv = stats["interview"]
    if not iv["attempts"]:
        return None
    r = iv["ratings"]
    line = Text(f"Interview: {plural(iv['attempts'], 'answer')} to {plural(iv['prompts_practised'], 'prompt')} · ")
    line.append(f"again {r['again']}", style="red")
    line.append(" · ")
    line.append(f"hard {r['hard']}", style="yellow")
    line.append(" · ")
    line.append(f"good {r['good']}", style="green")
    line.append(" · ")
    line.append(f"easy {r['easy']}", style="bold green")
    if r.get("unrated"):
        line.append(f" · unrated {r['unrated']}", style="dim")
    return line


def _by_kind(counts: dict, word: str = "") -> str:
    """'5 templates, 2 interview prompts' (the kinds present), for one of due's counts."""
    drill, interview = counts["drill"], counts["interview"]
    parts = [plural(drill, "template")] if drill or not interview else []
    if interview:
        parts.append(plural(interview, "interview prompt"))
    return ", ".join(parts) + word


def _due_view(stats: dict) -> Group | None:
    due = stats["due"]
    if not due["scheduled"]:
        return None
    kinds = lambda field: {k: due[k][field] for k in ("drill", "interview")}   # noqa: E731
    head = Text("Due now: ")
    head.append(str(due["now"]), style="bold yellow" if due["now"] else "green")
    if due["now"]:
        head.append(f" ({_by_kind(kinds('now'))})")
    if due["later_today"]:
        head.append(f" · {due['later_today']} more later today")
    lines = [head, Text(f"Scheduled: {due['scheduled']} ({_by_kind(kinds('scheduled'))})"
                        f" · new today: {_by_kind(kinds('new_today'))}")]
    forecast = due["forecast"]
    peak = max((f["count"] for f in forecast), default=0)
    table = Table(title="Reviews falling due, next 14 days", title_justify="left", show_header=False,
                  box=None, pad_edge=False)
    table.add_column("day", style="dim", no_wrap=True)
    table.add_column("reviews", no_wrap=True)
    table.add_column("count", justify="right", no_wrap=True)
    for i, f in enumerate(forecast):
        label = "today" if i == 0 else _short_day(f["day"])
        table.add_row(label, Text(bar(f["count"] / peak if peak else 0, 24), style="cyan"), str(f["count"]))
    if due["after_forecast"]:
        table.add_row("later", Text(""), str(due["after_forecast"]))
    return Group(*lines, table)


def _misconceptions_table(stats: dict) -> TableOrLines | None:
    items = stats["misconceptions"]
    if not items:
        return None
    total = stats.get("misconceptions_total", len(items))
    title = "Weakest misconceptions" + (f" (top {len(items)} of {total})" if total > len(items) else "")
    table = Table(title=title, title_justify="left")
    table.add_column("misconception")
    table.add_column("hits", justify="right")
    table.add_column("last hit")
    table.add_column("templates")
    table.add_column("status")
    rows = []
    for m in items:
        status = Text("corrected", style="green") if m["corrected"] else Text("open", style="red")
        rows.append((Text(m["label"], style="bold").append(f" [{m['tag']}]", style="dim") if m["label"] != m["tag"]
                     else Text(m["tag"], style="bold"), str(m["hits"]), m["last_hit"] or "–",
                     ", ".join(m["templates"]), status))
        table.add_row(*rows[-1])
    whole = [name for m in items for name in [m["tag"], *m["templates"], m["last_hit"] or "–"]]
    return rows_table(table, rows, whole)


def _exam_view(stats: dict) -> Group | None:
    """The exam date, the days left, and FSRS's predicted recall on exam day per topic."""
    exam = stats.get("exam")
    if not exam:
        return None
    days = exam["days_left"]
    when = "today" if days == 0 else f"passed {plural(-days, 'day')} ago" if days < 0 else f"in {plural(days, 'day')}"
    head = Text.assemble(("Exam ", "bold"), f"{exam['date']} · {when} · target recall {percent(exam['target'])}")
    table = Table(title="Predicted recall on exam day", title_justify="left", box=box.SIMPLE_HEAD, show_edge=False)
    table.add_column("topic")
    table.add_column("introduced", justify="right", no_wrap=True)
    table.add_column("recall", no_wrap=True)
    table.add_column("below target", justify="right", no_wrap=True)
    rows = []
    for t in exam["topics"]:
        recall = t["recall"]
        style = "green" if recall is not None and recall >= exam["target"] else colour(recall)
        cell = Text("–") if recall is None else Text(f"{bar(recall, 8)} {percent(recall):>4}", style=style)
        rows.append((t["title"], f"{t['introduced']}/{t['templates']}", cell, str(t["below_target"])))
        table.add_row(*rows[-1])
    whole = [t["title"] for t in exam["topics"]]
    return Group(head, rows_table(table, rows, whole))


def _paused_view(stats: dict) -> Group | None:
    """Mocks paused or interrupted: each can be resumed with its number."""
    paused = stats["mocks"]["paused"]
    if not paused:
        return None
    table = Table(title="Paused mocks", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("started")
    table.add_column("answered", justify="right")
    table.add_column("marked", justify="right")
    table.add_column("left", justify="right")
    rows = [(f"#{m['number']}", m["day"], f"{m['answered']} of {m['questions']}", str(m["marked"]),
             f"{clock_text(m['seconds_left'])} of {clock_text(m['minutes_allowed'] * 60)}") for m in paused]
    for row in rows:
        table.add_row(row[0][1:], *row[1:])
    last = paused[-1]["number"]
    hint = Text(f"continue one with: quiz practice --resume N (plain --resume continues #{last})", style="dim")
    whole = [piece for row in rows for piece in [*row[1:3], *row[4].split(" of ")]]
    return Group(rows_table(table, rows, whole), hint)


def _mocks_view(stats: dict) -> Group | None:
    mocks = stats["mocks"]
    history = mocks["history"]
    if not history:
        return None
    table = Table(title="Mock tests", title_justify="left")
    table.add_column("#", justify="right")
    table.add_column("day", no_wrap=True)
    table.add_column("score", justify="right")
    table.add_column("%", justify="right")
    table.add_column("lost", justify="right")
    table.add_column("correct / answered / questions", justify="right")
    table.add_column("minutes", justify="right")
    table.add_column("status")
    rows = []
    for m in history:
        p = m["percent"]
        rows.append((f"#{m['number']}", m["day"], f"{m['score']:g} / {m['max']:g}",
                     Text("–" if p is None else f"{p:.1f}", style=colour(None if p is None else p / 100)),
                     f"-{m['negative']:g}" if m["negative"] else "0",
                     f"{m['correct']} / {m['answered']} / {m['questions']}",
                     f"{m['minutes']:g} / {m['minutes_allowed']:g}",
                     m["status"].replace("_", " ")))
        table.add_row(rows[-1][0][1:], *rows[-1][1:])
    whole = [piece for row in rows for piece in [row[1], *row[2].split(" / "), row[3].plain, row[4],
                                                  *row[6].split(" / ")]]
    line = Text("Mock percent: ")
    line.append(sparkline([m["percent"] for m in history], 0, 100), style="cyan")
    if mocks["best"]:
        line.append(f"  best {mocks['best']['percent']:.1f}%")
    if mocks["last"] and mocks["last"]["percent"] is not None:
        line.append(f" · last {mocks['last']['percent']:.1f}%")
    change = mocks["change"]
    if change is not None:
        line.append(" · change ")
        line.append(f"{change:+.1f} points", style="green" if change > 0 else "red" if change < 0 else "dim")
    return Group(rows_table(table, rows, whole), line)


def stats_view(stats: dict) -> Group:
    """Every section of `stats` that has something to show."""
    if stats.get("empty") and stats.get("exam"):
        return Group(Text(EMPTY_MESSAGE), Text(), _exam_view(stats))
    if stats.get("empty") or (not stats["totals"]["attempts"] and not stats["due"]["scheduled"]
                              and not stats["mocks"]["history"] and not stats["mocks"]["paused"]):
        return Group(Text(EMPTY_MESSAGE))
    parts: list[Any] = [_totals_line(stats), _streak_line(stats)]
    if stats["topics"]:
        parts += [Text(), _topics_table(stats)]
    interview = _interview_line(stats)
    if interview is not None:
        parts += [Text(), interview]
    for section in (_exam_view(stats), _due_view(stats), _misconceptions_table(stats), _mocks_view(stats),
                    _paused_view(stats)):
        if section is not None:
            parts += [Text(), section]
    return Group(*parts)
