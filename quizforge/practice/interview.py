"""Interview mode: conceptual questions asked in follow-up chains, self-rated, scheduled by FSRS.

The interviewer starts a line of questioning where the schedule says (a due prompt, or
the first unseen one) and digs deeper through the chain's follow-ups. A prompt rated
Again ends the chain, as an interviewer moves on when a candidate is stuck.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

from fsrs import Rating
from rich.console import Console, Group
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from quizforge.errors import InputError
from quizforge.practice import interview_bank as bank
from quizforge.practice.scheduler import RATING_NAMES, Planner, interview_key
from quizforge.practice.store import Attempt, History
from quizforge.practice.terminal import EOF, TIMEOUT
from quizforge.practice.view import clock_text, keys_line

RATINGS = {"1": Rating.Again, "again": Rating.Again, "a": Rating.Again,
           "2": Rating.Hard, "hard": Rating.Hard, "h": Rating.Hard,
           "3": Rating.Good, "good": Rating.Good, "g": Rating.Good,
           "4": Rating.Easy, "easy": Rating.Easy, "e": Rating.Easy}


@dataclass
class InterviewSummary:
    session_id: int = 0
    asked: int = 0
    seconds: float = 0.0
    ratings: dict[str, int] = field(default_factory=dict)
    weak: list[str] = field(default_factory=list)
    ended_by: str = "finished"


class _Stop(Exception):
    pass


# What _ask returns for "s" (skip this question, keep the chain) and "d" (drop the chain).
SKIPPED, DROPPED = object(), object()


def interview_chains(topic: str | None) -> list[bank.Chain]:
    if not topic:
        return list(bank.CHAINS)
    chosen = [c for c in bank.CHAINS if topic in (c.topic, c.id)]
    if not chosen:
        names = sorted({c.topic for c in bank.CHAINS} | {c.id for c in bank.CHAINS})
        raise InputError(f"no interview questions for --topic {topic!r}; choose from {', '.join(names)}")
    return chosen


class Interview:
    def __init__(self, history: History, reader, console: Console, *, count: int = 10, topic: str | None = None,
                 clock: Callable[[], float] = time.time, new_per_day: int = 10):
        self.history = history
        self.reader = reader
        self.console = console
        self.count = count
        self.clock = clock
        self.chains = interview_chains(topic)
        self.chain_of = {p.id: c for c in self.chains for p in c.prompts}
        self.planner = Planner(history, [p.id for c in self.chains for p in c.prompts], key=interview_key,
                               new_per_day=new_per_day)
        self.summary = InterviewSummary()
        self.topic = topic

    def run(self) -> InterviewSummary:
        started = self.clock()
        self.summary.session_id = self.history.start_session("interview", {"topic": self.topic, "count": self.count},
                                                             started)
        asked: set[str] = set()
        try:
            while self.summary.asked < self.count:
                pick = self.planner.next(self.clock(), exclude=asked)
                if pick is None:
                    break
                chain = self.chain_of[pick.item]
                start = [p.id for p in chain.prompts].index(pick.item)
                for step, item in enumerate(chain.prompts[start:], start + 1):
                    if self.summary.asked >= self.count:
                        break
                    asked.add(item.id)
                    rating = self._ask(chain, step, item)
                    if rating is SKIPPED:
                        continue   # this question only: the follow-up comes next
                    if rating is DROPPED or rating == Rating.Again:
                        if step < len(chain.prompts):
                            self.console.print("The interviewer moves on to another topic.", style="dim")
                        asked.update(p.id for p in chain.prompts)   # not this chain again today
                        break
        except _Stop:
            self.summary.ended_by = "quit"
        finally:
            self.summary.seconds = self.clock() - started
            self.history.end_session(self.summary.session_id,
                                     "finished" if self.summary.ended_by == "finished" else "quit", self.clock())
        return self.summary

    def _read(self, prompt: str, status=None) -> str:
        line = self.reader.read(prompt, status=status)
        if line == EOF:
            raise _Stop
        return "" if line == TIMEOUT else line

    def _ask(self, chain: bank.Chain, step: int, item: bank.Prompt) -> Rating | object:
        n = self.summary.asked + 1
        title = f"{n}/{self.count} · Interview · {chain.title} · {step} of {len(chain.prompts)}"
        self.console.print()
        self.console.print(Panel(Markdown(item.question), title=title, title_align="left", border_style="magenta",
                                 subtitle=f"[dim]{item.id}[/]", subtitle_align="right"))
        self.console.print(keys_line("Enter show the model answer (type notes first if you like)",
                                     "h a key point as a hint", "s skip this question",
                                     "d drop this topic's follow-ups", "q quit"))
        status = lambda: f"prompt {n} of {self.count}  ·  {chain.title}"  # noqa: E731
        shown = self.clock()
        hints = 0
        while True:
            line = self._read("your answer › ", status)
            key = line.lower()
            if key == "q":
                raise _Stop
            if key == "h":
                if hints < len(item.key_points) - 1:   # the last point stays for the reveal
                    hints += 1
                    self.console.print(Text(f"hint: {item.key_points[hints - 1]}", style="yellow"))
                else:
                    self.console.print("no more hints: press Enter to see the model answer", style="dim")
                continue
            if key in ("s", "d"):
                self._record(item, chain, "skipped", None, None, hints, shown)
                return SKIPPED if key == "s" else DROPPED
            notes = line or None
            break
        self.console.print(self._reveal(item))
        while True:
            choice = self._read("rate yourself: 1 again · 2 hard · 3 good · 4 easy › ").lower()
            if choice == "q":
                raise _Stop
            if choice in RATINGS:
                rating = RATINGS[choice]
                break
            self.console.print("✗ type 1, 2, 3 or 4 (again, hard, good, easy)", style="yellow")
        self._record(item, chain, "rated", notes, rating, hints, shown)
        return rating

    @staticmethod
    def _reveal(item: bank.Prompt) -> Group:
        parts: list = [Text("Model answer", style="bold green"), Markdown(item.model_answer),
                       Text("Key points", style="bold")]
        parts += [Text(f"  ☐ {point}") for point in item.key_points]
        if item.pitfalls:
            parts.append(Text("Interviewers often hear (wrong):", style="bold red"))
            parts += [Text(f"  ✗ {pitfall}", style="red") for pitfall in item.pitfalls]
        return Group(*parts)

    def _record(self, item, chain, outcome, notes, rating, hints, shown) -> None:
        now = self.clock()
        attempt = Attempt(question_id=item.id, template=f"interview.{item.id}", topic=chain.topic, kind="interview",
                          outcome=outcome, answer=notes, hints=hints, tries=1 if rating else 0,
                          seconds=round(now - shown, 2), rating=int(rating) if rating else None)
        with self.history.transaction() as db:
            attempt_id = self.history.record_attempt(self.summary.session_id, "interview", attempt, now, db=db)
            if rating is not None:
                self.planner.review(item.id, rating, now, attempt_id, db)
        self.summary.asked += 1
        if rating is not None:
            name = RATING_NAMES[rating]
            self.summary.ratings[name] = self.summary.ratings.get(name, 0) + 1
            if rating in (Rating.Again, Rating.Hard):
                self.summary.weak.append(item.id)
            self.console.print(f"rated {name} · {clock_text(now - shown)}", style="dim")
