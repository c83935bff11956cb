"""Grading one answer to one question: parse, compare, diagnose, score the GATE way.

All parsing goes through `quizforge.answers` (a restricted grammar, never eval);
unreadable text raises `AnswerError` and, in a session, is not an attempt.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from quizforge import answers
from quizforge.text.terminal import markdown_to_terminal
from quizforge.bank.question import LETTERS, Misconception, Question, Unit


def numeric_key(question: Question) -> answers.NumericKey:
    """The NAT key: a GATE range when decimal places are stated, else exact or relative."""
    return key_for(question.answer, decimals=question.decimals, rel_tol=question.rel_tol, unit=question.unit)


def key_for(answer: Any, *, decimals: int | None, rel_tol: float | None, unit: Unit | None) -> answers.NumericKey:
    """The NAT key for a key value and how precisely it is asked (what `numeric_key` builds for a question)."""
    family = unit.family if unit is not None and unit.family != "none" else None
    scale = Fraction(unit.scale) if unit is not None else Fraction(1)
    if decimals is not None:
        key = answers.nat_range(answer, decimals, unit=family, scale=scale)
    elif rel_tol:
        key = answers.within_rel(answer, rel_tol, unit=family, scale=scale)
    else:
        key = answers.exact(answer, unit=family, scale=scale)
    return replace(key, names=unit.words) if unit is not None and unit.words else key


def _as_number(x: Any):
    return x if isinstance(x, (int, float, Fraction)) else Fraction(x)


def values_match(a: Any, b: Any, *, decimals: int | None = None, rel_tol: float | None = None) -> bool:
    """Whether two values are indistinguishable under a question's tolerance (for options)."""
    if isinstance(a, str) or isinstance(b, str):
        return a == b
    if decimals is not None:
        return answers.nat_range(_as_number(b), decimals).accepts(_as_number(a))
    if rel_tol:
        return answers.within_rel(_as_number(b), rel_tol).accepts(_as_number(a))
    return answers.exact(_as_number(b)).accepts(_as_number(a))


@dataclass(frozen=True)
class Verdict:
    question_id: str
    correct: bool
    marks: float                  # GATE marks earned: +marks, 0, or −marks/3 for a wrong MCQ
    max_marks: int
    feedback: str
    misconception: Misconception | None
    given: str                    # the answer as it was read
    answer: str                   # the key, as shown
    accepted: str                 # what was accepted (a NAT range, or the letters)
    read_as: str = ""             # NAT: the answer's value in the question's unit, as a decimal

    def to_json(self) -> dict:
        return {
            "id": self.question_id, "correct": self.correct, "marks": self.marks, "max_marks": self.max_marks,
            "feedback": self.feedback, "given": self.given, "answer": self.answer, "accepted": self.accepted,
            **({"read_as": self.read_as} if self.read_as else {}),
            "misconception": None if self.misconception is None else
            {"tag": self.misconception.tag, "label": self.misconception.label},
        }


def grade(question: Question, text: str) -> Verdict:
    """Grade `text` as an answer to `question`. Raises answers.AnswerError if unreadable."""
    if question.is_matrix:
        from quizforge.bank import matrix_answers

        return matrix_answers.grade(question, text)
    if question.kind == "NAT":
        return _grade_numeric(question, text)
    return _grade_choice(question, text)


def answer_text(question: Question, words: list[str] | tuple[str, ...]) -> str:
    """An answer typed as several command-line words, as one text. A matrix given one row per
    quoted argument (`quiz check ID "1 0" "1 1"`) is one row per line; anything else is the
    words joined by spaces (`6 553 600`)."""
    rows = len(question.answer) if question.is_matrix else 0
    if rows > 1 and len(words) == rows and not any(c in w for w in words for c in "[];\n"):
        return "\n".join(words)
    return " ".join(words)


def _grade_numeric(question: Question, text: str) -> Verdict:
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
                   question.marks, feedback, miss, given, _plain_answer(question), key.range_text(),
                   _decimal_text(checked.value))


def _decimal_text(value: Any) -> str:
    """A parsed answer in the question's unit as a decimal (0.4657, never 1,953,125/4,194,304)."""
    exact = Fraction(value)
    if exact.denominator == 1:
        return answers.format_number(exact)
    text = answers.format_number(float(value))
    return text if "/" not in text else repr(float(value))


def _grade_choice(question: Question, text: str) -> Verdict:
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
                   feedback, miss, given, _plain_answer(question), question.correct_letters)


def _plain_answer(question: Question) -> str:
    return markdown_to_terminal(question.answer_md)
