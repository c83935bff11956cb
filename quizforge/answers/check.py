"""Checking one answer to one question: parse, compare, diagnose, score the GATE way.

All parsing goes through `quizforge.answers` (a restricted grammar, never eval);
unreadable text raises `AnswerError` and, in a session, is not an attempt.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from quizforge import answers
from quizforge.answers import matrix_questions
from quizforge.answers.question_keys import numeric_key
from quizforge.answers.verdict import Verdict, shown_answer
from quizforge.bank.question import LETTERS, Misconception, Question


def check_answer(question: Question, text: str) -> Verdict:
    """Check `text` as an answer to `question`. Raises answers.AnswerError if unreadable."""
    if question.is_matrix:
        return matrix_questions.check(question, text)
    if question.kind == "NAT":
        return _check_numeric(question, text)
    return _check_choice(question, text)


def answer_text(question: Question, words: list[str] | tuple[str, ...]) -> str:
    """An answer typed as several command-line words, as one text. A matrix given one row per
    quoted argument (`quiz check ID "1 0" "1 1"`) is one row per line; anything else is the
    words joined by spaces (`6 553 600`)."""
    rows = len(question.answer) if question.is_matrix else 0
    if rows > 1 and len(words) == rows and not any(c in w for w in words for c in "[];\n"):
        return "\n".join(words)
    return " ".join(words)


def _check_numeric(question: Question, text: str) -> Verdict:
    key = numeric_key(question)
    alternatives = [(m.tag, m.value) for m in question.misconceptions if m.value is not None]
    checked = answers.check_numeric(key, text, alternatives)
    given = " ".join(text.split())   # echoed as typed: 7.8e22 stays 7.8e22, not 78,000,…
    miss = next((m for m in question.misconceptions if m.tag == checked.matched), None)
    others = [m for m in question.misconceptions if m.tag in checked.also]
    if checked.correct:
        feedback = "Correct."
    elif miss is not None and others:
        # Two wrong formulas give this number: name each, claim neither.
        feedback = ("Not quite: that number comes from more than one mistake — "
                    + "; or ".join(m.feedback for m in (miss, *others)) + ".")
    elif miss is not None:
        feedback = f"Not quite: {miss.feedback}."
    else:
        feedback = f"Incorrect: the answer is {answers.format_number(key.value, question.decimals)}."
    if checked.raw_count and not checked.correct and question.unit is not None:
        feedback += (f" The question asks for {question.unit.name}: {given} is "
                     f"{_decimal_text(checked.value)} {question.unit.suffix}.")
    return Verdict(question.id, checked.correct, answers.gate_score("NAT", question.marks, checked.correct),
                   question.marks, feedback, miss, given, shown_answer(question), key.range_text(),
                   _decimal_text(checked.value))


def _decimal_text(value: Any) -> str:
    """A parsed answer in the question's unit as a decimal (0.4657, never 1,953,125/4,194,304)."""
    exact = Fraction(value)
    if exact.denominator == 1:
        return answers.format_number(exact)
    text = answers.format_number(float(value))
    return text if "/" not in text else repr(float(value))


def _check_choice(question: Question, text: str) -> Verdict:
    chosen = answers.parse_choice(text, len(question.options), multiple=question.kind == "MSQ")
    correct = chosen == question.correct
    given = ",".join(LETTERS[i] for i in sorted(chosen))
    miss: Misconception | None = None
    if correct:
        feedback = "Correct."
    elif question.kind == "MCQ":
        (i,) = chosen
        option = question.options[i]
        miss = option.misconception
        reason = (miss.feedback if miss is not None else option.why) or "that option is not the answer"
        feedback = f"Not quite: ({LETTERS[i]}) — {reason}. The answer is ({question.correct_letters})."
    else:
        wrong = sorted(chosen - question.correct)
        missed = sorted(question.correct - chosen)
        parts = []
        if wrong:
            parts.append("wrongly chose " + ", ".join(f"({LETTERS[i]})" for i in wrong))
        if missed:
            parts.append("missed " + ", ".join(f"({LETTERS[i]})" for i in missed))
        first = next((question.options[i] for i in wrong), None)
        miss = first.misconception if first is not None else None
        why = f" — {first.why}" if first is not None and first.why else ""
        feedback = f"Not quite: you {' and '.join(parts)}{why}. The answer is {question.correct_letters}."
    return Verdict(question.id, correct, answers.gate_score(question.kind, question.marks, correct), question.marks,
                   feedback, miss, given, shown_answer(question), question.correct_letters)
