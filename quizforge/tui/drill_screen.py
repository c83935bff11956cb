"""The drill in a terminal: reads the learner's lines, turns them into engine actions, and
draws the engine's events with rich. The rules live in drill.py; this is only the screen.

Keys at the answer prompt: h hint, s skip, e explain, q quit; anything else is an answer.
After a question: Enter (or n) next, e worked solution, q quit; anything else gets a
one-line hint and the same prompt, never the next question's answer.
"""

from __future__ import annotations

from typing import Callable

from rich.console import Console
from rich.text import Text

from quizforge.practice import drill as engine
from quizforge.practice.timefmt import clock_text
from quizforge.render import question as render
from quizforge.text.terminal import markdown_to_terminal
from quizforge.tui.charts import plural
from quizforge.tui.matrix_entry import complete
from quizforge.tui.reports import drill_summary_view, when
from quizforge.tui.terminal import EOF, TIMEOUT
from quizforge.tui.view import keys_line

ANSWER_PROMPT = "answer › "
NEXT_PROMPT = "Enter next · e worked solution · q quit › "
LABELS = {"due": "review", "remedial": "review · a mistake to fix", "new": "new", "ahead": "review (early)",
          "extra": "new · past today's limit of {limit}"}
KEYS = {"h": engine.Hint(), "s": engine.Skip(), "e": engine.Explain(), "q": engine.Quit()}


def action_for(line: str, phase: str) -> engine.Action | None:
    """The action a typed line stands for; None for an empty line at the answer prompt."""
    if line == EOF:
        return engine.Quit("eof")
    if line == TIMEOUT:   # drills have no deadline: like an empty line
        line = ""
    key = line.lower()
    if phase == "answered":
        return engine.Next() if key in ("", "n") else KEYS.get(key) or engine.Answer(line)
    if key == "":
        return None
    return KEYS.get(key) or engine.Answer(line)


def nothing_to_ask_line(event: engine.NothingToAsk, now: float) -> str:
    later = "no review is scheduled yet" if event.next_due_at is None else f"next review {when(event.next_due_at - now)}"
    more = " · more today: --new-per-day N" if event.limit_reached else ""
    return f"Nothing to ask: {event.why}{more} · {later}"


def exam_line(progress) -> str:
    """The drill header's words about the exam: days left, templates left and the pace."""
    if progress.days_left <= 0:
        return f"exam {progress.day.isoformat()} · {'today' if progress.days_left == 0 else 'passed'}"
    head = f"exam {progress.day.isoformat()} in {plural(progress.days_left, 'day')}"
    if not progress.left:
        return f"{head} · every template introduced"
    return f"{head} · {plural(progress.left, 'new template')} left · {progress.pace} a day"


class DrillScreen:
    def __init__(self, drill: engine.Drill, reader, console: Console):
        self.drill = drill
        self.reader = reader
        self.console = console
        self._status: Callable[[], str] | None = None

    def run(self, started: list | None = None) -> engine.SessionOver | engine.NothingToAsk:
        """Play the session to its end; returns its last event (the summary, or why nothing was asked).
        `started`: what drill.start() gave, where the caller started it (behind a progress spinner)."""
        try:
            last = self._draw(self.drill.start() if started is None else started)
            while self.drill.phase != "over":
                if self.drill.phase == "asking":
                    line = self.reader.read(ANSWER_PROMPT, status=self._status)
                    line = complete(self.drill.current.question, line,
                                    lambda prompt: self.reader.read(prompt, status=self._status),
                                    lambda key: key in KEYS, self._say)
                    if line is None:   # the matrix was cancelled: ask for the answer again
                        continue
                else:
                    line = self.reader.read(NEXT_PROMPT)
                action = action_for(line, self.drill.phase)
                if action is not None:
                    last = self._draw(self.drill.act(action)) or last
            return last
        finally:
            self.drill.close()   # Ctrl-C or an error: the session is ended, not left open

    def _say(self, text: str) -> None:
        self.console.print(Text(text, style="yellow"))

    def _status_line(self, number: int) -> Callable[[], str]:
        drill = self.drill

        def line() -> str:
            s = drill.summary
            return (f"question {number} of {drill.options.count}  ·  ✓ {s.correct}  ✗ {s.wrong}  ·  "
                    f"{clock_text(drill.clock() - drill.started)}")
        return line

    def _draw(self, events: list) -> engine.SessionOver | engine.NothingToAsk | None:
        last = None
        out = self.console
        for event in events:
            if isinstance(event, engine.Started):
                scope = f" · {event.topic}" if event.topic else ""
                out.print(Text.assemble(("Drill", "bold"), f"{scope} · {plural(event.count, 'question')} · "
                                        f"{plural(event.due, 'review')} due · answers are saved as you go"))
                if event.exam is not None:
                    out.print(exam_line(event.exam))
            elif isinstance(event, engine.QuestionShown):
                out.print()
                label = LABELS[event.reason].format(limit=event.limit)
                out.print(render.question_panel(event.question, f"{event.number}/{event.count} · {label}"))
                out.print(keys_line("h hint", "s skip", "e explain", "q quit"))
                self._status = self._status_line(event.number)   # one per question: a pipe prints it once
                self.reader.prepare()
                self.drill.question_ready()   # background work starts once the prompt is ready, not before
            elif isinstance(event, engine.HintShown):
                out.print(Text(f"hint {event.number}/{event.total}: ", style="bold yellow") +
                          Text(markdown_to_terminal(event.text)))
            elif isinstance(event, engine.NoMoreHints):
                out.print("no more hints: e shows the worked solution", style="dim")
            elif isinstance(event, engine.ConfirmGiveUp):
                out.print("e again to give up and see the worked solution (it counts as not known); "
                          "anything else to keep trying", style="yellow")
            elif isinstance(event, engine.Unreadable):
                out.print(f"✗ {event.message}", style="yellow")
            elif isinstance(event, engine.TryAgain):
                out.print(Text("✗ ", style="bold red") + Text(event.feedback) +
                          Text("  One more try (h hint, e explain, s skip).", style="dim"))
            elif isinstance(event, engine.Graded):
                out.print(render.verdict_view(event.verdict))
            elif isinstance(event, engine.NextExpected):
                out.print("✗ press Enter (or n) for the next question, e for the worked solution, q to quit",
                          style="yellow")
            elif isinstance(event, engine.SolutionShown):
                out.print(render.solution_view(event.question))
            elif isinstance(event, engine.Skipped):
                out.print(f"skipped · answer: {markdown_to_terminal(event.answer_md)}", style="dim")
            elif isinstance(event, engine.Rated):
                out.print(f"rated {event.rating} · {event.seconds:.0f} s", style="dim")
            elif isinstance(event, engine.NothingToAsk):
                # one line on a pipe; on a terminal wrapped at spaces, never cut mid-word by the terminal
                out.print(nothing_to_ask_line(event, self.drill.clock()), soft_wrap=not out.is_terminal)
                last = event
            elif isinstance(event, engine.SessionOver):
                out.print(drill_summary_view(event, self.drill.clock()))
                last = event
        return last
