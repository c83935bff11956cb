"""The verdict on one answer to one question: marks, feedback, the mistake it matches."""

from __future__ import annotations

from dataclasses import dataclass

from quizforge.text.terminal import markdown_to_terminal
from quizforge.bank.question import Misconception, Question


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


def shown_answer(question: Question) -> str:
    """The key as a verdict shows it: plain terminal text."""
    return markdown_to_terminal(question.answer_md)
