"""The interview in a terminal: reads the learner's lines, turns them into the engine's
actions, and draws the engine's events with rich."""

from __future__ import annotations

from fsrs import Rating
from rich.console import Console, Group
from rich.markdown import Markdown
from rich.panel import Panel
from rich.text import Text

from quizforge.practice import interview as engine
from quizforge.practice.timefmt import clock_text
from quizforge.tui.reports import interview_summary_view
from quizforge.tui.terminal import EOF, TIMEOUT
from quizforge.tui.view import keys_line

RATINGS = {"1": Rating.Again, "again": Rating.Again, "a": Rating.Again,
           "2": Rating.Hard, "hard": Rating.Hard, "h": Rating.Hard,
           "3": Rating.Good, "good": Rating.Good, "g": Rating.Good,
           "4": Rating.Easy, "easy": Rating.Easy, "e": Rating.Easy}

ANSWER_KEYS = {"q": engine.Quit(), "h": engine.Hint(), "s": engine.Skip(), "d": engine.Drop()}


def action_for(line: str, phase: str) -> engine.Action | None:
    """The action a typed line means in this phase; None when it means nothing there.
    At the answer prompt any other line (or none) is notes, and reveals the answer."""
    key = line.lower()
    if phase == engine.ANSWERING:
        return ANSWER_KEYS.get(key) or engine.Reveal(line or None)
    if key == "q":
        return engine.Quit()
    return engine.Rate(RATINGS[key]) if key in RATINGS else None


class InterviewScreen:
    def __init__(self, reader, console: Console):
        self.reader = reader
        self.console = console
        self._status = None   # one per question, so a pipe prints it once

    def run(self, interview: engine.Interview) -> engine.InterviewSummary:
        """Drive the session to its end: the last question, `q`, end of input or Ctrl-C
        (which is recorded as a quit, then raised)."""
        try:
            self.draw(interview.start())
            while interview.state.phase != engine.OVER:
                phase = interview.state.phase
                if phase == engine.ANSWERING:
                    line = self.reader.read("your answer › ", status=self._status)
                else:
                    line = self.reader.read("rate yourself: 1 again · 2 hard · 3 good · 4 easy › ")
                if line == EOF:
                    action = engine.Quit()
                else:
                    action = action_for("" if line == TIMEOUT else line, phase)
                if action is None:
                    self.console.print("✗ type 1, 2, 3 or 4 (again, hard, good, easy)", style="yellow")
                    continue
                self.draw(interview.act(action))
        finally:
            if interview.state.phase != engine.OVER:
                interview.act(engine.Quit())
        return interview.summary

    def draw(self, events: list[engine.Event]) -> None:
        for event in events:
            if isinstance(event, engine.Asked):
                self._asked(event)
            elif isinstance(event, engine.HintGiven):
                self.console.print(Text(f"hint: {event.text}", style="yellow"))
            elif isinstance(event, engine.NoMoreHints):
                self.console.print("no more hints: press Enter to see the model answer", style="dim")
            elif isinstance(event, engine.Revealed):
                self.console.print(reveal_view(event.prompt))
            elif isinstance(event, engine.Rated):
                self.console.print(f"rated {event.rating} · {clock_text(event.seconds)}", style="dim")
            elif isinstance(event, engine.MovedOn):
                self.console.print("The interviewer moves on to another topic.", style="dim")
            elif isinstance(event, engine.Ended):
                self.console.print(interview_summary_view(event.summary))
            # Skipped: the next question says enough.

    def _asked(self, event: engine.Asked) -> None:
        title = (f"{event.number}/{event.count} · Interview · {event.chain.title} · "
                 f"{event.step} of {len(event.chain.prompts)}")
        self.console.print()
        self.console.print(Panel(Markdown(event.prompt.question), title=title, title_align="left",
                                 border_style="magenta", subtitle=f"[dim]{event.prompt.id}[/]",
                                 subtitle_align="right"))
        self.console.print(keys_line("Enter show the model answer (type notes first if you like)",
                                     "h a key point as a hint", "s skip this question",
                                     "d drop this topic's follow-ups", "q quit"))
        line = f"prompt {event.number} of {event.count}  ·  {event.chain.title}"
        self._status = lambda: line


def reveal_view(prompt) -> Group:
    parts: list = [Text("Model answer", style="bold green"), Markdown(prompt.model_answer),
                   Text("Key points", style="bold")]
    parts += [Text(f"  ☐ {point}") for point in prompt.key_points]
    if prompt.pitfalls:
        parts.append(Text("Interviewers often hear (wrong):", style="bold red"))
        parts += [Text(f"  ✗ {pitfall}", style="red") for pitfall in prompt.pitfalls]
    return Group(*parts)
