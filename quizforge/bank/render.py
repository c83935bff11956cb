"""Questions, worked solutions and verdicts as rich renderables for the terminal."""

from __future__ import annotations

from rich import box
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from quizforge.bank.grading import Verdict
from quizforge.bank.mathtext import markdown_to_terminal
from quizforge.bank.question import LETTERS, Question, Step


def _md(text: str) -> Text:
    """Markdown-with-math as terminal text (bold ** and code ` markers are shown plainly)."""
    plain = markdown_to_terminal(text)
    out = Text()
    for n, chunk in enumerate(plain.split("**")):
        out.append(chunk.replace("`", ""), style="bold" if n % 2 else "")
    return out


def matrix_table(step: Step) -> Table:
    table = Table(box=box.SIMPLE_HEAD if step.col_labels else box.SIMPLE, show_header=bool(step.col_labels),
                  pad_edge=False, title=markdown_to_terminal(step.title), title_justify="left", title_style="bold")
    if step.row_labels:
        table.add_column("", style="dim")
    for label in step.col_labels or [""] * len(step.matrix[0]):
        table.add_column(label, justify="right")
    for r, row in enumerate(step.matrix or ()):
        table.add_row(*([step.row_labels[r]] if step.row_labels else []), *row)
    return table


def question_panel(question: Question, number: str = "") -> Panel:
    parts: list = [_md(question.prompt)]
    if question.exhibits:
        grid = Table.grid(padding=(0, 3))
        grid.add_row(*[matrix_table(e) for e in question.exhibits])
        parts.append(grid)
    if question.options:
        options = Table.grid(padding=(0, 1))
        for i, option in enumerate(question.options):
            options.add_row(Text(f"({LETTERS[i]})", style="bold cyan"), _md(option.md))
        parts += [Text(""), options]
    parts += [Text(""), Text(question.instruction(), style="dim italic")]
    marks = f"{question.marks} mark{'s' if question.marks > 1 else ''}"
    title = f"{number + '  ' if number else ''}[bold]{question.title}[/]  ·  {question.kind}  ·  {marks}"
    return Panel(Group(*parts), title=title, title_align="left", subtitle=f"[dim]{question.id}[/]",
                 subtitle_align="right", border_style="cyan")


def solution_view(question: Question) -> Group:
    parts: list = [Text(f"Worked solution  {question.id}", style="bold underline")]
    for n, step in enumerate(question.solution, 1):
        if step.matrix is not None:
            if step.md:
                parts.append(Text.assemble((f"{n}. ", "bold"), _md(step.md)))
            parts.append(matrix_table(step))
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
    from quizforge.bank.export import accepted_text

    answer = Text.assemble(("Answer: ", "bold green"), markdown_to_terminal(question.answer_md))
    if question.kind == "NAT" and question.decimals is not None:
        answer.append(f"   (accepted: {accepted_text(question)})", style="dim")
    parts.append(answer)
    return Group(*parts)


def verdict_view(verdict: Verdict) -> Text:
    style = "bold green" if verdict.correct else "bold red"
    mark = "✓" if verdict.correct else "✗"
    sign = "+" if verdict.marks > 0 else ""
    text = Text.assemble((f"{mark} ", style), (verdict.feedback, style if verdict.correct else ""),
                         (f"   [{sign}{verdict.marks:.2f} of {verdict.max_marks}]", "dim"))
    if not verdict.correct:
        text.append(f"\n  answer: {verdict.answer}")
        if verdict.accepted and verdict.accepted != verdict.answer:
            text.append(f"   accepted: {verdict.accepted}", style="dim")
    return text


def templates_table(templates) -> Table:
    from quizforge.bank.template import TOPICS

    table = Table(title="Question templates", box=box.SIMPLE_HEAD)
    for column in ("template", "topic", "kind", "marks", "difficulty", "title"):
        table.add_column(column, justify="right" if column in ("marks", "difficulty") else "left")
    for t in templates:
        table.add_row(t.id, TOPICS[t.topic], t.kind, str(t.marks), "●" * t.difficulty, markdown_to_terminal(t.title))
    return table
