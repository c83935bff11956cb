"""A mock paper's sections: GATE's subject section (the default), or by topic, or by marks.

GATE's exam screen groups a paper into subject sections (General Aptitude, then the paper's
subject), each with its one-mark questions before its two-mark ones; the bank has no
aptitude questions, so a paper is one section, "Data Science & Artificial Intelligence".
By topic gives a tab per topic; by marks (1-mark, then 2-mark questions) is how mocks were
grouped before, and how a mock saved then still opens. Which one is chosen when the mock is set
(`quiz practice --mock gate --sections subject|topic|marks`) and kept with it, so a resumed
mock shows the sections it started with, in the terminal or the browser. Sections only group
questions: the paper's numbering and order stay as they are.
"""

from __future__ import annotations

from dataclasses import dataclass

from quizforge.bank.registry import parse_question_id
from quizforge.bank.template import TOPICS

SECTION_KINDS = ("subject", "topic", "marks")
DEFAULT_SECTIONS = "subject"
SUBJECT_SECTION = "Data Science & Artificial Intelligence"


@dataclass(frozen=True)
class Section:
    name: str
    questions: tuple[int, ...]   # 0-based indices, in paper order


def question_marks(question_id: str) -> int:
    """A question's marks, from its template (nothing is generated)."""
    return parse_question_id(question_id)[0].marks


def question_topic(question_id: str) -> str:
    return parse_question_id(question_id)[0].topic


def subject_sections(paper: list[str]) -> list[Section]:
    """GATE's subject section: the whole paper, one-mark questions first as the paper orders them."""
    return [Section(SUBJECT_SECTION, tuple(range(len(paper))))]


def sections_by_marks(paper: list[str]) -> list[Section]:
    """GATE's sections by marks: one-mark questions, then two-mark ones (as the paper orders them)."""
    by_marks: dict[int, list[int]] = {}
    for i, qid in enumerate(paper):
        by_marks.setdefault(question_marks(qid), []).append(i)
    return [Section(f"{marks}-mark questions", tuple(found)) for marks, found in sorted(by_marks.items())]


def sections_by_topic(paper: list[str]) -> list[Section]:
    """One section per topic, in the syllabus's order (the bank's list of topics)."""
    by_topic: dict[str, list[int]] = {}
    for i, qid in enumerate(paper):
        by_topic.setdefault(question_topic(qid), []).append(i)
    order = list(TOPICS)
    ranked = sorted(by_topic, key=lambda t: (order.index(t) if t in order else len(order), t))
    return [Section(TOPICS.get(topic, topic), tuple(by_topic[topic])) for topic in ranked]


def paper_sections(paper: list[str], kind: str = DEFAULT_SECTIONS) -> list[Section]:
    """The paper's sections of the kind its mock was set with (an unknown kind: by marks)."""
    if kind == "subject":
        return subject_sections(paper)
    return sections_by_topic(paper) if kind == "topic" else sections_by_marks(paper)


def section_of(sections: list[Section], index: int) -> int:
    """Which section question `index` (0-based) sits in."""
    return next(n for n, section in enumerate(sections) if index in section.questions)


def numbers_text(indices) -> str:
    """Question numbers (1-based) for 0-based indices, runs shortened: '1–3, 7, 9–10'."""
    numbers = sorted(i + 1 for i in indices)
    runs: list[list[int]] = []
    for n in numbers:
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    return ", ".join(str(r[0]) if len(r) == 1 else f"{r[0]}–{r[-1]}" for r in runs)
