"""Marking what a student wrote on a paper, and the marks and mistakes said back to them."""

from __future__ import annotations


def mark_written(question, text: str):
    """The verdict on an answer written on a paper (a readable matrix of the wrong shape is a
    wrong answer there); AnswerError when it cannot be read."""
    from quizforge.answers.check import check_answer

    if question.is_matrix:
        from quizforge.answers.matrix_questions import check_any_shape

        return check_any_shape(question, text)
    return check_answer(question, text)


def mistake_sentence(verdict) -> str:
    """The mistake a wrong answer matches, in words, where its feedback has not said it already."""
    m = verdict.misconception
    if m is None or m.feedback in verdict.feedback:
        return ""
    return f" Mistake: {m.feedback}."


def marks_text(marks: float, signed: bool = False) -> str:
    """Marks as GATE prints them: to 2 decimals, trailing zeros dropped (7.67, -0.33, 10)."""
    marks = round(marks, 2) + 0.0   # + 0.0: no "-0" for a rounded-away tiny negative
    text = f"{marks:+.2f}" if signed else f"{marks:.2f}"
    return text.rstrip("0").rstrip(".")
