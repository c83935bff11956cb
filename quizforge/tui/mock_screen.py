"""The GATE mock in the terminal: reads the learner's lines, turns them into engine actions,
and draws the engine's events (question panels, the palette, the countdown) with rich.

All the rules (the clock, GATE's marking, what is saved when) live in practice/mock.py;
this module only translates between the learner's keyboard and the engine.
"""

from __future__ import annotations

import time
from typing import Callable, Sequence

from rich.console import Console
from rich.table import Table
from rich.text import Text

from quizforge.errors import InputError
from quizforge.practice.mock import (_GOTO, Answer, Clear, Cleared, Confirm, Ended, Goto, Heartbeat, LastQuestion, Mark,
                                     MarkChanged, MockEngine, Next, NoSuchQuestion, Palette, PaletteShown, Pause, Prev,
                                     Saved, Shown, Submit, SubmitAsked, Unreadable, mistyped_command, mock_summary,
                                     new_mock, paused_list, paused_mock)
from quizforge.practice.mock_sections import DEFAULT_SECTIONS, Section, numbers_text, paper_sections, section_of
from quizforge.practice.store import History, MockState
from quizforge.practice.timefmt import clock_text
from quizforge.render import question as render
from quizforge.tui.charts import plural
from quizforge.tui.matrix_entry import complete
from quizforge.tui.mock_report import mock_report_view
from quizforge.tui.terminal import EOF, TIMEOUT
from quizforge.tui.view import keys_line

PROMPT = "answer or command › "
# How each palette state is drawn: a symbol, so that it reads without colour too, and a style.
PALETTE_LOOK = {"answered": ("●", "green"), "not answered": ("○", "red"), "not visited": ("·", "dim"),
                "marked for review": ("◆", "magenta"), "answered and marked": ("◈", "magenta")}
PALETTE_LABELS = {"answered and marked": "answered and marked (evaluated)"}

_KEYS = {"": Next, "n": Next, "next": Next, "s": Next, "p": Prev, "prev": Prev, "previous": Prev,
         "m": Mark, "mark": Mark, "x": Clear, "clear": Clear,   # not "c" for clear: that is an option letter
         "l": Palette, "palette": Palette, "q": Pause, "quit": Pause, "pause": Pause}


def palette_view(palette: PaletteShown, sections: Sequence[Section] = ()) -> Table:
    """GATE's question palette, ten to a row, with its legend and counts, then a line per section."""
    table = Table.grid(padding=(0, 2))
    cells = []
    for cell in palette.cells:
        symbol, style = PALETTE_LOOK[cell.state]
        pointer = "›" if cell.current else " "
        cells.append(Text(f"{pointer}{cell.number:>2} {symbol}", style=style + (" bold" if cell.current else "")))
    for row in range(0, len(cells), 10):
        table.add_row(*cells[row:row + 10])
    legend = Text("  ".join(f"{symbol} {PALETTE_LABELS.get(state, state)}"
                            for state, (symbol, _) in PALETTE_LOOK.items()), style="dim")
    outer = Table.grid()
    outer.add_row(table)
    outer.add_row(legend)
    outer.add_row(Text(f"{palette.answered}/{palette.total} answered · {palette.marked} marked · "
                       f"{clock_text(palette.seconds_left)} left"))
    states = {cell.number - 1: cell.state for cell in palette.cells}
    for section in sections:
        looks = [states[i] for i in section.questions]
        answered = sum(s in ("answered", "answered and marked") for s in looks)
        marked = sum(s in ("marked for review", "answered and marked") for s in looks)
        outer.add_row(Text(f"{section.name} (Q {numbers_text(section.questions)}): {answered}/{len(looks)} answered"
                           f" · {marked} marked · {looks.count('not visited')} not visited", style="cyan"))
    return outer


class MockExam:
    """The terminal screen for one sitting: run() until submitted, timed out or paused."""

    def __init__(self, history: History, reader, console: Console, state: MockState,
                 clock: Callable[[], float] = time.time, header: Callable[[MockEngine], Text] | None = None):
        self.engine = MockEngine(history, state, clock)
        self.reader = reader
        self.console = console
        self.header = header
        self._status_line: Callable[[], str] = self._status
        self._asked = False   # the last line was a submit that the engine asked to confirm
        self._prefetching = False
        self._sections: list[Section] | None = None

    @property
    def sections(self) -> list[Section]:
        """The paper's sections, as the mock was set (by marks or by topic)."""
        if self._sections is None:
            self._sections = paper_sections(self.state.paper, self.state.sections)
        return self._sections

    @property
    def state(self) -> MockState:
        return self.engine.state

    @property
    def prefetcher(self):
        return self.engine.prefetcher

    def _prefetch(self) -> None:
        """The rest of the paper, made behind the first question (this pulls in torch and sympy).
        Started once the status is first drawn, i.e. with the prompt up: started earlier, the
        imports hold back the first prompt while its clock runs."""
        if not self._prefetching:
            self._prefetching = True
            self.engine.prefetch_rest()

    def _status(self) -> str:
        self._prefetch()
        s = self.state
        return (f"⏱ {clock_text(self.engine.time_left())} left  ·  question {s.current + 1} of {len(s.paper)}  ·  "
                f"answered {len(s.answers)}  ·  marked {len(s.marked)}")

    # --- drawing events -----------------------------------------------------------

    def _draw(self, events: list) -> str | None:
        """Draw the events; returns how the sitting ended, if it did."""
        for event in events:
            if isinstance(event, Shown):
                self._show(event)
            elif isinstance(event, Saved):
                self.console.print(f"saved: {event.text}", style="green")
            elif isinstance(event, Unreadable):
                self.console.print(f"✗ {event.message}", style="yellow")
            elif isinstance(event, NoSuchQuestion):
                self.console.print(f"✗ there is no question {event.number}: the paper has 1–{event.total}",
                                   style="yellow")
            elif isinstance(event, MarkChanged):
                self.console.print("marked for review" if event.marked else "unmarked", style="magenta")
            elif isinstance(event, Cleared):
                self.console.print("answer cleared", style="dim")
            elif isinstance(event, PaletteShown):
                self.console.print(palette_view(event, self.sections))
            elif isinstance(event, SubmitAsked):
                self._asked = True
                self.console.print(f"{event.unanswered} unanswered · {event.marked} marked for review · type submit "
                                   "again to hand the paper in, anything else to go on", style="yellow")
            elif isinstance(event, LastQuestion):
                self.console.print(f"that was the last question · {event.unanswered} unanswered · "
                                   "type submit to finish, or g N to go back", style="dim")
            elif isinstance(event, Ended):
                return event.how
        return None

    def _show(self, event: Shown) -> None:
        q = self.engine.question(event.index)
        self._status_line = lambda: self._status()   # a new status per question: a pipe prints it once
        title = (f"Q{event.index + 1}/{event.total}" + (" · marked for review" if event.marked else "")
                 + f" · {self.sections[section_of(self.sections, event.index)].name}")
        self.console.print()
        self.console.print(render.question_panel(q, title, titled=False))
        if event.answer is not None:
            self.console.print(Text.assemble(("your answer: ", "bold"), event.answer))

    # --- reading lines ------------------------------------------------------------

    @staticmethod
    def _is_command(key: str) -> bool:
        """A line that _action reads as a command (an empty one aside): at a matrix's row prompt too."""
        return (key in _KEYS and key != "") or key in ("submit", "h", "e") or bool(_GOTO.fullmatch(key)) \
            or mistyped_command(key) is not None

    def _action(self, line: str):
        """The action a typed line asks for, or None when the line was answered here."""
        if line == EOF:
            return Pause()
        key = line.lower()
        asked, self._asked = self._asked, False
        if key in _KEYS:
            return _KEYS[key]()
        if key == "submit":
            return Confirm() if asked else Submit()
        goto = _GOTO.fullmatch(key)
        if goto:
            return Goto(int(goto.group(1)))
        if key in ("h", "e"):
            self.console.print("no hints or solutions during a mock: they come with the report", style="dim")
            return None
        usage = mistyped_command(key)
        if usage:
            self.console.print(f"✗ {usage}", style="yellow")
            return None
        return Answer(line)

    def run(self) -> str:
        """Until submitted, timed out or paused; returns 'submitted', 'timed_out' or 'paused'."""
        engine = self.engine
        self.console.print(keys_line("n next", "p previous", "g N go to", "m mark for review", "x clear",
                                     "l palette", "submit", "q pause"))
        try:
            engine.question(self.state.current)   # made before the clock starts
            self.reader.prepare()
            events = engine.start()
            if self.header is not None:
                self.console.print(self.header(engine))   # the same clock as the toolbar's, at the same moment
            self._draw(events)
            with Heartbeat(engine):
                return self._loop()
        except BaseException:   # Ctrl-C: keep the time used so far; the mock stays open for --resume
            engine.close()
            engine.checkpoint()
            raise

    def _loop(self) -> str:
        engine = self.engine
        while True:
            how = self._draw(engine.poll())
            if how:
                return how
            line = self.reader.read(PROMPT, deadline=engine.deadline(), status=self._status_line)
            self._prefetch()   # for a reader that draws no status
            if line != TIMEOUT:
                line = complete(engine.question(self.state.current), line,
                                lambda prompt: self.reader.read(prompt, deadline=engine.deadline(),
                                                                status=self._status_line),
                                self._is_command, lambda text: self.console.print(Text(text, style="yellow")))
            if line is None or line == TIMEOUT:
                continue   # a cancelled matrix; or poll() hands the paper in (a timer a hair early reads again)
            action = self._action(line)
            if action is None:
                continue
            how = self._draw(engine.act(action))
            if how:
                return how


def _choose(history: History, reader, console: Console) -> MockState | None | bool:
    """Before a new mock while others are paused: the one to resume, True for a new one, None to stop."""
    paused = history.paused_mocks()
    if not paused:
        return True
    last = paused[-1]
    if len(paused) == 1:
        console.print(f"mock {mock_summary(last)} is paused", style="yellow")
    else:
        console.print(f"{len(paused)} mocks are paused: {paused_list(paused)}", style="yellow")
    prompt = ("r resume it · n start a new one › " if len(paused) == 1
              else f"r resume #{last.number} · r N resume #N · n start a new one › ")
    while True:
        line = reader.read(prompt)
        if line in (EOF, TIMEOUT):
            console.print("nothing started: the paused mocks stay as they were", style="dim")
            return None
        key = line.lower().split()
        if key == ["n"]:
            return True
        if key == ["r"] or (len(key) == 2 and key[0] == "r" and key[1].lstrip("#").isdigit()):
            try:
                return paused_mock(history, key[1] if len(key) == 2 else None)
            except InputError as exc:
                console.print(f"✗ {exc}", style="yellow")
                continue
        console.print("✗ type r to resume, or n to start a new mock", style="yellow")


def run_mock(history: History, reader, console: Console, *, questions: int | None, minutes: float | None,
             resume: bool | int | str | None, clock: Callable[[], float] = time.time,
             sections: str = DEFAULT_SECTIONS) -> str:
    """Sit a mock in the terminal: a new one, the last paused one (resume=True) or mock number `resume`.
    `sections` ("subject", "topic" or "marks") groups a new paper's palette; a resumed one keeps its own."""
    if resume:
        state = paused_mock(history, None if resume is True else resume)
        fresh = False
    else:
        chosen = _choose(history, reader, console)
        if chosen is None:
            return "cancelled"
        fresh = chosen is True
        state = new_mock(history, questions, minutes, clock, sections) if fresh else chosen

    def header(engine: MockEngine) -> Text:
        s = engine.state
        if not fresh:
            return Text(f"Resuming mock #{s.number}: {len(s.answers)}/{len(s.paper)} answered, "
                        f"{clock_text(engine.time_left())} left", style="bold")
        return Text.assemble((f"GATE mock #{s.number}", "bold"), f" · {plural(len(s.paper), 'question')} · "
                             f"{clock_text(s.minutes * 60)} · MCQ wrong: −⅓ of its marks · "
                             "MSQ and NAT: no negative marks")

    exam = MockExam(history, reader, console, state, clock, header=header)
    how = exam.run()
    if how == "paused":
        exam.engine.close()
        console.print(f"\nMock paused: #{state.number}, {clock_text(state.remaining)} left · "
                      f"continue with: quiz practice --resume {state.number}", style="bold yellow")
        return how
    if how == "timed_out":
        console.print("\n⏱ Time is up: the paper is submitted.", style="bold red")
    result, earlier = exam.engine.finish()

    console.print(mock_report_view(result, earlier))
    return how
