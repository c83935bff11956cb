"""Questions as JSON and as Markdown with LaTeX math (for notes, LMS imports and PDFs)."""

from __future__ import annotations

from typing import Any

from quizforge.answers import matrix_questions
from quizforge.answers.question_keys import numeric_key
from quizforge.bank.question import LETTERS, Question, Step
from quizforge.text.matrix import tex_matrix
from quizforge.text.terminal import markdown_to_plain, markdown_to_terminal


def _step_json(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"title": step.title, "markdown": step.md,
                           "text": step.text if step.text is not None else markdown_to_terminal(step.md)}
    if step.matrix is not None:
        out["matrix"] = [list(row) for row in step.matrix]
        if step.row_labels:
            out["row_labels"] = list(step.row_labels)
        if step.col_labels:
            out["col_labels"] = list(step.col_labels)
    return out


def accepted_text(question: Question) -> str:
    if question.kind != "NAT":
        return question.correct_letters
    if question.is_matrix:
        from quizforge.answers.matrix_questions import accepted_text as matrix_accepted

        return matrix_accepted(question)

    return numeric_key(question).range_text()


def accepted_ends(question: Question) -> tuple[str, str] | None:
    """A NAT question's accepted range as its two printed ends ('1.0395e24', '1.0605e24'),
    which are exactly what grading accepts (inclusive); None for MCQ/MSQ and matrix answers
    (each entry has its own range: answers.matrix_questions.entry_ends)."""
    if question.kind != "NAT" or question.is_matrix:
        return None

    return numeric_key(question).printed_ends()


def question_json(question: Question, with_answer: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": question.id, "template": question.template, "topic": question.topic, "kind": question.kind,
        "marks": question.marks, "difficulty": question.difficulty, "title": question.title,
        "prompt": question.prompt, "prompt_text": markdown_to_plain(question.prompt),
        "instruction": question.instruction(),
        "options": [{"letter": LETTERS[i], "text": o.md, "plain": markdown_to_plain(o.md)}
                    for i, o in enumerate(question.options)],
    }
    if question.exhibits:
        out["exhibits"] = [_step_json(e) for e in question.exhibits]
    if question.is_matrix:
        out["answer_shape"] = list(matrix_questions.shape_of(question.answer))
    if question.decimals is not None:
        out["decimals"] = question.decimals
    if question.unit is not None and question.unit.name:
        out["unit"] = question.unit.name
    if with_answer:
        out["answer"] = markdown_to_terminal(question.answer_md)
        out["accepted"] = accepted_text(question)
        if question.is_matrix:
            out["answer_matrix"] = [[matrix_questions.entry_text(x, question.decimals) for x in row]
                                    for row in question.answer]
        if question.kind != "NAT":
            out["correct"] = [LETTERS[i] for i in sorted(question.correct)]
        out["solution"] = [_step_json(s) for s in question.solution]
        out["misconceptions"] = [{"tag": m.tag, "label": m.label, "feedback": m.feedback} for m in question.misconceptions]
        if any(o.why for o in question.options):
            out["option_reasons"] = {LETTERS[i]: o.why for i, o in enumerate(question.options) if o.why}
    return out


def answer_markdown(question: Question) -> str:
    """The key in Markdown: a matrix answer as a displayed matrix, anything else as it is shown."""
    if not question.is_matrix:
        return question.answer_md
    return f"$${matrix_questions.bmatrix(question.answer, question.decimals)}$$"


def _step_markdown(step: Step) -> str:
    parts = [f"**{step.title}.**"]
    if step.md:
        parts.append(step.md)
    if step.matrix is not None:
        parts.append("\n\n" + tex_matrix(step))
    return " ".join(parts)


def question_markdown(question: Question, with_answer: bool = True) -> str:
    lines = [f"### {question.title} `{question.id}`", "",
             f"*{question.kind} · {question.marks} mark{'s' if question.marks > 1 else ''}*", "", question.prompt, ""]
    for e in question.exhibits:
        lines += [tex_matrix(e, f"\\mathbf{{{e.title}}} = "), ""]
    for i, o in enumerate(question.options):
        lines.append(f"- ({LETTERS[i]}) {o.md}")
    if question.options:
        lines.append("")
    lines += [f"*{question.instruction()}*", ""]
    if with_answer:
        lines += [f"**Answer:** {answer_markdown(question)}" + (f" (accepted: {accepted_text(question)})"
                                                               if question.kind == "NAT" else ""),
                  "", "**Solution.**", ""]
        lines += [f"{n}. {_step_markdown(s)}" for n, s in enumerate(question.solution, 1)]
        lines.append("")
        reasons = [(i, o) for i, o in enumerate(question.options) if o.why]
        if reasons:
            lines += ["**Why each option is right or wrong.**", ""]
            lines += [f"- ({LETTERS[i]}) {'✓' if o.correct else '✗'} {o.why}" for i, o in reasons]
            lines.append("")
    return "\n".join(lines)
