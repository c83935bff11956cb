"""The report after a mock: score, negative marks, topics, misconceptions, and earlier mocks."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from quizforge.practice.view import clock_text


def _percent(result: dict) -> float:
    return 100 * result["score"] / result["max"] if result["max"] else 0.0


def comparison(result: dict, earlier: list[dict]) -> dict | None:
    """This paper against the earlier ones, in percent of the maximum (papers differ in length)."""
    if not earlier:
        return None
    now = _percent(result)
    previous = [_percent(r) for r in earlier]
    return {"mocks_before": len(previous), "last": round(previous[-1], 1), "best_before": round(max(previous), 1),
            "average_before": round(sum(previous) / len(previous), 1), "this": round(now, 1),
            "change": round(now - previous[-1], 1), "personal_best": now > max(previous)}


def _topic_title(topic: str) -> str:
    from quizforge.bank.template import TOPICS   # light: no torch or sympy behind it

    return TOPICS.get(topic, topic)


def _question_cell(question_id: str) -> Text:
    """The template's title, with the question ID under it for `quiz explain`."""
    from quizforge.bank.mathtext import markdown_to_terminal
    from quizforge.bank.registry import parse_question_id

    title = markdown_to_terminal(parse_question_id(question_id)[0].title)
    return Text.assemble(title, "\n", (question_id, "dim"))


def mock_report_view(result: dict, earlier: list[dict]) -> Group:
    parts: list = [Text("")]
    pct = _percent(result)
    answered, correct = result["answered"], result["correct"]
    head = Table.grid(padding=(0, 2))
    head.add_row(Text("Score", style="bold"),
                 Text(f"{result['score']:g} / {result['max']:g}  ({pct:.1f}%)",
                      style="bold green" if pct >= 50 else "bold red"))
    head.add_row("Negative marks", Text(f"−{result['negative']:g}" if result["negative"] else "0", style="red" if result["negative"] else "dim"))
    head.add_row("Answered", f"{answered} of {result['questions']}  ·  correct {correct}  ·  accuracy "
                             f"{(correct / answered if answered else 0):.0%}")
    head.add_row("Time used", f"{clock_text(result['seconds'])}"
                              + ("  (time ran out)" if result.get("status") == "timed_out" else ""))
    parts.append(head)

    topics = Table(title="By topic", title_justify="left", box=box.SIMPLE_HEAD)
    for column in ("topic", "Qs", "answered", "correct", "accuracy", "marks", "time", "per Q"):
        topics.add_column(column, justify="left" if column == "topic" else "right", no_wrap=column != "topic",
                          overflow="fold")
    for topic, t in result["per_topic"].items():
        accuracy = t["correct"] / t["answered"] if t["answered"] else None
        style = "" if accuracy is None else "green" if accuracy >= 0.7 else "red" if accuracy < 0.5 else "yellow"
        topics.add_row(_topic_title(topic), str(t["questions"]), str(t["answered"]), str(t["correct"]),
                       Text("–" if accuracy is None else f"{accuracy:.0%}", style=style),
                       f"{t['score']:g}/{t['max']:g}", clock_text(t["seconds"]),
                       clock_text(t["seconds"] / t["questions"]))
    parts.append(topics)

    if result["misconceptions"]:
        misses = Table(title="Misconceptions hit", title_justify="left", box=box.SIMPLE_HEAD)
        misses.add_column("mistake")
        misses.add_column("times", justify="right")
        misses.add_column("what it means")
        for m in result["misconceptions"]:
            misses.add_row(m["label"], str(m["count"]), m.get("feedback", ""))
        parts.append(misses)

    review = Table(title="Question by question", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    review.add_column("#", justify="right")
    id_width = max((len(item["id"]) for item in result["items"]), default=0)
    review.add_column("question", overflow="fold", min_width=id_width)
    review.add_column("your answer", max_width=14, overflow="fold")
    review.add_column("key", max_width=14, overflow="fold")
    review.add_column("", no_wrap=True, min_width=1)
    review.add_column("marks", justify="right", no_wrap=True)
    for n, item in enumerate(result["items"], 1):
        mark = (Text("–", style="dim") if item["correct"] is None else
                Text("✓", style="green") if item["correct"] else Text("✗", style="red"))
        review.add_row(str(n), _question_cell(item["id"]), item["answer"] or "–", item["key"] or "", mark,
                       f"{item['earned']:+g}/{item['marks']}")
    parts.append(review)
    parts.append(Text("Worked solutions: quiz explain <question>", style="dim"))

    versus = comparison(result, earlier)
    if versus is None:
        parts.append(Text("Your first mock: the next report will compare with this one.", style="dim"))
    else:
        arrow = "▲" if versus["change"] > 0 else "▼" if versus["change"] < 0 else "="
        line = Text.assemble(("Against earlier mocks: ", "bold"),
                             (f"{arrow} {versus['change']:+.1f} points", "green" if versus["change"] >= 0 else "red"),
                             f" on the last ({versus['last']:.1f}%) · best before {versus['best_before']:.1f}% · "
                             f"average {versus['average_before']:.1f}% over {versus['mocks_before']}")
        if versus["personal_best"]:
            line.append("  · a personal best", style="bold green")
        parts.append(line)
    return Group(*parts)
