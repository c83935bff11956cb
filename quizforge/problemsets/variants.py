"""Who gets which questions. Fair by construction: every student's paper has the same
templates in the same order (so the same kinds, marks and difficulty), and each question's
numbers come from a seed derived from (the set's seed, the student's id, the question's
number). Re-running with the same spec and roster gives the same questions, byte for byte.

Spread (`Assigner`): when that seed would give a student a question text a classmate already
has, a few further seeds derived the same way are tried, in roll order, and the first text
no one has yet (or, once a template seems to have no more, the least used) is taken. So a
template with six texts gives three students three different ones, and a class of 300 an
even share of each. A question's ID still regenerates it exactly (`quiz explain ID`).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
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


def question_seed(spec: SetSpec, student_id: str, number: int, attempt: int = 0) -> int:
    text = f"{spec.seed}|{student_id}|{number}" + (f"|{attempt}" if attempt else "")
    digest = hashlib.sha256(text.encode()).digest()
    return int.from_bytes(digest[:2], "big")


SPREAD_TRIES = 8    # seeds tried per student and slot for a text no one has yet
BALANCE_TRIES = 3   # once a template seems to have no more: seeds tried for its least used text


class Assigner:
    """Papers for a class in roll order, spreading each slot's question texts (see the module)."""

    def __init__(self, spec: SetSpec, slots: list[Slot]):
        self.spec, self.slots = spec, slots
        self.used: list[Counter] = [Counter() for _ in slots]
        self.exhausted = [False] * len(slots)   # a full search found no new text: aim for the least used

    def paper(self, student: Student) -> Paper:
        return Paper(student, tuple(self._question(i, slot, student) for i, slot in enumerate(self.slots)))

    def _question(self, index: int, slot: Slot, student: Student):
        from quizforge.bank.registry import get_template

        template, used = get_template(slot.template), self.used[index]
        target = min(used.values()) if self.exhausted[index] and used else 0
        best = best_count = None
        for attempt in range(BALANCE_TRIES if self.exhausted[index] else SPREAD_TRIES):
            q = template.question(question_seed(self.spec, student.id, slot.number, attempt))
            count = used[question_text_key(q)]
            if best is None or count < best_count:
                best, best_count = q, count
            if count <= target:
                break
        else:
            self.exhausted[index] = self.exhausted[index] or best_count > 0
        used[question_text_key(best)] += 1
        return best


def paper(spec: SetSpec, slots: list[Slot], student: Student) -> Paper:
    """One student's paper from their own seeds alone, without the class-wide spread that
    `make_set` applies through Assigner (the two agree wherever no text repeats)."""
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
