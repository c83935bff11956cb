"""Who gets which questions. Fair by construction: every student's paper has the same
templates in the same order (so the same kinds, marks and difficulty), and each question's
numbers come from a seed derived from (the set's seed, the student's id, the question's
number). Re-running with the same spec and roster gives the same questions, byte for byte.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass

from quizforge.problemsets.roster import Student
from quizforge.problemsets.spec import SetSpec


@dataclass(frozen=True)
class Slot:
    number: int          # 1-based question number on every paper
    section: str
    template: str


@dataclass(frozen=True)
class Paper:
    student: Student
    questions: tuple      # quizforge.bank.question.Question, in slot order


def plan(spec: SetSpec) -> list[Slot]:
    """The templates of every paper, decided by the set's seed alone."""
    from quizforge.bank.registry import get_template

    slots: list[Slot] = []
    rng = random.Random(f"quizforge-set-{spec.seed}")  # str seeds hash with SHA-512: stable across runs
    for section in spec.sections:
        chosen: list[str] = []
        groups = section.marks or ((None, section.count),)
        for mark, how_many in groups:
            fitting = [t for t in section.templates
                       if t not in chosen and (mark is None or get_template(t).marks == mark)]
            chosen += rng.sample(fitting, how_many)
        for template in chosen:
            slots.append(Slot(len(slots) + 1, section.name, template))
    return slots


def question_seed(spec: SetSpec, student_id: str, number: int) -> int:
    digest = hashlib.sha256(f"{spec.seed}|{student_id}|{number}".encode()).digest()
    return int.from_bytes(digest[:2], "big")


def paper(spec: SetSpec, slots: list[Slot], student: Student) -> Paper:
    from quizforge.bank.registry import get_template

    return Paper(student, tuple(get_template(s.template).question(question_seed(spec, student.id, s.number))
                                for s in slots))
