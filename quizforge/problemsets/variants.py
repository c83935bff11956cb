"""Who gets which questions. Fair by construction: every student's paper has the same
templates in the same order (so the same kinds, marks and difficulty), and each question's
numbers come from a seed derived from (the set's seed, the student's id, the question's
number) alone. So a student's paper depends on nothing else: not on who else is on the
roster, nor on their place in it. A student added late, or one who left, changes no other
paper, and re-running with the same spec gives the same questions, byte for byte. The class's
variety comes from the templates' own width, which `variety` reports per slot. A question's
ID regenerates it exactly (`quiz explain ID`).
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
    text = f"{spec.seed}|{student_id}|{number}"
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:2], "big")


def paper(spec: SetSpec, slots: list[Slot], student: Student) -> Paper:
    """One student's paper, from the spec, the set's seed and their id alone."""
    from quizforge.bank.registry import get_template

    return Paper(student, tuple(get_template(s.template).question(question_seed(spec, student.id, s.number))
                                for s in slots))


@dataclass(frozen=True)
class Variety:
    """How many different questions one slot gave the class."""

    slot: Slot
    papers: int
    distinct: int        # different question texts (prompt, options and exhibits; option order aside)
    largest_share: int   # the most papers that carry one same text

    @property
    def shared(self) -> bool:
        return self.largest_share > 1


def fixed_fact_note(slot: Slot) -> str:
    """Why the slot's template cannot give each student a question of their own ('' when it can):
    a fixed-fact template, as `quiz bank list` marks it."""
    from quizforge.bank.registry import get_template

    return get_template(slot.template).fixed_fact


def question_text_key(question) -> tuple:
    """What a student reads, whatever the option order: two papers with equal keys ask the same."""
    return (question.prompt, tuple(sorted(o.md for o in question.options)),
            tuple((e.title, e.md, e.matrix) for e in question.exhibits))


def variety(slots: list[Slot], papers: list[Paper]) -> list[Variety]:
    from collections import Counter

    found = []
    for slot in slots:
        texts = Counter(question_text_key(p.questions[slot.number - 1]) for p in papers)
        found.append(Variety(slot, len(papers), len(texts), max(texts.values(), default=0)))
    return found
