"""Questions and worked solutions as HTML for the browser mock, math left for KaTeX.

`question_view` is what the exam screen gets: prompt, exhibits and options, never the title,
the key, the reasons behind options or the solution. `solution_html` is for the report only.
Markdown goes through `quizforge.text.html`, as the LMS exports do (raw HTML in a prompt is shown
as text, math becomes \\(…\\) and \\[…\\]); matrices become tables, and attention weights
(rows of probabilities) a heatmap.
"""

from __future__ import annotations

import html
import re

from quizforge.answers.matrix_questions import entry_text, shape_of
from quizforge.bank.question import LETTERS, Question
from quizforge.text.html import inline_html, matrix_html, to_html


def negative_text(question: Question) -> str:
    """GATE's penalty line: a wrong MCQ costs a third of its marks; MSQ and NAT cost nothing."""
    if question.kind == "MCQ":
        return f"−{question.marks}/3 for a wrong answer"
    return "no negative marks"


def marks_text(marks: int) -> str:
    return f"{marks} mark{'s' if marks != 1 else ''}"


def matrix_entry_shape(question: Question) -> dict | None:
    """For a matrix answer, the grid of cells the page draws: its shape (the prompt states it)
    and whether −∞ may be entered (the instruction says so too); None for any other question."""
    if not question.is_matrix:
        return None

    rows, cols = shape_of(question.answer)
    return {"rows": rows, "cols": cols, "minus_infinity": question.uses_minus_infinity}


def keypad_entry(entry: str) -> str:
    """One matrix entry as the keypad writes it: '-' for a minus, -inf for −∞ however it was typed."""
    entry = entry.strip().replace("−", "-")
    return "-inf" if entry.lower() in ("-inf", "-∞") else entry


def answer_cells(text: str | None, rows: int, cols: int) -> list[list[str]] | None:
    """A saved matrix answer ('1 0; 1 1', '[[1,0],[1,1]]', a row per line) split back into
    the page's cells, entries as typed; None when it does not split into rows×cols."""
    if not text:
        return None
    entries = [keypad_entry(e) for e in re.split(r"[\s,;\[\]]+", text) if e]
    if len(entries) != rows * cols:
        return None
    return [entries[r * cols:(r + 1) * cols] for r in range(rows)]


def _entry_html(entry: str) -> str:
    entry = keypad_entry(entry)
    return "−∞" if entry == "-inf" else html.escape(entry.replace("-", "−"))


def answer_table(cells: list[list[str]], css: str = "answer-matrix", wrong=frozenset()) -> str:
    """A matrix answer (the candidate's or the key) as a table, −∞ written as such; the
    entries at `wrong` ((row, column), from 1) are marked."""
    marked = ' class="wrong-entry"'
    body = "".join("<tr>" + "".join(f"<td{marked if (r, c) in wrong else ''}>{_entry_html(e)}</td>"
                                    for c, e in enumerate(row, 1)) + "</tr>" for r, row in enumerate(cells, 1))
    return f'<table class="matrix {css}">{body}</table>'


def key_cells(question: Question) -> list[list[str]]:
    """The key of a matrix question as cells (for the report only)."""
    return [[entry_text(x, question.decimals) for x in row] for row in question.answer]


def _instruction(question: Question) -> str:
    """GATE's line under the question; for a matrix, how the grid of cells is filled."""
    shape = matrix_entry_shape(question)
    if question.kind == "MCQ" and shape is None:   # as GATE: a second click does not take a choice back
        return ("Choose ONE option. Clicking the chosen option again keeps it chosen; "
                "Clear Response removes it.")
    if shape is None:
        return question.instruction()
    how = (f"each entry rounded to {question.decimals} decimal place{'s' if question.decimals != 1 else ''}"
           if question.decimals else "exact entries")
    infinity = ", −∞ with its key" if shape["minus_infinity"] else ""
    return (f"Enter the {shape['rows']}×{shape['cols']} matrix, {how}{infinity}: click a cell, then type it "
            "on the keypad.")


def question_view(question: Question) -> dict:
    """What the exam screen shows of a question: nothing that gives the answer away, not even
    the template's title (GATE's questions carry none; the report shows it)."""
    return {
        "kind": question.kind,
        "marks": question.marks,
        "marks_text": marks_text(question.marks),
        "negative": negative_text(question),
        "prompt": to_html(question.prompt),
        "exhibits": "".join(matrix_html(e) for e in question.exhibits),
        "options": [inline_html(o.md) for o in question.options],
        "letters": list(LETTERS[:len(question.options)]),
        "instruction": _instruction(question),
        "matrix": matrix_entry_shape(question),
    }


def solution_html(question: Question) -> str:
    """The worked solution, step by step, with its matrices."""
    parts = []
    for step in question.solution:
        body = to_html(step.md) if step.md else (f"<pre>{html.escape(step.text)}</pre>" if step.text else "")
        if step.matrix is not None:
            body += matrix_html(step, caption=False)
        parts.append(f'<div class="step"><h4>{inline_html(step.title)}</h4>{body}</div>')
    return "".join(parts)
