"""The report after a mock: score, negative marks, topics, misconceptions, and earlier mocks."""

from __future__ import annotations

from rich import box
from rich.console import Console, ConsoleOptions, RenderResult
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from quizforge.bank.registry import parse_question_id
from quizforge.bank.syllabus import syllabus_text
from quizforge.practice.mock_percent import comparison, one_place, result_percent
from quizforge.practice.timefmt import clock_text
from quizforge.render.fit import shows_whole
from quizforge.text.terminal import markdown_to_terminal
from quizforge.tui.charts import plural


def _topic_title(topic: str) -> str:
    from quizforge.bank.template import TOPICS  # light: no torch or sympy behind it

    return TOPICS.get(topic, topic)


def _question_cell(question_id: str) -> Text:
    """The template's title, with the question ID under it for `quiz explain` and the GATE DA
    syllabus topics the question exercises (or that it is beyond the syllabus)."""
    template = parse_question_id(question_id)[0]
    title = markdown_to_terminal(template.title)
    return Text.assemble(title, "\n", (f"{question_id} · {syllabus_text(template.id)}", "dim"))


# Below this width the tables would cut cells (the marks column first); blocks of text wrap instead.
WIDE_REPORT = 100


def _head(result: dict) -> Table:
    pct = result_percent(result)
    answered, correct = result["answered"], result["correct"]
    head = Table.grid(padding=(0, 2))
    head.add_column(no_wrap=True)
    head.add_column()
    head.add_row(Text("Score", style="bold"),
                 Text(f"{result['score']:g} / {result['max']:g}  ({one_place(pct):.1f}%)",
                      style="bold green" if pct >= 50 else "bold red"))
    head.add_row("Negative marks", Text(f"−{result['negative']:g}" if result["negative"] else "0",
                                        style="red" if result["negative"] else "dim"))
    head.add_row("Answered", f"{answered} of {result['questions']}  ·  correct {correct}  ·  accuracy "
                             f"{(correct / answered if answered else 0):.0%}")
    head.add_row("Time used", f"{clock_text(result['seconds'])}"
                              + ("  (time ran out)" if result.get("status") == "timed_out" else ""))
    return head


def _topic_cells(t: dict) -> tuple[Text, list[str]]:
    accuracy = t["correct"] / t["answered"] if t["answered"] else None
    style = "" if accuracy is None else "green" if accuracy >= 0.7 else "red" if accuracy < 0.5 else "yellow"
    return (Text("–" if accuracy is None else f"{accuracy:.0%}", style=style),
            [f"{t['score']:g}/{t['max']:g}", clock_text(t["seconds"]), clock_text(t["seconds"] / t["questions"])])


def _mark_symbol(item: dict) -> Text:
    return (Text("–", style="dim") if item["correct"] is None else
            Text("✓", style="green") if item["correct"] else Text("✗", style="red"))


def _wide_sections(result: dict) -> list:
    topics = Table(title="By topic", title_justify="left", box=box.SIMPLE_HEAD)
    for column in ("topic", "Qs", "answered", "correct", "accuracy", "marks", "time", "per Q"):
        topics.add_column(column, justify="left" if column == "topic" else "right", no_wrap=column != "topic",
                          overflow="fold")
    for topic, t in result["per_topic"].items():
        accuracy, (marks, seconds, per_q) = _topic_cells(t)
        topics.add_row(_topic_title(topic), str(t["questions"]), str(t["answered"]), str(t["correct"]),
                       accuracy, marks, seconds, per_q)
    parts: list = [topics]

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
    # Wide enough for the longest word of any answer or key: a number is never split across lines.
    for column, field in (("your answer", "answer"), ("key", "key")):
        longest = _longest_word([item[field] or "" for item in result["items"]])
        review.add_column(column, min_width=longest, max_width=max(14, longest))
    review.add_column("", no_wrap=True, min_width=1)
    review.add_column("marks", justify="right", no_wrap=True)
    for n, item in enumerate(result["items"], 1):
        review.add_row(str(n), _question_cell(item["id"]), item["answer"] or "–", item["key"] or "",
                       _mark_symbol(item), f"{item['earned']:+g}/{item['marks']}")
    parts.append(review)
    return parts


def _longest_word(texts: list[str]) -> int:
    return max((len(word) for text in texts for word in text.split()), default=1)


def _whole_words(result: dict) -> list[str]:
    """What the tables must show whole, or give way to lines: IDs, and each word of an answer or key."""
    return [word for item in result["items"]
            for word in [item["id"], *(item["answer"] or "").split(), *(item["key"] or "").split()]]


def _narrow_sections(result: dict) -> list:
    """The same cells as the tables, as labelled lines that wrap: nothing is cut at any width."""
    parts: list = [Text("By topic", style="italic")]
    for topic, t in result["per_topic"].items():
        accuracy, (marks, seconds, per_q) = _topic_cells(t)
        parts.append(Text.assemble(
            (_topic_title(topic), "bold"), f"  {plural(t['questions'], 'Q')} · answered {t['answered']} · correct "
            f"{t['correct']} · accuracy ", accuracy, f" · marks {marks} · time {seconds} · per Q {per_q}"))
    if result["misconceptions"]:
        parts += [Text(""), Text("Misconceptions hit", style="italic")]
        for m in result["misconceptions"]:
            parts.append(Text.assemble((m["label"], "bold"), f" ×{m['count']}: {m.get('feedback', '')}"))
    parts += [Text(""), Text("Question by question", style="italic")]
    for n, item in enumerate(result["items"], 1):
        title, _, qid = _question_cell(item["id"]).plain.partition("\n")
        parts.append(Text(f"{n}. {title}"))
        # Indented as a block, so that a wrapped answer or key stays under its question.
        parts.append(Padding(Text.assemble((qid, "dim"), "\nyour answer ", item["answer"] or "–", " · key ",
                                           item["key"] or "", " · ", _mark_symbol(item),
                                           f" {item['earned']:+g}/{item['marks']}"), (0, 0, 0, 3)))
    return parts


class MockReport:
    """The report, laid out for the width it is drawn at: tables when they fit, lines when not."""

    def __init__(self, result: dict, earlier: list[dict]):
        self.result = result
        self.earlier = earlier

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        result = self.result
        sections = _wide_sections(result) if options.max_width >= WIDE_REPORT else None
        if sections and not all(shows_whole(console, options, part, _whole_words(result) if part is sections[-1]
                                            else []) for part in sections):
            sections = None   # a table would cut or split a cell at this width
        yield Text("")
        yield _head(result)
        yield from sections if sections else [Text("")] + _narrow_sections(result) + [Text("")]
        yield Text("Worked solutions: quiz explain <question>", style="dim")
        versus = comparison(result, self.earlier)
        if versus is None:
            yield Text("Your first mock: the next report will compare with this one.", style="dim")
            return
        arrow = "▲" if versus["change"] > 0 else "▼" if versus["change"] < 0 else "="
        line = Text.assemble(("Against earlier mocks: ", "bold"),
                             (f"{arrow} {versus['change']:+.1f} points", "green" if versus["change"] >= 0 else "red"),
                             f" on the last ({versus['last']:.1f}%) · best before {versus['best_before']:.1f}% · "
                             f"average {versus['average_before']:.1f}% over {versus['mocks_before']}")
        if versus["personal_best"]:
            line.append("  · a personal best", style="bold green")
        yield line


def mock_report_view(result: dict, earlier: list[dict]) -> MockReport:
    return MockReport(result, earlier)
