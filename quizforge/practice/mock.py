"""A GATE-style mock paper: timed, navigable, marked the GATE way, and resumable.

The paper is a list of question IDs, so it is stored in a line and regenerated on resume.
Every answer, mark and move is saved as it happens, with the time used so far; a
mock never touches the spaced-repetition schedule.
"""

from __future__ import annotations

import re
import secrets
import time
from dataclasses import dataclass
from typing import Callable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from quizforge.answers import AnswerError
from quizforge.errors import InputError
from quizforge.practice.prefetch import Prefetcher
from quizforge.practice.store import Attempt, History, MockState
from quizforge.practice.terminal import EOF, TIMEOUT
from quizforge.practice.view import clock_text, keys_line

DEFAULT_QUESTIONS = 20
GATE_MINUTES_PER_QUESTION = 180 / 65      # GATE DA: 65 questions in 3 hours
GATE_ONE_MARK_SHARE = 30 / 65             # 30 one-mark and 35 two-mark questions

_GOTO = re.compile(r"(?:g|go|goto|#)\s*(\d+)")
# A line that starts like a go-to but is not one ("g", "g abc", "goto x"): a command typed wrong.
_GOTO_LIKE = re.compile(r"(?:g|go|goto|#)(?:\s+.*)?")
COMMANDS = ("next", "prev", "mark", "clear", "palette", "submit", "pause", "quit", "goto")


def mistyped_command(key: str) -> str | None:
    """The usage line for a line that looks like a mock command typed wrong, else None (an answer)."""
    from difflib import get_close_matches

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
    from quizforge.bank.registry import all_templates

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
    verdict: object | None      # bank.grading.Verdict, None when unanswered


def mark_paper(state: MockState, questions: list) -> tuple[dict, list[MarkedAnswer]]:
    """Grade every answer the GATE way and summarise (the dict kept as the mock's result)."""
    from quizforge.bank.grading import grade

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
                verdict = grade(question, text)
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
                   "marks": m.question.marks, "answer": m.answer,
                   "key": _key_text(m.question),
                   "correct": m.verdict.correct if m.verdict else None,
                   "earned": round(m.verdict.marks, 2) if m.verdict else 0.0,
                   "seconds": round(state.spent.get(m.index, 0.0), 1)} for m in marked],
    }, marked


def _key_text(question) -> str:
    """The key as a short cell: option letters, or the number the answer is checked against."""
    if question.kind != "NAT":
        return question.correct_letters
    from quizforge.bank.mathtext import markdown_to_terminal

    return markdown_to_terminal(question.answer_md)


class MockExam:
    """One sitting of a mock paper, new or resumed."""

    def __init__(self, history: History, reader, console: Console, state: MockState,
                 clock: Callable[[], float] = time.time):
        self.history = history
        self.reader = reader
        self.console = console
        self.state = state
        self.clock = clock
        self.prefetcher = Prefetcher()
        self._questions: dict[int, object] = {}
        self._tick = clock()

    # --- time ---------------------------------------------------------------

    def _account(self) -> None:
        """Charge the time since the last action to the clock and to the question on screen."""
        now = self.clock()
        spent = max(0.0, now - self._tick)
        self._tick = now
        self.state.elapsed += spent
        i = self.state.current
        self.state.spent[i] = self.state.spent.get(i, 0.0) + spent

    def _save(self) -> None:
        self._account()
        self.history.save_mock(self.state)

    def _status(self) -> str:
        s = self.state
        left = s.remaining - max(0.0, self.clock() - self._tick)
        return (f"⏱ {clock_text(left)} left  ·  question {s.current + 1} of {len(s.paper)}  ·  "
                f"answered {len(s.answers)}  ·  marked {len(s.marked)}")

    # --- questions ----------------------------------------------------------

    def question(self, i: int):
        if i not in self._questions:
            self._questions[i] = self.prefetcher.get(self.state.paper[i])
        return self._questions[i]

    def _prefetch_all(self) -> None:
        for i, qid in enumerate(self.state.paper):
            if i not in self._questions:
                self.prefetcher.prefetch(qid)

    def _show(self) -> None:
        from quizforge import render_question as render

        i = self.state.current
        q = self.question(i)
        self.state.visited.add(i)
        self._status_line = lambda: self._status()   # a new status per question: a pipe prints it once
        flags = []
        if i in self.state.marked:
            flags.append("marked for review")
        self.console.print()
        self.console.print(render.question_panel(q, f"Q{i + 1}/{len(self.state.paper)}"
                                                    + (f" · {', '.join(flags)}" if flags else "")))
        if i in self.state.answers:
            self.console.print(Text.assemble(("your answer: ", "bold"), self.state.answers[i]))

    # --- the loop -----------------------------------------------------------

    def run(self) -> str:
        """Until submitted, timed out or paused; returns 'submitted', 'timed_out' or 'paused'."""
        self.console.print(keys_line("n next", "p previous", "g N go to", "m mark for review", "x clear",
                                     "l palette", "submit", "q pause"))
        self._show()
        self.reader.prepare()
        self._tick = self.clock()   # the clock starts with the first question on screen
        self._prefetch_all()        # the rest of the paper, behind the first question (pulls in torch/sympy)
        return self._loop()

    def questions(self) -> list:
        """The whole paper, then the background thread is let go."""
        paper = [self.question(i) for i in range(len(self.state.paper))]
        self.prefetcher.close()
        return paper

    def _move(self, to: int) -> None:
        self._account()   # charged to the question being left
        self.state.current = max(0, min(len(self.state.paper) - 1, to))
        self.history.save_mock(self.state)
        self._show()

    def _loop(self) -> str:
        s = self.state
        confirm_submit = False
        while True:
            if s.remaining - (self.clock() - self._tick) <= 0:
                self._save()
                return "timed_out"
            deadline = self._tick + s.remaining
            line = self.reader.read("answer or command › ", deadline=deadline, status=self._status_line)
            if line == TIMEOUT:
                self._save()
                return "timed_out"
            if line == EOF or line.lower() in ("q", "quit", "pause"):
                self._save()
                return "paused"
            key = line.lower()
            goto = _GOTO.fullmatch(key)
            if key != "submit":
                confirm_submit = False
            if key in ("", "n", "next", "s"):
                self._move(s.current + 1 if s.current + 1 < len(s.paper) else 0)
            elif key in ("p", "prev", "previous"):
                self._move(s.current - 1 if s.current else len(s.paper) - 1)
            elif goto:
                target = int(goto.group(1))
                if not 1 <= target <= len(s.paper):
                    self.console.print(f"✗ there is no question {target}: the paper has 1–{len(s.paper)}",
                                       style="yellow")
                    continue
                self._move(target - 1)
            elif key in ("m", "mark"):
                s.marked.symmetric_difference_update({s.current})
                self._save()
                self.console.print("marked for review" if s.current in s.marked else "unmarked", style="magenta")
            elif key in ("x", "clear"):   # not "c": that is an option letter
                s.answers.pop(s.current, None)
                self._save()
                self.console.print("answer cleared", style="dim")
            elif key in ("l", "palette"):
                self._account()
                self.console.print(palette_view(s))
            elif key == "submit":
                unanswered = len(s.paper) - len(s.answers)
                if (unanswered or s.marked) and not confirm_submit:
                    # As GATE's interface does: say what is open before the paper is handed in.
                    confirm_submit = True
                    self.console.print(f"{unanswered} unanswered · {len(s.marked)} marked for review · type submit "
                                       "again to hand the paper in, anything else to go on", style="yellow")
                    continue
                self._save()
                return "submitted"
            elif key in ("h", "e"):
                self.console.print("no hints or solutions during a mock: they come with the report", style="dim")
            elif mistyped_command(key):
                self.console.print(f"✗ {mistyped_command(key)}", style="yellow")
            else:
                try:
                    from quizforge.bank.grading import grade

                    grade(self.question(s.current), line)   # readable? (the verdict stays hidden)
                except AnswerError as exc:
                    self.console.print(f"✗ {exc}", style="yellow")
                    continue
                s.answers[s.current] = line
                self._save()
                self.console.print(f"saved: {line}", style="green")
                if s.current + 1 < len(s.paper):
                    self._move(s.current + 1)   # GATE's "save & next"
                else:
                    unanswered = len(s.paper) - len(s.answers)
                    self.console.print(f"that was the last question · {unanswered} unanswered · "
                                       "type submit to finish, or g N to go back", style="dim")


PALETTE_LEGEND = (("●", "answered", "green"), ("○", "not answered", "red"), ("·", "not visited", "dim"),
                  ("◆", "marked for review", "magenta"), ("◈", "answered and marked (evaluated)", "magenta"))


def palette_status(state: MockState, i: int) -> int:
    """Index into PALETTE_LEGEND, as GATE's palette colours a question."""
    answered, marked = i in state.answers, i in state.marked
    if marked:
        return 4 if answered else 3
    return 0 if answered else 1 if i in state.visited else 2


def palette_view(state: MockState) -> Table:
    """GATE's question palette, with a symbol for each state so it reads without colour too."""
    table = Table.grid(padding=(0, 2))
    cells = []
    for i in range(len(state.paper)):
        symbol, _, style = PALETTE_LEGEND[palette_status(state, i)]
        pointer = "›" if i == state.current else " "
        cells.append(Text(f"{pointer}{i + 1:>2} {symbol}", style=style + (" bold" if i == state.current else "")))
    for row in range(0, len(cells), 10):
        table.add_row(*cells[row:row + 10])
    legend = Text("  ".join(f"{symbol} {label}" for symbol, label, _ in PALETTE_LEGEND), style="dim")
    outer = Table.grid()
    outer.add_row(table)
    outer.add_row(legend)
    outer.add_row(Text(f"{len(state.answers)}/{len(state.paper)} answered · {len(state.marked)} marked · "
                       f"{clock_text(state.remaining)} left"))
    return outer


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


def run_mock(history: History, reader, console: Console, *, questions: int | None, minutes: float | None,
             resume: bool, clock: Callable[[], float] = time.time) -> str:
    if resume:
        state = history.open_mock()
        if state is None:
            raise InputError("there is no interrupted mock to resume: start one with quiz practice --mock gate")
        console.print(f"Resuming mock #{state.session_id}: {len(state.answers)}/{len(state.paper)} answered, "
                      f"{clock_text(state.remaining)} left", style="bold")
        history.reopen_session(state.session_id)
    else:
        n = questions or DEFAULT_QUESTIONS
        minutes = minutes or default_minutes(n)
        paper = compose_paper(n)
        session_id = history.start_session("mock", {"exam": "gate", "questions": n, "minutes": minutes}, clock())
        state = MockState(session_id, "gate", paper, minutes)
        history.create_mock(state)
        console.print(Text.assemble(("GATE mock", "bold"), f" · {n} questions · {clock_text(minutes * 60)} · "
                                    "MCQ wrong: −⅓ of its marks · MSQ and NAT: no negative marks"))
    exam = MockExam(history, reader, console, state, clock)
    try:
        how = exam.run()
    except BaseException:   # Ctrl-C: keep the time used so far; the mock stays open for --resume
        exam.prefetcher.close()
        exam._save()
        raise
    if how == "paused":
        exam.prefetcher.close()
        history.end_session(state.session_id, "quit", clock())
        console.print(f"\nMock paused with {clock_text(state.remaining)} left · "
                      "continue with: quiz practice --resume", style="bold yellow")
        return how
    if how == "timed_out":
        console.print("\n⏱ Time is up: the paper is submitted.", style="bold red")
    questions_list = exam.questions()
    result, marked = mark_paper(state, questions_list)
    result.update(status=how, submitted_at=clock())
    earlier = [m.result for _, m in history.mocks() if m.result and m.session_id != state.session_id]
    state.result = result
    _finish(history, state, marked, how, clock())
    from quizforge.practice.mock_report import mock_report_view

    console.print(mock_report_view(result, earlier))
    return how
