"""Questions, worked solutions and verdicts as rich renderables for the terminal.

The presentation layer of the bank: the bank itself returns plain data and never imports rich.
"""

from __future__ import annotations

from rich.console import Console, ConsoleOptions, Group, RenderResult
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from quizforge.answers.matrix_questions import entry_text
from quizforge.answers.verdict import Verdict
from quizforge.bank.export import accepted_text
from quizforge.bank.question import LETTERS, Question, Step
from quizforge.bank.syllabus import syllabus_text
from quizforge.bank.template import TOPICS
from quizforge.render.matrix import MatrixRow, MatrixView
from quizforge.text.terminal import markdown_to_terminal


def _md(text: str) -> Text:
    """Markdown-with-math as terminal text (bold ** and code ` markers are shown plainly)."""
    plain = markdown_to_terminal(text)
    out = Text()
    for n, chunk in enumerate(plain.split("**")):
        out.append(chunk.replace("`", ""), style="bold" if n % 2 else "")
    return out


def matrix_view(step: Step) -> MatrixView:
    return MatrixView(Text(markdown_to_terminal(step.title), style="bold"), step.matrix or (),
                      step.row_labels, step.col_labels)


def key_matrix_view(question: Question) -> MatrixView:
    """A matrix answer's key as a matrix: entries whole, whatever the width."""
    rows = [[entry_text(x, question.decimals) for x in row] for row in question.answer]
    return MatrixView(Text("Answer", style="bold green"), rows)


class QuestionPanel:
    """A question in a box. Its title sits in the border when it fits there, else on the first
    line inside, so that no part of it is cut."""

    def __init__(self, title: Text, body: Group, subtitle: str) -> None:
        self.title, self.body, self.subtitle = title, body, subtitle

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        # A border title needs the two corners, a rule each side and a space each side.
        if self.title.cell_len + 6 <= options.max_width:
            yield Panel(self.body, title=self.title, title_align="left", subtitle=Text(self.subtitle, style="dim"),
                        subtitle_align="right", border_style="cyan")
        else:
            yield Panel(Group(self.title, Text(""), self.body), subtitle=Text(self.subtitle, style="dim"),
                        subtitle_align="right", border_style="cyan")


def question_panel(question: Question, number: str = "", *, titled: bool = True) -> QuestionPanel:
    """A question in its box. `titled=False` leaves the template's title out (a mock: GATE's
    questions carry none, and a title such as "softmax over the wrong axis" gives the answer away)."""
    parts: list = [_md(question.prompt)]
    if question.exhibits:
        parts += [Text(""), MatrixRow(matrix_view(e) for e in question.exhibits)]
    if question.options:
        options = Table.grid(padding=(0, 1))
        for i, option in enumerate(question.options):
            options.add_row(Text(f"({LETTERS[i]})", style="bold cyan"), _md(option.md))
        parts += [Text(""), options]
    parts += [Text(""), Text(question.instruction(), style="dim italic")]
    marks = f"{question.marks} mark{'s' if question.marks > 1 else ''}"
    if titled:
        title = Text.assemble(f"{number}  " if number else "", (question.title, "bold"),
                              f"  ·  {question.kind}  ·  {marks}")
    else:
        title = Text.assemble((number, "bold"), f"  ·  {question.kind}  ·  {marks}")
    return QuestionPanel(title, Group(*parts), question.id)


def solution_view(question: Question) -> Group:
    parts: list = [Text(f"Worked solution  {question.id}", style="bold underline")]
    for n, step in enumerate(question.solution, 1):
        if step.matrix is not None:
            if step.md:
                parts.append(Text.assemble((f"{n}. ", "bold"), _md(step.md)))
            parts.append(matrix_view(step))
        else:
            body = step.text if step.text is not None else markdown_to_terminal(step.md)
            parts.append(Text.assemble((f"{n}. {markdown_to_terminal(step.title)}: ", "bold"), body))
    reasons = [(i, o) for i, o in enumerate(question.options) if o.why]
    if reasons:
        table = Table.grid(padding=(0, 1))
        for i, option in reasons:
            mark = Text("✓", style="green") if option.correct else Text("✗", style="red")
            table.add_row(Text(f"({LETTERS[i]})", style="bold"), mark, _md(option.why))
        parts += [Text("Why each option is right or wrong:", style="bold"), table]

    if question.is_matrix:
        parts.append(key_matrix_view(question))
        parts.append(Text(f"accepted: {accepted_text(question)}", style="dim"))
        return Group(*parts)
    answer = Text.assemble(("Answer: ", "bold green"), markdown_to_terminal(question.answer_md))
    if question.kind == "NAT" and question.decimals is not None:
        answer.append(f"   (accepted: {accepted_text(question)})", style="dim")
    parts.append(answer)
    return Group(*parts)


def verdict_view(verdict: Verdict) -> Text:
    style = "bold green" if verdict.correct else "bold red"
    mark = "✓" if verdict.correct else "✗"
    sign = "+" if verdict.marks > 0 else ""
    text = Text.assemble((f"{mark} ", style), (markdown_to_terminal(verdict.feedback), style if verdict.correct else ""),
                         (f"   [{sign}{verdict.marks:.2f} of {verdict.max_marks}]", "dim"))
    if not verdict.correct:
        text.append(f"\n  answer: {verdict.answer}")
        if verdict.accepted and verdict.accepted != verdict.answer:
            text.append(f"   accepted: {verdict.accepted}", style="dim")
    return text


class TemplateList:
    """The templates under one heading per topic. IDs are typed by learners, so they are never
    cut or wrapped: titles wrap instead, and when even that leaves too little room each
    template takes two lines (the ID, then its details)."""

    MIN_TITLE = 16  # narrower than this, a title would wrap a word a line

    def __init__(self, templates) -> None:
        self.templates = list(templates)

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        id_width = max((len(t.id) for t in self.templates), default=8)
        wide = id_width + len("  kind  marks  level  ") + self.MIN_TITLE <= options.max_width
        yield Text("Question templates", style="bold")
        for topic, title in TOPICS.items():
            members = [t for t in self.templates if t.topic == topic]
            if not members:
                continue
            yield Text("")
            yield Text.assemble((title, "bold cyan"), (f"  ({topic})", "dim"))
            if wide:
                table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
                table.add_column("template", no_wrap=True, min_width=id_width)
                table.add_column("kind", no_wrap=True, width=3)
                table.add_column("marks", no_wrap=True, width=7)
                table.add_column("level", no_wrap=True, width=3)
                table.add_column("title", overflow="fold")
                for t in members:
                    marks = f"{t.marks} mark{'s' if t.marks > 1 else ''}"
                    table.add_row(t.id, t.kind, marks, "●" * t.difficulty,
                                  Text.assemble(markdown_to_terminal(t.title), *_template_notes(t)))
                yield table
            else:
                for t in members:
                    yield Text(t.id, no_wrap=True, overflow="ignore")
                    marks = f"{t.marks} mark{'s' if t.marks > 1 else ''}"
                    yield Padding(Text.assemble(Text(f"{t.kind} · {marks} · {'●' * t.difficulty} · "
                                                     f"{markdown_to_terminal(t.title)}", style="dim"),
                                                *_template_notes(t)), (0, 0, 0, 2))
        yield Text("")
        yield Text("fixed-fact: too few distinct questions for per-student variants (a problem set warns); "
                   "GATE DA: the syllabus topics a template exercises.", style="dim")


def _template_notes(t) -> tuple:
    """What `quiz bank list` says after a title: the GATE DA syllabus tags, and fixed-fact."""
    notes: list = ["\n", (syllabus_text(t.id), "dim")]
    if t.fixed_fact:
        notes.append(("  · fixed-fact", "yellow"))
    return tuple(notes)


def templates_table(templates) -> TemplateList:
    return TemplateList(templates)
