"""Instructor overrides, applied by `quiz set grade --overrides FILE` after the exam.

A TOML file of `[[overrides]]` tables, each for one question slot (its number on every
paper), or for one student's question when `student` is given:

    [[overrides]]
    question = 4
    action = "drop"                  # no marks for anyone, and the maximum falls by its marks
    reason = "two readings of d_ff"

    [[overrides]]
    question = 5
    action = "award"                 # everyone gets its marks, answered or not

    [[overrides]]
    question = 2
    action = "accept"                # an extra answer is right too:
    mistake = "forgot the biases"    #   answers matching this named mistake (a tag or a label), or
    # student = "21CS002"            #   for one student only, with
    # answer = "0.62"                #   the answer to accept on that student's paper

    [[overrides]]
    question = 3
    action = "grade"                 # grade this answer for one student instead of what was
    student = "21CS004"              #   received (an answer the file could not give readably)
    answer = "0.881"

The file is checked whole before anything is graded: each problem is one line naming the
override and the field. Grading applies them on every run, so a regrade is running
`quiz set grade` again; the item report lists what each override changed.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from quizforge.errors import InputError
from quizforge.problemsets.marking import mark_written
from quizforge.problemsets.spec import read_toml

ACTIONS = ("accept", "drop", "award", "grade")
FIELDS = ("question", "action", "student", "answer", "mistake", "reason")


@dataclass(frozen=True)
class Override:
    question: int
    action: str
    student: str | None = None       # None: every student's question in this slot
    answer: str | None = None        # accept: this answer, on this student's paper
    mistake: str | None = None       # accept: answers matching this named mistake
    reason: str = ""

    def describe(self) -> str:
        who = f"for {self.student}" if self.student else "for everyone"
        what = {"drop": "dropped", "award": "marks given", "grade": f"graded {self.answer!r}",
                "accept": f"also accepted: {self.answer!r}" if self.answer is not None
                else f"also accepted: the mistake {self.mistake!r}"}[self.action]
        return f"{what} {who}" + (f" ({self.reason})" if self.reason else "")


ORDER = {"grade": 0, "accept": 1, "award": 2, "drop": 3}   # a drop wins


@dataclass
class Applied:
    """What the overrides did, gathered over every share of the class they were applied to."""
    overrides: list[Override]
    dropped: dict[str, set[int]] = field(default_factory=lambda: defaultdict(set))
    notes: dict[str, dict[int, str]] = field(default_factory=lambda: defaultdict(dict))
    changed: Counter[int] = field(default_factory=Counter)   # by position in `ordered`: students changed

    @property
    def ordered(self) -> list[Override]:
        return sorted(self.overrides, key=lambda o: ORDER[o.action])

    def by_question(self) -> dict[int, list[str]]:
        """Per question number, each override on it and how many students it changed."""
        said: dict[int, list[str]] = defaultdict(list)
        for k, o in enumerate(self.ordered):
            n = self.changed[k]
            said[o.question].append(f"{o.describe()}: {n} student{'s' if n != 1 else ''} changed")
        return said


def load_overrides(path: Path, students: dict, question_of: Callable[[str], object]) -> list[Override]:
    """Read and check an overrides file against the set's students and questions."""
    name = path.name
    data = read_toml(path)
    extra = sorted(set(data) - {"overrides"})
    if extra:
        raise InputError(f"{name}: unknown field {extra[0]!r} at the top level; write [[overrides]] tables")
    raw = data.get("overrides", [])
    if not isinstance(raw, list) or not all(isinstance(o, dict) for o in raw):
        raise InputError(f"{name}: overrides must be [[overrides]] tables")
    by_folded = {sid.casefold(): sid for sid in students}
    n_questions = max(len(s["questions"]) for s in students.values())
    found: list[Override] = []
    for n, entry in enumerate(raw, 1):
        where = f"{name}: override {n}"
        unknown = sorted(set(entry) - set(FIELDS))
        if unknown:
            raise InputError(f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(FIELDS)})")
        number, action = entry.get("question"), entry.get("action")
        if type(number) is not int or not 1 <= number <= n_questions:
            raise InputError(f"{where}: question must be a question number from 1 to {n_questions}")
        if action not in ACTIONS:
            raise InputError(f"{where}: action must be one of {', '.join(ACTIONS)}, not {action!r}")
        for text_field in ("student", "answer", "mistake", "reason"):
            if text_field in entry and (not isinstance(entry[text_field], str) or not entry[text_field].strip()):
                raise InputError(f"{where}: {text_field} must be non-empty text")
        student = entry.get("student")
        if student is not None:
            student = by_folded.get(student.strip().casefold())
            if student is None:
                raise InputError(f"{where}: unknown student {entry['student']!r}")
            if number > len(students[student]["questions"]):
                raise InputError(f"{where}: {student}'s paper has no question {number}")
        answer, mistake = entry.get("answer"), entry.get("mistake")
        if action == "grade" and (answer is None or student is None or mistake is not None):
            raise InputError(f"{where}: 'grade' needs a student and the answer to grade for them (and no mistake)")
        if action in ("drop", "award") and (answer is not None or mistake is not None):
            raise InputError(f"{where}: {action!r} takes no answer or mistake (only 'accept' and 'grade' do)")
        if action == "accept":
            if (answer is None) == (mistake is None):
                raise InputError(f"{where}: 'accept' needs either answer (with student) or mistake")
            if answer is not None and student is None:
                raise InputError(f"{where}: an answer differs from paper to paper; name the student it is for "
                                 "(or accept a mistake for everyone)")
        override = Override(number, action, student, answer and answer.strip(), mistake and mistake.strip(),
                            entry.get("reason", "").strip())
        targets = [student] if student else [s for s in students if len(students[s]["questions"]) >= number]
        questions = [question_of(students[s]["questions"][number - 1]) for s in targets]
        if answer is not None:
            _check_answer(where, questions[0], answer)
        if mistake is not None and not any(_mistake_indices(q, mistake) or _mistake_value(q, mistake) is not None
                                           for q in questions):
            raise InputError(f"{where}: question {number} names no mistake {mistake!r}; "
                             f"its mistakes: {_mistake_names(questions)}")
        found.append(override)
    _refuse_conflicts(name, found)
    return found


def _check_answer(where: str, question, answer: str) -> None:
    from quizforge.answers import AnswerError

    try:
        mark_written(question, answer)
    except AnswerError as exc:
        raise InputError(f"{where}: cannot read answer {answer!r} ({exc})") from None


def _mistake_names(questions: list) -> str:
    names = sorted({m.tag for q in questions for m in q.misconceptions}
                   | {o.misconception.tag for q in questions for o in q.options if o.misconception})
    return ", ".join(names) or "none"


def _names(misconception, mistake: str) -> bool:
    wanted = mistake.casefold()
    return misconception is not None and wanted in (misconception.tag.casefold(), misconception.label.casefold())


def _mistake_indices(question, mistake: str) -> frozenset[int]:
    return frozenset(i for i, o in enumerate(question.options) if _names(o.misconception, mistake))


def _mistake_value(question, mistake: str):
    return next((m.value for m in question.misconceptions if _names(m, mistake) and m.value is not None), None)


def _refuse_conflicts(name: str, overrides: list[Override]) -> None:
    graded = [(o.question, o.student) for o in overrides if o.action == "grade"]
    twice = next((g for g in graded if graded.count(g) > 1), None)
    if twice:
        raise InputError(f"{name}: question {twice[0]} of {twice[1]} is given two answers to grade; keep one")
    final = [o for o in overrides if o.action in ("drop", "award")]
    for k, a in enumerate(final):
        for b in final[k + 1:]:
            if a.question == b.question and (a.student is None or b.student is None or a.student == b.student):
                raise InputError(f"{name}: question {a.question} is dropped or awarded twice for the same student; "
                                 "keep one of those overrides")


def _accepts(override: Override, question, answer: str) -> bool:
    """Whether the student's answer (as they wrote it) is right under this accept override."""
    from quizforge.answers import parse_choice
    from quizforge.answers.question_keys import numeric_key

    if question.is_matrix:
        from quizforge.answers import matrix_questions

        given = matrix_questions.read_any_shape(answer)
        if override.answer is not None:
            return matrix_questions.matches(matrix_questions.read_any_shape(override.answer), given, question.decimals)
        wrong = _mistake_value(question, override.mistake)
        return wrong is not None and matrix_questions.matches(wrong, given, question.decimals)
    if question.kind == "NAT":
        key = numeric_key(question)
        value = key.parse(answer)
        if override.answer is not None:
            return key.matches(value, key.parse(override.answer))
        wrong = _mistake_value(question, override.mistake)
        return wrong is not None and key.matches(value, wrong)
    multiple = question.kind == "MSQ"
    chosen = parse_choice(answer, len(question.options), multiple=multiple)
    if override.answer is not None:
        return chosen == parse_choice(override.answer, len(question.options), multiple=multiple)
    flagged = _mistake_indices(question, override.mistake)
    differs = chosen ^ question.correct
    return bool(differs) and differs <= flagged


def apply_overrides(papers: dict[str, list], verdicts: dict, raw: dict, applied: Applied) -> None:
    """Change the verdicts of the students in PAPERS (the class, or a share of it) in place, and
    note in APPLIED what changed: answers to grade first, then accepts, then awards, then drops."""
    for k, o in enumerate(applied.ordered):
        n = o.question
        if o.student:
            targets = [o.student] if o.student in papers else []
        else:
            targets = [s for s, qs in papers.items() if len(qs) >= n]
        for sid in targets:
            question, verdict = papers[sid][n - 1], verdicts[sid].get(n)
            if o.action == "grade":
                verdicts[sid][n] = mark_written(question, o.answer)
                raw[sid][n] = o.answer
            elif o.action == "drop":
                verdicts[sid].pop(n, None)
                applied.dropped[sid].add(n)
            elif o.action == "award":
                verdicts[sid][n] = _marked_right(verdict, question, "Marks given by the instructor.")
                if verdict is not None and verdict.correct:
                    continue
            elif verdict is not None and not verdict.correct and _accepts(o, question, raw[sid][n]):
                verdicts[sid][n] = _marked_right(verdict, question, "Accepted by the instructor.")
            else:
                continue
            applied.changed[k] += 1
            applied.notes[sid][n] = "instructor: " + o.describe()


def _marked_right(verdict, question, feedback: str):
    from quizforge.answers import gate_score
    from quizforge.answers.verdict import Verdict
    from quizforge.text.terminal import markdown_to_terminal

    marks = gate_score(question.kind, question.marks, True)
    if verdict is not None:
        return replace(verdict, correct=True, marks=marks, misconception=None, feedback=feedback)
    return Verdict(question.id, True, marks, question.marks, feedback, None, "not answered",
                   markdown_to_terminal(question.answer_md), "")
