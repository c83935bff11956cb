"""Interview mode: conceptual questions asked in follow-up chains, self-rated, scheduled by FSRS.

The interviewer starts a line of questioning where the schedule says (a due prompt, or
the first unseen one) and digs deeper through the chain's follow-ups. A prompt rated
Again ends the chain, as an interviewer moves on when a candidate is stuck.

This is the engine only: it takes the learner's actions (`Reveal`, `Hint`, `Rate`, `Skip`,
`Drop`, `Quit`) and returns plain events to draw; it reads no input and prints nothing, so
any screen can drive it (quizforge/tui/interview_screen.py is the terminal's).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Union

from fsrs import Rating

from quizforge.errors import InputError
from quizforge.practice import interview_bank as bank
from quizforge.practice.scheduler import RATING_NAMES, Planner, interview_key
from quizforge.practice.store import Attempt, History
from quizforge.suggest import did_you_mean


@dataclass
class InterviewSummary:
    session_id: int = 0
    asked: int = 0
    seconds: float = 0.0
    ratings: dict[str, int] = field(default_factory=dict)
    weak: list[str] = field(default_factory=list)
    ended_by: str = "finished"


# --- what the learner does ---------------------------------------------------

@dataclass(frozen=True)
class Reveal:
    """Show the model answer; `notes` is what the learner typed first, if anything."""
    notes: str | None = None


@dataclass(frozen=True)
class Hint:
    """One more key point before the reveal."""


@dataclass(frozen=True)
class Rate:
    """The self-rating after the reveal."""
    rating: Rating


@dataclass(frozen=True)
class Skip:
    """Skip this question only: its follow-up comes next."""


@dataclass(frozen=True)
class Drop:
    """Skip this question and the rest of its chain."""


@dataclass(frozen=True)
class Quit:
    """End the session now."""


Action = Union[Reveal, Hint, Rate, Skip, Drop, Quit]


# --- what happens -----------------------------------------------------------------

@dataclass(frozen=True)
class Asked:
    """A question is put: the `number`-th of `count`, step `step` of its chain."""
    number: int
    count: int
    chain: bank.Chain
    step: int
    prompt: bank.Prompt


@dataclass(frozen=True)
class HintGiven:
    text: str


@dataclass(frozen=True)
class NoMoreHints:
    """Every key point but the last has been given; the last stays for the reveal."""


@dataclass(frozen=True)
class Revealed:
    prompt: bank.Prompt
    notes: str | None


@dataclass(frozen=True)
class Rated:
    prompt_id: str
    rating: str      # "Again", "Hard", "Good" or "Easy"
    seconds: float   # from the question being shown to the rating


@dataclass(frozen=True)
class Skipped:
    prompt_id: str
    dropped: bool    # True for Drop: the chain's follow-ups go too


@dataclass(frozen=True)
class MovedOn:
    """A chain ended before its last follow-up (rated Again, or dropped)."""
    chain: bank.Chain


@dataclass(frozen=True)
class Ended:
    summary: InterviewSummary


Event = Union[Asked, HintGiven, NoMoreHints, Revealed, Rated, Skipped, MovedOn, Ended]

# The phases of a session: before the first question, a question awaiting its answer, a
# revealed answer awaiting its rating, and over.
NOT_STARTED, ANSWERING, RATING, OVER = "not started", "answering", "rating", "over"


@dataclass(frozen=True)
class InterviewState:
    phase: str
    asked: int                       # questions put so far, the one on screen included
    count: int
    chain: bank.Chain | None = None  # the question on screen, if any
    step: int = 0
    prompt: bank.Prompt | None = None
    hints: int = 0


class UnknownTopic(InputError):
    """No interview chain is filed under the topic (or chain id) asked for."""

    def __init__(self, topic: str, known: list[str]):
        self.topic, self.known = topic, known
        super().__init__(f"unknown interview topic {topic!r}{did_you_mean(topic, known)}; "
                         f"interview topics: {', '.join(known)}", param="topic")


def interview_chains(topic: str | None) -> list[bank.Chain]:
    if not topic:
        return list(bank.CHAINS)
    chosen = [c for c in bank.CHAINS if topic in (c.topic, c.id)]
    if not chosen:
        raise UnknownTopic(topic, sorted({c.topic for c in bank.CHAINS} | {c.id for c in bank.CHAINS}))
    return chosen


class Interview:
    """One interview session. `start()` puts the first question; `act(action)` takes the
    learner's next action; both return the events that followed. `state` says what the
    session waits for. Every rating and skip is saved to `history` as it is given."""

    def __init__(self, history: History, *, count: int = 10, topic: str | None = None,
                 clock: Callable[[], float] = time.time, new_per_day: int = 10):
        self.history = history
        self.count = count
        self.clock = clock
        self.topic = topic
        self.chains = interview_chains(topic)
        self.chain_of = {p.id: c for c in self.chains for p in c.prompts}
        self.planner = Planner(history, [p.id for c in self.chains for p in c.prompts], key=interview_key,
                               new_per_day=new_per_day)
        self.summary = InterviewSummary()
        self._phase = NOT_STARTED
        self._started = 0.0
        self._done: set[str] = set()     # asked, or dropped with their chain: not again today
        self._chain: bank.Chain | None = None
        self._index = 0                  # of the prompt on screen within self._chain
        self._hints = 0
        self._shown = 0.0
        self._notes: str | None = None

    @property
    def state(self) -> InterviewState:
        if self._phase in (ANSWERING, RATING):
            return InterviewState(self._phase, self.summary.asked + 1, self.count, self._chain, self._index + 1,
                                  self._chain.prompts[self._index], self._hints)
        return InterviewState(self._phase, self.summary.asked, self.count)

    def start(self) -> list[Event]:
        if self._phase != NOT_STARTED:
            raise ValueError("the interview has already started")
        self._started = self.clock()
        self.summary.session_id = self.history.start_session("interview", {"topic": self.topic, "count": self.count},
                                                             self._started)
        return self._next_question(follow_up=False)

    def act(self, action: Action) -> list[Event]:
        if isinstance(action, Quit):
            return self._end("quit") if self._phase != OVER else []
        if self._phase == ANSWERING and isinstance(action, Hint):
            prompt = self._chain.prompts[self._index]
            if self._hints < len(prompt.key_points) - 1:   # the last point stays for the reveal
                self._hints += 1
                return [HintGiven(prompt.key_points[self._hints - 1])]
            return [NoMoreHints()]
        if self._phase == ANSWERING and isinstance(action, Reveal):
            self._phase, self._notes = RATING, action.notes or None
            return [Revealed(self._chain.prompts[self._index], self._notes)]
        if self._phase == ANSWERING and isinstance(action, (Skip, Drop)):
            prompt = self._chain.prompts[self._index]
            self._record(prompt, "skipped", None, None)
            events: list[Event] = [Skipped(prompt.id, dropped=isinstance(action, Drop))]
            return events + self._next_question(follow_up=isinstance(action, Skip))
        if self._phase == RATING and isinstance(action, Rate):
            prompt = self._chain.prompts[self._index]
            seconds = self._record(prompt, "rated", self._notes, action.rating)
            events = [Rated(prompt.id, RATING_NAMES[action.rating], seconds)]
            return events + self._next_question(follow_up=action.rating != Rating.Again)
        raise ValueError(f"{type(action).__name__} is not possible while the interview is {self._phase}")

    # --- the order of questions ---------------------------------------------

    def _next_question(self, follow_up: bool) -> list[Event]:
        """Put the next question: the chain's follow-up when `follow_up` and there is one,
        else the start of the line the schedule picks."""
        events: list[Event] = []
        if self._chain is not None and not follow_up:
            if self._index + 1 < len(self._chain.prompts):
                events.append(MovedOn(self._chain))
            self._done.update(p.id for p in self._chain.prompts)   # not this chain again today
            self._chain = None
        if self.summary.asked >= self.count:
            return events + self._end("finished")
        if self._chain is not None and self._index + 1 < len(self._chain.prompts):
            self._index += 1
        else:
            pick = self.planner.next(self.clock(), exclude=self._done)
            if pick is None:
                return events + self._end("finished")
            self._chain = self.chain_of[pick.item]
            self._index = [p.id for p in self._chain.prompts].index(pick.item)
        prompt = self._chain.prompts[self._index]
        self._done.add(prompt.id)
        self._phase, self._hints, self._notes, self._shown = ANSWERING, 0, None, self.clock()
        return events + [Asked(self.summary.asked + 1, self.count, self._chain, self._index + 1, prompt)]

    def _end(self, how: str) -> list[Event]:
        self._phase = OVER
        self.summary.ended_by = how
        now = self.clock()
        if self.summary.session_id:
            self.summary.seconds = now - self._started
            self.history.end_session(self.summary.session_id, how, now)
        return [Ended(self.summary)]

    def _record(self, prompt: bank.Prompt, outcome: str, notes: str | None, rating: Rating | None) -> float:
        now = self.clock()
        seconds = now - self._shown
        attempt = Attempt(question_id=prompt.id, template=f"interview.{prompt.id}", topic=self._chain.topic,
                          kind="interview", outcome=outcome, answer=notes, hints=self._hints,
                          tries=1 if rating else 0, seconds=round(seconds, 2),
                          rating=int(rating) if rating else None)
        with self.history.transaction() as db:
            attempt_id = self.history.record_attempt(self.summary.session_id, "interview", attempt, now, db=db)
            if rating is not None:
                self.planner.review(prompt.id, rating, now, attempt_id, db)
        self.summary.asked += 1
        if rating is not None:
            name = RATING_NAMES[rating]
            self.summary.ratings[name] = self.summary.ratings.get(name, 0) + 1
            if rating in (Rating.Again, Rating.Hard):
                self.summary.weak.append(prompt.id)
        return seconds
