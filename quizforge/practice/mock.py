"""The GATE mock engine: a timed paper, navigated and marked the GATE way, and resumable.

The engine takes learner actions (Answer, Next, Prev, Goto, Mark, Clear, Palette, Submit,
Confirm, Pause) and returns events, plain dataclasses; it reads no input and draws nothing,
so a terminal screen (quizforge/tui/mock_screen.py) or a browser view can sit in front of it unchanged.
It imports neither rich nor a terminal reader; the typed-command vocabulary (_GOTO,
mistyped_command) sits here for any front end that takes typed commands.

The paper is a list of question IDs, so it is stored in a line and regenerated on resume.
Every answer, mark and move is saved as it happens, with the time used so far, and the
clock is checkpointed every CHECKPOINT_SECONDS in between (see Heartbeat); a mock never
touches the spaced-repetition schedule.
"""

from __future__ import annotations

import math
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Callable, Union

from quizforge.answers import AnswerError
from quizforge.answers.check import check_answer
from quizforge.bank.registry import all_templates
from quizforge.errors import InputError
from quizforge.practice.mock_sections import DEFAULT_SECTIONS, SECTION_KINDS
from quizforge.practice.prefetch import Prefetcher
from quizforge.practice.store import Attempt, History, MockState
from quizforge.practice.timefmt import clock_text
from quizforge.text.terminal import markdown_to_terminal

DEFAULT_QUESTIONS = 20
GATE_MINUTES_PER_QUESTION = 180 / 65      # GATE DA: 65 questions in 3 hours
GATE_ONE_MARK_SHARE = 30 / 65             # 30 one-mark and 35 two-mark questions
# How often the clock is saved between actions: a crash (kill -9, a closed terminal, a power
# cut) gives back at most this much of the time used. The README quotes it.
CHECKPOINT_SECONDS = 5.0

_GOTO = re.compile(r"(?:g|go|goto|#)\s*(\d+)")
# A line that starts like a go-to but is not one ("g", "g abc", "gg 3", "got 3"): a command typed
# wrong. No answer starts with a word of g, o and t, so "gg 3" is never taken for one.
_GOTO_LIKE = re.compile(r"(?:[got]*g[got]*|#+)(?:\s*\d.*|\s+.*)?")
COMMANDS = ("next", "prev", "mark", "clear", "palette", "submit", "pause", "quit", "goto")


def mistyped_command(key: str) -> str | None:
    """The usage line for a line that looks like a mock command typed wrong, else None (an answer)."""
    if _GOTO_LIKE.fullmatch(key):
        return "to go to a question: g N, e.g. g 7"
    if key.isalpha() and len(key) >= 3:
        close = get_close_matches(key, COMMANDS, n=1, cutoff=0.6)
        if close:
            return (f"did you mean {close[0]}? commands: n next · p prev · g N · m mark · x clear · l palette · "
                    "submit · q pause")
    return None


def default_minutes(questions: int) -> float:
    return round(questions * GATE_MINUTES_PER_QUESTION)


def compose_paper(questions: int, rng=secrets.SystemRandom()) -> list[str]:
    """Question IDs mixed as GATE mixes them: about 46% one-mark, the rest two-mark, spread
    over topics and kinds; one-mark questions first, the first one quick to generate."""
    templates = all_templates()
    by_marks = {m: [t for t in templates if t.marks == m] for m in (1, 2)}
    ones = round(questions * GATE_ONE_MARK_SHARE)
    paper: list[str] = []
    for marks, n in ((1, ones), (2, questions - ones)):
        pool = by_marks[marks]
        chosen: list = []
        while len(chosen) < n:
            # Round-robin over topics so that no topic crowds the paper; repeats only past the pool.
            rest = [t for t in pool if t not in chosen] or list(pool)
            topics = sorted({t.topic for t in rest}, key=lambda topic: sum(c.topic == topic for c in chosen))
            least = [t for t in rest if t.topic == topics[0]]
            chosen.append(rng.choice(least))
        rng.shuffle(chosen)
        if not paper and chosen:
            # The first question is on screen at once only if it needs neither torch nor sympy.
            light = [t for t in chosen if t.light] or [t for t in pool if t.light and t not in chosen][:1]
            if light:
                if light[0] in chosen:
                    chosen.remove(light[0])
                else:
                    chosen.pop()
                chosen.insert(0, light[0])
        paper += [f"{t.id}-{rng.randrange(0x10000):04x}" for t in chosen]
    return paper


@dataclass(frozen=True)
class MarkedAnswer:
    index: int
    question: object
    answer: str | None
    verdict: object | None      # answers.verdict.Verdict, None when unanswered


def mark_paper(state: MockState, questions: list) -> tuple[dict, list[MarkedAnswer]]:
    """Grade every answer the GATE way and summarise (the dict kept as the mock's result)."""
    per_topic: dict[str, dict] = {}
    misconceptions: dict[str, dict] = {}
    score = negative = 0.0
    correct = answered = 0
    marked: list[MarkedAnswer] = []
    for i, question in enumerate(questions):
        text = state.answers.get(i)
        verdict = None
        if text is not None:
            try:
                verdict = check_answer(question, text)
            except AnswerError:
                verdict = None   # checked when given; a stale unreadable answer scores as unanswered
        topic = per_topic.setdefault(question.topic, {"questions": 0, "answered": 0, "correct": 0, "score": 0.0,
                                                      "max": 0.0, "seconds": 0.0})
        topic["questions"] += 1
        topic["max"] += question.marks
        topic["seconds"] += round(state.spent.get(i, 0.0), 1)
        if verdict is not None:
            answered += 1
            topic["answered"] += 1
            score += verdict.marks
            topic["score"] += verdict.marks
            if verdict.correct:
                correct += 1
                topic["correct"] += 1
            elif verdict.marks < 0:
                negative += -verdict.marks
            if verdict.misconception is not None and not verdict.correct:
                m = misconceptions.setdefault(verdict.misconception.tag, {
                    "tag": verdict.misconception.tag, "label": verdict.misconception.label, "count": 0,
                    "feedback": verdict.misconception.feedback})
                m["count"] += 1
        marked.append(MarkedAnswer(i, question, text, verdict))
    for topic in per_topic.values():
        topic["score"] = round(topic["score"], 2)
    return {
        "score": round(score, 2), "max": float(sum(q.marks for q in questions)), "negative": round(negative, 2),
        "questions": len(questions), "answered": answered, "correct": correct,
        "seconds": round(state.elapsed, 1), "per_topic": per_topic,
        "misconceptions": sorted(misconceptions.values(), key=lambda m: -m["count"]),
        "items": [{"id": m.question.id, "topic": m.question.topic, "kind": m.question.kind,
                   "marks": m.question.marks, "answer": _answer_text(m),
                   "key": _key_text(m.question),
                   "correct": m.verdict.correct if m.verdict else None,
                   "earned": round(m.verdict.marks, 2) if m.verdict else 0.0,
                   "seconds": round(state.spent.get(m.index, 0.0), 1)} for m in marked],
    }, marked


def _answer_text(marked: MarkedAnswer) -> str | None:
    """The answer as typed; a matrix typed over several lines as the one line it was read as."""
    if marked.verdict is not None and marked.question.is_matrix:
        return marked.verdict.given
    return marked.answer


def _key_text(question) -> str:
    """The key as a short cell: option letters, or the number the answer is checked against."""
    if question.kind != "NAT":
        return question.correct_letters

    return markdown_to_terminal(question.answer_md)


# --- actions: what the learner does ------------------------------------------

@dataclass(frozen=True)
class Answer:
    text: str
    advance: bool = True   # GATE's "save & next"; False saves and stays (a browser's own buttons move)


@dataclass(frozen=True)
class Next:
    """To the next question (after the last: the first)."""


@dataclass(frozen=True)
class Prev:
    """To the previous question (before the first: the last)."""


@dataclass(frozen=True)
class Goto:
    number: int   # 1-based, as the paper numbers its questions


@dataclass(frozen=True)
class Mark:
    """Mark the question on screen for review, or unmark it."""


@dataclass(frozen=True)
class Clear:
    """Clear the answer to the question on screen."""


@dataclass(frozen=True)
class Palette:
    """Ask for the question palette."""


@dataclass(frozen=True)
class Submit:
    """Hand the paper in; with questions open, the engine asks for Confirm first."""


@dataclass(frozen=True)
class Confirm:
    """Yes, hand it in (after SubmitAsked; on its own it is a Submit)."""


@dataclass(frozen=True)
class Pause:
    """Stop here; the mock can be resumed with its clock."""


Action = Union[Answer, Next, Prev, Goto, Mark, Clear, Palette, Submit, Confirm, Pause]


# --- events: what the front end shows -------------------------------------------

@dataclass(frozen=True)
class Shown:
    """This question is now on screen (show it, its flags and the answer kept for it)."""
    index: int
    total: int
    marked: bool
    answer: str | None


@dataclass(frozen=True)
class Saved:
    index: int
    text: str


@dataclass(frozen=True)
class Unreadable:
    """The answer cannot be read for this question's kind; nothing was saved."""
    index: int
    message: str


@dataclass(frozen=True)
class NoSuchQuestion:
    number: int
    total: int


@dataclass(frozen=True)
class MarkChanged:
    index: int
    marked: bool


@dataclass(frozen=True)
class Cleared:
    index: int


PALETTE_STATES = ("answered", "not answered", "not visited", "marked for review", "answered and marked")


@dataclass(frozen=True)
class PaletteCell:
    number: int
    state: str      # one of PALETTE_STATES
    current: bool


@dataclass(frozen=True)
class PaletteShown:
    cells: tuple[PaletteCell, ...]
    answered: int
    marked: int
    total: int
    seconds_left: float


@dataclass(frozen=True)
class SubmitAsked:
    """Questions are open: as GATE's interface does, say how many before the paper is handed in."""
    unanswered: int
    marked: int


@dataclass(frozen=True)
class LastQuestion:
    """An answer was saved on the last question; there is nowhere to move on to."""
    unanswered: int


@dataclass(frozen=True)
class Ended:
    """The sitting is over: 'submitted', 'timed_out' (call finish() for the result) or 'paused'."""
    how: str
    seconds_left: float


Event = Union[Shown, Saved, Unreadable, NoSuchQuestion, MarkChanged, Cleared, PaletteShown, SubmitAsked,
              LastQuestion, Ended]


def palette_state(state: MockState, i: int) -> str:
    """As GATE's palette colours question i."""
    answered, marked = i in state.answers, i in state.marked
    if marked:
        return PALETTE_STATES[4] if answered else PALETTE_STATES[3]
    return PALETTE_STATES[0] if answered else PALETTE_STATES[1] if i in state.visited else PALETTE_STATES[2]


# --- the engine -------------------------------------------------------------------

class MockEngine:
    """One sitting of a mock paper, new or resumed. Thread-safe: a Heartbeat (or a web server's
    threads) may call it while the front end waits for the learner."""

    def __init__(self, history: History, state: MockState, clock: Callable[[], float] | None = None):
        self.history = history
        self.state = state
        # The wall clock stamps the history; the sitting is timed on a monotonic clock, so that
        # a step of the wall clock (NTP after a laptop wakes) neither ends nor stretches it. The
        # time used is saved as a duration, so a resume in another process carries on from it.
        # A clock of a test's own (not the wall clock) stands for both.
        self.clock = clock or time.time
        self.timer = time.monotonic if clock is None or clock is time.time else clock
        self.prefetcher = Prefetcher()
        self.lock = threading.RLock()
        self.ended: str | None = None
        self._questions: dict[int, object] = {}
        self._tick: float | None = None    # None until start(): the clock is stopped
        self._asked = False                # a SubmitAsked waits for Confirm

    # --- the clock ------------------------------------------------------------

    def start(self) -> list[Event]:
        """Start the clock with the question on screen. Get that question (question(current))
        first, so that the time taken to make it is not charged."""
        with self.lock:
            self._tick = self.timer()
            self.state.visited.add(self.state.current)
            return [self._shown()]

    def time_left(self) -> float:
        """Seconds left now: the one number every front end shows (header, toolbar, palette)."""
        with self.lock:
            running = 0.0 if self._tick is None or self.ended else max(0.0, self.timer() - self._tick)
            return max(0.0, self.state.remaining - running)

    def deadline(self) -> float:
        """When time runs out, on the wall clock a reader waits on. Recomputed at each prompt: after
        a step of the wall clock the reader wakes early, poll() finds time left, and it reads again."""
        with self.lock:
            return self.clock() + self.time_left()

    def _account(self) -> None:
        """Charge the time since the last charge to the clock and to the question on screen."""
        if self._tick is None or self.ended:
            return
        now = self.timer()
        spent = min(max(0.0, now - self._tick), self.state.remaining)   # never past the time allowed
        self._tick = now
        self.state.elapsed += spent
        i = self.state.current
        self.state.spent[i] = self.state.spent.get(i, 0.0) + spent

    def _save(self) -> None:
        self._account()
        self.history.save_mock(self.state)

    def checkpoint(self) -> None:
        """Save the time used so far; nothing else changes. Called every few seconds."""
        with self.lock:
            if self._tick is not None and not self.ended:
                self._save()

    def poll(self) -> list[Event]:
        """[Ended('timed_out')] once time is up (the paper is then handed in as it is), else []."""
        with self.lock:
            if self.ended:
                return [Ended(self.ended, self.time_left())]
            if self._tick is not None and self.state.remaining - (self.timer() - self._tick) <= 0:
                return self._end("timed_out")
            return []

    def _end(self, how: str) -> list[Event]:
        self._save()
        self.ended = how
        if how == "paused":
            self.history.end_session(self.state.session_id, "quit", self.clock())
        return [Ended(how, self.state.remaining)]

    # --- questions --------------------------------------------------------------

    def question(self, i: int):
        """Question i of the paper, made on first use (those ahead are made in the background)."""
        if i not in self._questions:
            self._questions[i] = self.prefetcher.get(self.state.paper[i])
        return self._questions[i]

    def prefetch_rest(self) -> None:
        for i, qid in enumerate(self.state.paper):
            if i not in self._questions:
                self.prefetcher.prefetch(qid)

    def close(self) -> None:
        self.prefetcher.close()

    # --- actions ------------------------------------------------------------------

    def act(self, action: Action) -> list[Event]:
        """Apply one learner action; returns what happened, in order. After the time is up the
        action is not applied: the paper is handed in as it was."""
        with self.lock:
            if self._tick is None:
                raise RuntimeError("start() the mock before acting on it")
            over = self.poll()
            if over:
                return over
            asked, self._asked = self._asked, False
            s = self.state
            total = len(s.paper)
            if isinstance(action, Answer):
                return self._answer(action.text, action.advance)
            if isinstance(action, Next):
                return self._move(s.current + 1 if s.current + 1 < total else 0)
            if isinstance(action, Prev):
                return self._move(s.current - 1 if s.current else total - 1)
            if isinstance(action, Goto):
                if not 1 <= action.number <= total:
                    return [NoSuchQuestion(action.number, total)]
                return self._move(action.number - 1)
            if isinstance(action, Mark):
                s.marked.symmetric_difference_update({s.current})
                self._save()
                return [MarkChanged(s.current, s.current in s.marked)]
            if isinstance(action, Clear):
                s.answers.pop(s.current, None)
                self._save()
                return [Cleared(s.current)]
            if isinstance(action, Palette):
                self._account()
                return [self.palette()]
            if isinstance(action, (Submit, Confirm)):
                unanswered = total - len(s.answers)
                if (unanswered or s.marked) and not (isinstance(action, Confirm) and asked):
                    self._asked = True
                    return [SubmitAsked(unanswered, len(s.marked))]
                return self._end("submitted")
            if isinstance(action, Pause):
                return self._end("paused")
            raise TypeError(f"not a mock action: {action!r}")

    def _shown(self) -> Shown:
        s = self.state
        return Shown(s.current, len(s.paper), s.current in s.marked, s.answers.get(s.current))

    def _move(self, to: int) -> list[Event]:
        self._account()   # charged to the question being left
        self.state.current = to
        self.state.visited.add(to)
        self.history.save_mock(self.state)
        return [self._shown()]

    def _answer(self, text: str, advance: bool = True) -> list[Event]:
        s = self.state
        question = self.question(s.current)
        try:
            verdict = check_answer(question, text)   # readable? (the verdict stays hidden until the report)
        except AnswerError as exc:
            return [Unreadable(s.current, str(exc))]
        s.answers[s.current] = text
        self._save()
        # A matrix typed a row per line is echoed as the one line it was read as.
        events: list[Event] = [Saved(s.current, verdict.given if question.is_matrix else text)]
        if not advance:
            return events
        if s.current + 1 < len(s.paper):
            return events + self._move(s.current + 1)   # GATE's "save & next"
        return events + [LastQuestion(len(s.paper) - len(s.answers))]

    def palette(self) -> PaletteShown:
        s = self.state
        cells = tuple(PaletteCell(i + 1, palette_state(s, i), i == s.current) for i in range(len(s.paper)))
        return PaletteShown(cells, len(s.answers), len(s.marked), len(s.paper), self.time_left())

    # --- the end -------------------------------------------------------------------

    def finish(self) -> tuple[dict, list[dict]]:
        """Mark a submitted or timed-out paper and record it: (the result, earlier mocks' results)."""
        with self.lock:
            if self.ended not in ("submitted", "timed_out"):
                raise RuntimeError(f"finish() needs a submitted paper, not {self.ended!r}")
            questions = [self.question(i) for i in range(len(self.state.paper))]
            self.prefetcher.close()
            result, marked = mark_paper(self.state, questions)
            result.update(status=self.ended, submitted_at=self.clock())
            earlier = [m.result for _, m in self.history.mocks()
                       if m.result and m.session_id != self.state.session_id]
            self.state.result = result
            _finish(self.history, self.state, marked, self.ended, self.clock())
            return result, earlier


class Heartbeat:
    """Checkpoints an engine's clock every `every` seconds on a daemon thread, also while the
    learner sits at a prompt, so that a crash gives back at most that much time. A failed
    write (the file busy for too long) is skipped: the next action saves again and reports it."""

    def __init__(self, engine: MockEngine, every: float = CHECKPOINT_SECONDS):
        self.engine = engine
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="quizforge-mock-clock", daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            try:
                self.engine.checkpoint()
            except (sqlite3.Error, InputError):
                pass

    def __enter__(self) -> "Heartbeat":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=self.every + 5)


# --- choosing the mock to sit ----------------------------------------------------------

def mock_summary(state: MockState) -> str:
    """'#3 (12 of 20 answered, 31:20 left)'."""
    return (f"#{state.number} ({len(state.answers)} of {len(state.paper)} answered, "
            f"{clock_text(state.remaining)} left)")


def paused_list(paused: list[MockState]) -> str:
    return ", ".join(mock_summary(m) for m in paused)


def paused_mock(history: History, wanted: int | str | None = None) -> MockState:
    """The paused mock to resume: the newest, or mock number `wanted` ('3' and '#3' do too).
    Reopens its session. Anything else is an InputError naming the paused mocks."""
    paused = history.paused_mocks()
    what = "there is no interrupted mock to resume" if wanted is None else f"there is no paused mock {wanted}"
    if not paused:
        raise InputError(f"{what}: no mock is paused; start one with quiz practice --mock gate")
    if wanted is None:
        state = paused[-1]
    else:
        text = str(wanted).strip().lstrip("#")
        state = next((m for m in paused if text.isdigit() and m.number == int(text)), None)
        if state is None:
            raise InputError(f"{what}; paused: {paused_list(paused)}")
    history.reopen_session(state.session_id)
    return state


def new_mock(history: History, questions: int | None, minutes: float | None,
             clock: Callable[[], float] = time.time, sections: str = DEFAULT_SECTIONS) -> MockState:
    """Compose a paper and record it, unstarted: the clock starts when a front end starts the engine.
    `sections` ("subject", "topic" or "marks") is kept in the session's settings, so a resume shows the same."""
    if sections not in SECTION_KINDS:
        raise InputError(f"sections: {sections!r} is not one of {', '.join(SECTION_KINDS)}")
    if minutes is not None and not (math.isfinite(minutes) and minutes > 0):
        # nan would pass every comparison and end as NULL in a NOT NULL column, after the session was made
        raise InputError(f"{minutes!r} minutes: the time must be a finite number of minutes above 0",
                         param="minutes")
    n = questions or DEFAULT_QUESTIONS
    minutes = minutes or default_minutes(n)
    paper = compose_paper(n)
    session_id = history.start_session("mock", {"exam": "gate", "questions": n, "minutes": minutes,
                                                "sections": sections}, clock())
    state = MockState(session_id, "gate", paper, minutes, sections=sections)
    history.create_mock(state)
    return state


def _finish(history: History, state: MockState, marked: list[MarkedAnswer], status: str, at: float) -> None:
    """In one transaction: the result, the attempts (for stats) and the session's end.
    FSRS cards are left alone: a mock is cramming, not review."""
    with history.transaction() as db:
        history.save_mock(state, db)
        history.end_session(state.session_id, status, at, db)
        for m in marked:
            q, v = m.question, m.verdict
            outcome = "unanswered" if v is None else "correct" if v.correct else "wrong"
            miss = v.misconception if v is not None and not v.correct else None
            history.record_attempt(state.session_id, "mock", Attempt(
                question_id=q.id, template=q.template, topic=q.topic, kind=q.kind, outcome=outcome, marks=q.marks,
                difficulty=q.difficulty, answer=m.answer, score=v.marks if v else 0.0,
                misconception=miss.tag if miss else None, misconception_label=miss.label if miss else None,
                tries=1 if v else 0, seconds=round(state.spent.get(m.index, 0.0), 1)), at, db=db)
