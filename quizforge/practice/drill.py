"""Drill: spaced-repetition practice over the bank, one question at a time.

Keys at the answer prompt: h hint (concept, then formula, then numbers), s skip,
e explain (asks once more, then shows the worked solution: the question counts as not known), q quit.
A wrong NAT answer gets one more try; the key is shown after the last one.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from rich.console import Console
from rich.text import Text

from quizforge.answers import AnswerError
from quizforge.practice.prefetch import Prefetcher
from quizforge.practice.scheduler import RATING_NAMES, Planner, rating_for
from quizforge.practice.store import Attempt, History
from quizforge.practice.terminal import EOF, TIMEOUT
from quizforge.practice.view import clock_text, keys_line

MAX_TRIES = 2   # NAT only: choice questions reveal the key with the first verdict


@dataclass
class DrillOptions:
    topic: str | None = None
    difficulty: frozenset[int] | None = None
    count: int = 10
    new_per_day: int = 10


@dataclass
class DrillSummary:
    session_id: int
    asked: int = 0
    correct: int = 0
    wrong: int = 0
    skipped: int = 0
    ended_by: str = "finished"     # finished | quit | eof
    ratings: dict[str, int] = field(default_factory=dict)


class _Quit(Exception):
    def __init__(self, how: str):
        self.how = how


def drill_templates(topic: str | None, difficulty: frozenset[int] | None):
    from quizforge.bank.registry import templates_for
    from quizforge.errors import InputError

    chosen = [t for t in templates_for(topic) if difficulty is None or t.difficulty in difficulty]
    if not chosen:
        raise InputError(f"no templates match --topic {topic or 'any'} with --difficulty "
                         f"{','.join(map(str, sorted(difficulty or ())))}")
    # Teaching order: easier first, then the bank's topic order.
    return sorted(chosen, key=lambda t: t.difficulty)


class Drill:
    def __init__(self, history: History, reader, console: Console, options: DrillOptions,
                 clock: Callable[[], float] = time.time):
        self.history = history
        self.reader = reader
        self.console = console
        self.options = options
        self.clock = clock
        templates = drill_templates(options.topic, options.difficulty)
        self.planner = Planner(history, [t.id for t in templates], new_per_day=options.new_per_day,
                               light=[t.id for t in templates if t.light])
        self.heavy = [t.id for t in templates if not t.light]
        self.prefetcher = Prefetcher()
        self.started = clock()
        self.summary = DrillSummary(0)
        self._carry: str | None = None   # a line typed at "Enter for next" that answers the next question
        self._upcoming = None             # the pick being generated in the background

    # --- the loop -----------------------------------------------------------

    def run(self) -> DrillSummary:
        settings = {"topic": self.options.topic, "count": self.options.count,
                    "difficulty": sorted(self.options.difficulty or [])}
        self.summary.session_id = self.history.start_session("drill", settings, self.clock())
        asked: set[str] = set()
        due = self.planner.due_count(self.clock())
        scope = f" · {self.options.topic}" if self.options.topic else ""
        self.console.print(Text.assemble(("Drill", "bold"), f"{scope} · {self.options.count} questions · "
                                         f"{due} review{'s' if due != 1 else ''} due · answers are saved as you go"))
        try:
            for n in range(1, self.options.count + 1):
                pick = self.planner.next(self.clock(), exclude=asked, prefer_light=not self.prefetcher.warm,
                                         position=n - 1)
                if pick is None:
                    break
                upcoming = self._upcoming
                if upcoming is not None and upcoming.item == pick.item:
                    pick = upcoming   # the question generated in the background
                asked.add(pick.item)
                question = self.prefetcher.get(f"{pick.item}-{pick.seed:04x}")
                self._ask(question, n, pick.reason, then=lambda: self._prepare_next(asked))
                if n < self.options.count:
                    self._after_answer(question)
        except _Quit as stop:
            self.summary.ended_by = stop.how
        except KeyboardInterrupt:
            self.summary.ended_by = "interrupted"
            raise
        finally:
            self.prefetcher.close()
            status = "finished" if self.summary.ended_by == "finished" else "quit"
            self.history.end_session(self.summary.session_id, status, self.clock())
        return self.summary

    def _prepare_next(self, asked: set[str]) -> None:
        """Generate the likely next question while this one is read, and warm torch/sympy."""
        upcoming = self._upcoming = self.planner.next(self.clock(), exclude=asked, position=len(asked))
        if upcoming is not None:
            self.prefetcher.prefetch(f"{upcoming.item}-{upcoming.seed:04x}")
        self.prefetcher.warm_up(self.heavy)

    def _status(self, n: int) -> Callable[[], str]:
        def line() -> str:
            s = self.summary
            return (f"question {n} of {self.options.count}  ·  ✓ {s.correct}  ✗ {s.wrong}  ·  "
                    f"{clock_text(self.clock() - self.started)}")
        return line

    def _read(self, prompt: str, status=None) -> str:
        if self._carry is not None:
            line, self._carry = self._carry, None
            return line
        line = self.reader.read(prompt, status=status)
        if line == EOF:
            raise _Quit("eof")
        if line == TIMEOUT:   # drills have no deadline; treat like an empty line
            return ""
        return line

    def _ask(self, question, n: int, reason: str, then: Callable[[], None] = lambda: None) -> None:
        from quizforge import render_question as render
        from quizforge.bank.grading import grade
        from quizforge.bank.mathtext import markdown_to_terminal

        label = {"due": "review", "remedial": "review · a mistake to fix", "new": "new",
                 "ahead": "review (early)"}[reason]
        self.console.print()
        self.console.print(render.question_panel(question, f"{n}/{self.options.count} · {label}"))
        self.console.print(keys_line("h hint", "s skip", "e explain", "q quit"))
        self.reader.prepare()
        then()   # background work starts once the question and its prompt are ready, not before
        shown = self.clock()
        hints = tries = 0
        hit = None
        giving_up = False  # "e" pressed once: the next "e" reveals the solution
        status = self._status(n)
        while True:
            line = self._read("answer › ", status)
            key = line.lower()
            if key != "e":
                giving_up = False
            if key == "q":
                raise _Quit("quit")
            if key == "":
                continue
            if key == "h":
                if hints < len(question.hints):
                    hints += 1
                    self.console.print(Text(f"hint {hints}/{len(question.hints)}: ", style="bold yellow") +
                                       Text(markdown_to_terminal(question.hints[hints - 1])))
                else:
                    self.console.print("no more hints: e shows the worked solution", style="dim")
                continue
            if key == "s":
                self._record(question, "skipped", None, hints, tries, shown, None, None)
                self.summary.skipped += 1
                self.console.print(f"skipped · answer: {markdown_to_terminal(question.answer_md)}",
                                   style="dim")
                return
            if key == "e":
                if not giving_up:
                    # Seeing the solution before answering counts as not known: ask once, not silently.
                    giving_up = True
                    self.console.print("e again to give up and see the worked solution (it counts as not "
                                       "known); anything else to keep trying", style="yellow")
                    continue
                self.console.print(render.solution_view(question))
                self._record(question, "revealed", None, hints, tries, shown, None, hit)
                self.summary.wrong += 1
                return
            try:
                verdict = grade(question, line)
            except AnswerError as exc:
                self.console.print(f"✗ {exc}", style="yellow")
                continue
            tries += 1
            if verdict.misconception is not None and hit is None:
                hit = verdict.misconception
            if not verdict.correct and question.kind == "NAT" and tries < MAX_TRIES:
                reason_text = f"Not quite: {verdict.misconception.feedback}." if verdict.misconception else "Not quite."
                self.console.print(Text("✗ ", style="bold red") + Text(reason_text) +
                                   Text("  One more try (h hint, e explain, s skip).", style="dim"))
                continue
            self.console.print(render.verdict_view(verdict))
            outcome = "correct" if verdict.correct else "wrong"
            if verdict.correct:
                self.summary.correct += 1
            else:
                self.summary.wrong += 1
            self._record(question, outcome, line, hints, tries, shown, verdict, hit)
            return

    def _record(self, question, outcome, answer, hints, tries, shown, verdict, hit) -> None:
        """One transaction: the attempt, its card and the misconception cards it touches."""
        now = self.clock()
        seconds = now - shown
        correct = outcome == "correct"
        rating = None
        if outcome != "skipped":
            rating = rating_for(correct, tries=tries, hints=hints, seconds=seconds, marks=question.marks)
            name = RATING_NAMES[rating]
            self.summary.ratings[name] = self.summary.ratings.get(name, 0) + 1
        attempt = Attempt(
            question_id=question.id, template=question.template, topic=question.topic, kind=question.kind,
            outcome=outcome, marks=question.marks, difficulty=question.difficulty, answer=answer,
            score=verdict.marks if verdict is not None else 0.0,
            misconception=hit.tag if hit else None, misconception_label=hit.label if hit else None,
            hints=hints, tries=tries, seconds=round(seconds, 2), rating=int(rating) if rating else None)
        watched = {m.tag for m in question.misconceptions}
        watched |= {o.misconception.tag for o in question.options if o.misconception is not None}
        with self.history.transaction() as db:
            attempt_id = self.history.record_attempt(self.summary.session_id, "drill", attempt, now, db=db)
            if rating is not None:
                self.planner.review(question.template, rating, now, attempt_id, db,
                                    hit=hit.tag if hit else None, watched=watched)
        self.summary.asked += 1
        if rating is not None:
            self.console.print(f"rated {RATING_NAMES[rating]} · {seconds:.0f} s", style="dim")

    def _after_answer(self, question) -> None:
        from quizforge import render_question as render

        while True:
            line = self.reader.read("Enter next · e worked solution · q quit › ")
            if line == EOF:
                raise _Quit("eof")
            key = line.lower() if line != TIMEOUT else ""
            if key == "":
                return
            if key == "q":
                raise _Quit("quit")
            if key == "e":
                self.console.print(render.solution_view(question))
                continue
            self._carry = line   # an answer typed straight away: it is for the next question
            return
