"""The drill engine: spaced-repetition practice over the bank, one question at a time.

It knows no terminal. A screen (quizforge/tui/drill_screen.py draws it with rich) turns what the
learner types into actions (Answer, Hint, Skip, Explain, Next, Quit) and draws the
events each action returns (QuestionShown, Graded, HintShown, ...). The rules:

- Hints come in order (concept, then formula, then numbers).
- Explain asks once (ConfirmGiveUp); a second Explain shows the worked solution and the
  question counts as not known. Any other action in between cancels the first.
- A wrong NAT answer gets one more try; the key is shown after the last one.
- After a question, Next asks the next one, Explain shows the solution again and Quit
  ends; anything else gets NextExpected and changes nothing: a line typed there must
  never become the answer to a question not yet seen.
- Every graded answer is saved with its time, the attempt and its cards in one transaction.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Union

from quizforge.answers import AnswerError
from quizforge.answers.check import check_answer
from quizforge.bank.registry import templates_for
from quizforge.bank.syllabus import in_syllabus
from quizforge.errors import InputError
from quizforge.practice.prefetch import Prefetcher
from quizforge.practice.scheduler import RATING_NAMES, Pick, Planner, rating_for
from quizforge.practice.store import Attempt, History, Try

MAX_TRIES = 2   # NAT only: choice questions reveal the key with the first verdict


@dataclass
class DrillOptions:
    topic: str | None = None
    difficulty: frozenset[int] | None = None
    count: int = 10
    new_per_day: int | None = 10   # None: the exam's pace, or 10 without an exam
    exam: Any = None               # exam.ExamPlan: plan toward this exam date
    syllabus: str | None = None       # "gate": only templates that exercise GATE DA syllabus skills


@dataclass
class DrillSummary:
    session_id: int
    asked: int = 0
    correct: int = 0
    wrong: int = 0
    skipped: int = 0
    ended_by: str = "finished"     # finished | exhausted | quit | eof | interrupted
    ratings: dict[str, int] = field(default_factory=dict)


# --- actions (what the learner does) ---------------------------------------------

@dataclass(frozen=True)
class Answer:
    text: str


@dataclass(frozen=True)
class Hint:
    pass


@dataclass(frozen=True)
class Skip:
    pass


@dataclass(frozen=True)
class Explain:
    pass


@dataclass(frozen=True)
class Next:
    pass


@dataclass(frozen=True)
class Quit:
    how: str = "quit"   # quit | eof (the input ended)


Action = Union[Answer, Hint, Skip, Explain, Next, Quit]


# --- events (what happened, for a screen to draw) --------------------------------

@dataclass(frozen=True)
class Started:
    topic: str | None
    count: int
    due: int                  # reviews due now: due.due_reviews, as `quiz stats` counts them
    exam: Any = None          # exam.ExamProgress: days left, templates left, the pace


@dataclass(frozen=True)
class QuestionShown:
    number: int
    count: int
    reason: str               # due | remedial | new | extra | ahead
    question: Any             # quizforge.bank.question.Question
    limit: int = 0            # today's new-template limit (named by an "extra" question)


@dataclass(frozen=True)
class HintShown:
    number: int
    total: int
    text: str                 # Markdown


@dataclass(frozen=True)
class NoMoreHints:
    pass


@dataclass(frozen=True)
class ConfirmGiveUp:
    pass


@dataclass(frozen=True)
class Unreadable:
    message: str              # why the answer could not be read; the question stays open


@dataclass(frozen=True)
class TryAgain:
    feedback: str             # "Not quite." or the mistake it matched


@dataclass(frozen=True)
class Graded:
    verdict: Any              # quizforge.answers.verdict.Verdict: marks, the key, what was accepted
    correct: bool
    feedback: str             # the verdict's words, e.g. the mistake a wrong answer matched


@dataclass(frozen=True)
class NextExpected:
    """Something other than Next, Explain or Quit after a question: nothing was done."""


@dataclass(frozen=True)
class SolutionShown:
    question: Any


@dataclass(frozen=True)
class Skipped:
    answer_md: str            # the key, in Markdown


@dataclass(frozen=True)
class Rated:
    rating: str               # Again | Hard | Good | Easy
    seconds: float


@dataclass(frozen=True)
class NothingToAsk:
    """Nothing is due and no new template is allowed: no session was started."""
    why: str
    next_due_at: float | None
    limit_reached: bool = False   # today's new templates are used up (a larger limit would ask more)


@dataclass(frozen=True)
class SessionOver:
    summary: DrillSummary
    due_now: int              # reviews due at the end, counted as everywhere else
    next_due_at: float | None
    why: str | None = None    # set when the drill ran out of questions before its count


Event = Union[Started, QuestionShown, HintShown, NoMoreHints, ConfirmGiveUp, Unreadable, TryAgain, Graded,
              NextExpected, SolutionShown, Skipped, Rated, NothingToAsk, SessionOver]


class NoTemplates(InputError):
    """No template matches the drill's topic and difficulty."""

    def __init__(self, topic: str | None, difficulty: frozenset[int] | None, syllabus: str | None = None):
        self.topic, self.difficulty, self.syllabus = topic, difficulty, syllabus
        levels = ",".join(map(str, sorted(difficulty or ())))
        within = " within the GATE DA syllabus" if syllabus else ""
        super().__init__(f"no templates match topic {topic or 'any'} with difficulty {levels}{within}")


def drill_templates(topic: str | None, difficulty: frozenset[int] | None, syllabus: str | None = None):
    chosen = [t for t in templates_for(topic) if (difficulty is None or t.difficulty in difficulty)
              and (syllabus is None or in_syllabus(t.id))]
    if not chosen:
        raise NoTemplates(topic, difficulty, syllabus)
    # Teaching order: easier first, then the bank's topic order.
    return sorted(chosen, key=lambda t: t.difficulty)


@dataclass
class _Open:
    """The question being asked."""
    question: Any
    number: int
    shown: float
    hints: int = 0
    tries: list[Try] = field(default_factory=list)
    hit: Any = None             # the first misconception an answer matched
    giving_up: bool = False     # Explain pressed once


class Drill:
    """One drill session. `start()` and `act()` return the events to draw; `phase` says what
    the learner is being asked: "asking" (an answer), "answered" (next?), or "over"."""

    def __init__(self, history: History, options: DrillOptions, clock: Callable[[], float] = time.time):
        self.history = history
        self.options = options
        self.clock = clock
        templates = drill_templates(options.topic, options.difficulty, options.syllabus)
        unfiltered = options.topic is None and options.difficulty is None and options.syllabus is None
        self.planner = Planner(history, [t.id for t in templates], new_per_day=options.new_per_day,
                               light=[t.id for t in templates if t.light], every_template=unfiltered,
                               named=options.topic is not None, exam=options.exam)
        self.heavy = [t.id for t in templates if not t.light]
        self.prefetcher: Prefetcher | None = None
        self.started = clock()
        self.summary = DrillSummary(0)
        self.phase = "idle"
        self.current: _Open | None = None
        self._asked: list[str] = []   # templates in the order asked
        self._upcoming: Pick | None = None   # the pick being generated in the background
        self._session_open = False

    # --- the session --------------------------------------------------------

    def start(self) -> list[Event]:
        now = self.clock()
        pick = self.planner.next(now, prefer_light=True)
        if pick is None:
            self.phase = "over"
            return [NothingToAsk(self._why_nothing(now), self.planner.reviews(now).next_at,
                                 limit_reached=self.planner.new_per_day > 0 and self._unseen_left())]
        self.prefetcher = Prefetcher()
        settings = {"topic": self.options.topic, "count": self.options.count,
                    "difficulty": sorted(self.options.difficulty or [])}
        self.summary.session_id = self.history.start_session("drill", settings, now)
        self._session_open = True
        due = self.planner.reviews(now).count
        return [Started(self.options.topic, self.options.count, due, self.planner.exam_progress(now)),
                self._show(pick, 1)]

    def question_ready(self) -> None:
        """Call once the question is on screen: the likely next question is generated, and
        torch and sympy warmed, while the learner reads, never before the screen is drawn."""
        if self.phase == "over" or self.prefetcher is None:
            return
        if self.current is not None and self.current.number >= self.options.count:
            upcoming = self._upcoming = None   # the last question: nothing comes after it
        else:
            upcoming = self._upcoming = self.planner.next(self.clock(), exclude=self._asked)
        if upcoming is not None:
            self.prefetcher.prefetch(f"{upcoming.item}-{upcoming.seed:04x}")
        self.prefetcher.warm_up(self.heavy)

    def act(self, action: Action) -> list[Event]:
        if self.phase == "over":
            return []
        if isinstance(action, Quit) and self.phase != "answered":
            return self._finish(action.how)
        if self.phase == "answered":
            if isinstance(action, (Quit, Next)) and self.current.number >= self.options.count:
                return self._finish("finished")   # every question asked: quitting now is finishing
            if isinstance(action, Quit):
                return self._finish(action.how)
            if isinstance(action, Explain):
                return [SolutionShown(self.current.question)]
            if isinstance(action, Next):
                return self._advance()
            return [NextExpected()]
        return self._on_question(action)

    def close(self, how: str = "interrupted") -> None:
        """End the session if it is still open (Ctrl-C, an error); safe to call twice."""
        if self.phase != "over":
            self.summary.ended_by = how
            self.phase = "over"
        self._close()

    # --- one question -------------------------------------------------------

    def _show(self, pick: Pick, number: int) -> QuestionShown:
        upcoming = self._upcoming
        if upcoming is not None and upcoming.item == pick.item:
            pick = upcoming   # the question generated in the background
        self._asked.append(pick.item)
        question = self.prefetcher.get(f"{pick.item}-{pick.seed:04x}")
        self.current = _Open(question, number, self.clock())
        self.phase = "asking"
        return QuestionShown(number, self.options.count, pick.reason, question,
                             self.planner.daily_limit(self.clock()))

    def _advance(self) -> list[Event]:
        number = self.current.number + 1
        now = self.clock()
        pick = self.planner.next(now, exclude=self._asked, prefer_light=not self.prefetcher.warm)
        if pick is None:
            return self._finish("exhausted", why=self._why_nothing(now))
        return [self._show(pick, number)]

    def _on_question(self, action: Action) -> list[Event]:
        q = self.current
        if not isinstance(action, Explain):
            q.giving_up = False
        if isinstance(action, Hint):
            if q.hints < len(q.question.hints):
                q.hints += 1
                return [HintShown(q.hints, len(q.question.hints), q.question.hints[q.hints - 1])]
            return [NoMoreHints()]
        if isinstance(action, Skip):
            self.summary.skipped += 1
            return [Skipped(q.question.answer_md)] + self._record("skipped", None, None)
        if isinstance(action, Explain):
            if not q.giving_up:
                # Seeing the solution before answering counts as not known: ask once, not silently.
                q.giving_up = True
                return [ConfirmGiveUp()]
            self.summary.wrong += 1
            return [SolutionShown(q.question)] + self._record("revealed", None, None)
        if isinstance(action, Answer) and action.text.strip():
            return self._check(action.text.strip())
        return []   # Next, or an empty line, while a question waits for its answer

    def _check(self, text: str) -> list[Event]:
        q = self.current
        try:
            verdict = check_answer(q.question, text)
        except AnswerError as exc:
            return [Unreadable(str(exc))]
        hit = verdict.misconception
        q.tries.append(Try(text, self.clock(), bool(verdict.correct), hit.tag if hit else None))
        if hit is not None and q.hit is None:
            q.hit = hit
        if not verdict.correct and q.question.kind == "NAT" and len(q.tries) < MAX_TRIES:
            if q.question.is_matrix:   # which entries are wrong, never their values
                return [TryAgain(verdict.feedback)]
            return [TryAgain(f"Not quite: {hit.feedback}." if hit else "Not quite.")]
        if verdict.correct:
            self.summary.correct += 1
        else:
            self.summary.wrong += 1
        return [Graded(verdict, bool(verdict.correct), verdict.feedback)] + self._record(
            "correct" if verdict.correct else "wrong", text, verdict)

    def _record(self, outcome: str, answer: str | None, verdict) -> list[Event]:
        """One transaction: the attempt, its tries, its card and the misconception cards it touches."""
        q = self.current
        question, hit = q.question, q.hit
        now = self.clock()
        seconds = now - q.shown
        rating = None
        if outcome != "skipped":
            rating = rating_for(outcome == "correct", tries=len(q.tries), hints=q.hints, seconds=seconds,
                                marks=question.marks)
            name = RATING_NAMES[rating]
            self.summary.ratings[name] = self.summary.ratings.get(name, 0) + 1
        attempt = Attempt(
            question_id=question.id, template=question.template, topic=question.topic, kind=question.kind,
            outcome=outcome, marks=question.marks, difficulty=question.difficulty, answer=answer,
            score=verdict.marks if verdict is not None else 0.0,
            misconception=hit.tag if hit else None, misconception_label=hit.label if hit else None,
            hints=q.hints, tries=len(q.tries), seconds=round(seconds, 2), rating=int(rating) if rating else None,
            answers=tuple(q.tries))
        watched = {m.tag for m in question.misconceptions}
        watched |= {o.misconception.tag for o in question.options if o.misconception is not None}
        with self.history.transaction() as db:
            attempt_id = self.history.record_attempt(self.summary.session_id, "drill", attempt, now, db=db)
            if rating is not None:
                self.planner.review(question.template, rating, now, attempt_id, db,
                                    hit=hit.tag if hit else None, watched=watched)
        self.summary.asked += 1
        self.phase = "answered"   # the last question too: its worked solution is one `e` away
        return [Rated(RATING_NAMES[rating], seconds)] if rating is not None else []

    # --- the end ------------------------------------------------------------

    def _unseen_left(self) -> bool:
        cards = self.history.cards()
        return any(self.planner.key(i) not in cards for i in self.planner.items)

    def _why_nothing(self, now: float) -> str:
        if self.planner.new_per_day == 0 and not self.planner.paced:
            return "no reviews are due and new templates are off"
        limit = self.planner.daily_limit(now)
        if self.planner.paced and limit == 0:
            return "no reviews are due and every template is introduced"
        return f"no reviews are due and today's {limit} new templates are used up"

    def _finish(self, how: str, why: str | None = None) -> list[Event]:
        self.summary.ended_by = how
        self.phase = "over"
        self._close()
        reviews = self.planner.reviews(self.clock())
        return [SessionOver(self.summary, reviews.count, reviews.next_at, why)]

    def _close(self) -> None:
        if self.prefetcher is not None:
            self.prefetcher.close()
            self.prefetcher = None   # closed once, though close() may follow the end of a session
        if self._session_open:
            self._session_open = False
            status = "finished" if self.summary.ended_by in ("finished", "exhausted") else "quit"
            self.history.end_session(self.summary.session_id, status, self.clock())
