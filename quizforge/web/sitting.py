"""GATE's exam-screen buttons as MockEngine actions, and the page's view of the sitting.

The engine knows answers, marks and moves; this module gives them GATE's button semantics:
- Save & Next: the response on screen is saved (none on screen clears a saved one), a review
  mark is taken off, and the next question in section order opens (after a section's last
  question, the next section's first);
- Mark for Review & Next: the same, but the question is left marked for review (an answer
  marked for review is evaluated);
- Clear Response: the saved answer goes; the question stays on screen;
- a palette or section-tab jump does not save the response on screen.
A matrix answer comes from the page as its grid of cells and is saved as the text the grader
reads ('a b; c d'); the view gives the saved text back as cells.
Every view the page gets is built here, and none holds a key, a reason or a solution.
"""

from __future__ import annotations

import re
import threading

from quizforge.errors import InputError
from quizforge.practice.mock import (
    PALETTE_STATES, Answer, Clear, Confirm, Ended, Goto, Mark, MockEngine, Submit, SubmitAsked, Unreadable,
    palette_state)
from quizforge.practice.mock_sections import paper_sections, section_of
from quizforge.web.question_html import answer_cells, answer_table, keypad_entry, matrix_entry_shape, question_view

DEFAULT_CANDIDATE = "Candidate"
MAX_NAME_CHARS = 40
MAX_ANSWER_CHARS = 200
MAX_CELL_CHARS = 20          # the keypad's limit on one entry
_SEPARATOR = re.compile(r"[\s,;\[\]]")   # inside one cell these would change the matrix's shape


def candidate_name(text: str | None) -> str:
    """The name on the candidate panel: as given (--name or QUIZFORGE_NAME), else "Candidate";
    never the account's user name, which on a shared or root shell says nothing about the
    candidate. InputError, in one line, for a name that could not be shown as typed."""
    if text is None:
        return DEFAULT_CANDIDATE
    name = " ".join(text.split())
    if not name:
        raise InputError("--name: give the candidate's name (or leave the option out for \"Candidate\")")
    if len(name) > MAX_NAME_CHARS:
        raise InputError(f"--name: at most {MAX_NAME_CHARS} characters (this one has {len(name)})")
    if not name.isprintable():
        raise InputError("--name: letters, digits, spaces and punctuation only (it has a control character)")
    return name


class BadRequest(ValueError):
    """A request the page would never send: named in one line, nothing changes."""


class UnfilledMatrix(ValueError):
    """A grid of cells that cannot be saved as it stands (an empty or mistyped cell): the
    candidate is told which, and the cells stay on screen to be corrected."""


def matrix_answer_text(cells, rows: int, cols: int) -> str | None:
    """The page's grid of cells as the text the grader reads ('1 0; 1 1'); None when every
    cell is empty (nothing on screen). BadRequest for a grid the page would never send,
    UnfilledMatrix for one the candidate left incomplete."""
    if (not isinstance(cells, list) or len(cells) != rows
            or any(not isinstance(row, list) or len(row) != cols for row in cells)):
        raise BadRequest(f"answer: expected {rows} rows of {cols} cells")
    if any(not isinstance(cell, str) or len(cell) > MAX_CELL_CHARS for row in cells for cell in row):
        raise BadRequest(f"answer: each cell is text of at most {MAX_CELL_CHARS} characters")
    entries = [[keypad_entry(cell) for cell in row] for row in cells]
    if not any(e for row in entries for e in row):
        return None
    for r, row in enumerate(entries, 1):
        for c, entry in enumerate(row, 1):
            if not entry:
                raise UnfilledMatrix(f"the entry in row {r}, column {c} is empty: fill every cell "
                                     "(or Clear Response)")
            if _SEPARATOR.search(entry):   # the grader judges the rest, as for a typed matrix
                raise UnfilledMatrix(f"the entry in row {r}, column {c} is not a number: {entry}")
    return "; ".join(" ".join(row) for row in entries)


class WebSitting:
    """One browser sitting of a mock: before the start (instructions), running, then ended."""

    def __init__(self, engine: MockEngine, *, name: str = DEFAULT_CANDIDATE, resumed: bool = False):
        self.engine = engine
        self.name = name
        self.resumed = resumed
        self.sections = paper_sections(engine.state.paper, engine.state.sections)
        self.order = [i for section in self.sections for i in section.questions]
        self.started = False
        self.result: dict | None = None
        self.earlier: list[dict] = []
        self._finish_lock = threading.Lock()    # guards _finishing
        self._marking = threading.Lock()        # one marking at a time
        self._finishing = False      # a thread is making the rest of the paper and marking it
        self.prepared = 0            # questions made so far for the marking (the page shows it)
        self.report_served = False   # the report page has gone out (the launcher stops after it)
        self._prefetching = False

    @property
    def state(self):
        return self.engine.state

    @property
    def ended(self) -> str | None:
        return self.engine.ended

    @property
    def status(self) -> str:
        """'instructions', 'running', then 'submitted' or 'timed_out' (or 'paused')."""
        return self.ended or ("running" if self.started else "instructions")

    # --- the clock and the end --------------------------------------------------------

    def begin(self) -> dict:
        """'I am ready to begin': the clock starts with the first question on screen."""
        with self.engine.lock:
            if not self.started:
                self.engine.question(self.state.current)   # made before the clock starts
                self.engine.start()
                self.started = True
        return self.view()

    def expire_if_due(self, wait: bool = True) -> bool:
        """Hand the paper in once the server's clock reaches zero; True when the sitting is over.
        The paper is then marked: here (`wait`), or on a thread of its own while the page shows
        how far the marking has got."""
        if self.started and not self.ended:
            self.engine.poll()   # ends the sitting once time is up
        if self.ended in ("submitted", "timed_out") and self.result is None:
            if wait:
                self.finish()
            else:
                self._finish_behind()
        return self.ended is not None

    def _finish_behind(self) -> None:
        with self._finish_lock:
            if self._finishing or self.result is not None:
                return
            self._finishing = True
        threading.Thread(target=self._finish_quietly, name="quizforge-mark-paper", daemon=True).start()

    def _finish_quietly(self) -> None:
        try:
            self.finish()
        except Exception:   # a failed write: the report page, which waits for finish(), says what it was
            pass

    def finish(self) -> dict:
        """Make the questions not yet made, then mark the paper once and record it (the engine
        writes the history). Outside the engine's lock, so that the page's clock polls are
        answered (with the progress) while a torch-heavy question is made."""
        with self._finish_lock:
            self._finishing = True
        try:
            with self._marking:
                if self.result is None:
                    for i in range(len(self.state.paper)):
                        self.engine.question(i)
                        self.prepared = i + 1
                    self.result, self.earlier = self.engine.finish()
                return self.result
        finally:
            with self._finish_lock:
                self._finishing = False

    @property
    def report_ready(self) -> bool:
        return self.result is not None

    def marking(self) -> dict:
        """How far the marking of a handed-in paper has got: questions made of all."""
        return {"ready": self.prepared, "total": len(self.state.paper)}

    def _prefetch(self) -> None:
        """The rest of the paper, made after the first question has gone out (torch loads then)."""
        if not self._prefetching:
            self._prefetching = True
            self.engine.prefetch_rest()

    # --- the buttons ------------------------------------------------------------------

    def _running(self) -> None:
        if not self.started:
            raise BadRequest("the exam has not begun: tick the declaration and press I am ready to begin")

    def _checked_answer(self, answer) -> str | None:
        if answer is None:
            return None
        shape = matrix_entry_shape(self.engine.question(self.state.current))
        if shape is not None and isinstance(answer, list):
            return matrix_answer_text(answer, shape["rows"], shape["cols"])
        if not isinstance(answer, str):
            raise BadRequest("answer: expected text or null")
        if len(answer) > MAX_ANSWER_CHARS:
            raise BadRequest(f"answer: at most {MAX_ANSWER_CHARS} characters")
        return answer.strip() or None

    def _act(self, action) -> list:
        events = self.engine.act(action)
        if any(isinstance(e, Ended) for e in events):
            self.expire_if_due(wait=False)   # marked behind; the page shows its progress
        return events

    def _respond(self, answer: str | None) -> str | None:
        """Save what is on screen (nothing there clears a saved answer); the error if unreadable."""
        i = self.state.current
        if answer is None:
            if i in self.state.answers:
                self._act(Clear())
            return None
        if self.state.answers.get(i) == answer:
            return None
        for event in self._act(Answer(answer, advance=False)):
            if isinstance(event, Unreadable):
                return event.message
        return None

    def _next_in_order(self) -> int:
        at = self.order.index(self.state.current)
        return self.order[(at + 1) % len(self.order)]

    def _save_and_move(self, answer, marked: bool) -> dict:
        self._running()
        with self.engine.lock:
            try:
                answer = self._checked_answer(answer)
            except UnfilledMatrix as exc:
                return self.view(error=str(exc))
            if self.expire_if_due(wait=False):
                return self.view()
            error = self._respond(answer)
            if error:
                return self.view(error=error)
            if (self.state.current in self.state.marked) != marked and not self.ended:
                self._act(Mark())
            if not self.ended:
                self._act(Goto(self._next_in_order() + 1))
            return self.view()

    def save_and_next(self, answer) -> dict:
        return self._save_and_move(answer, marked=False)

    def mark_and_next(self, answer) -> dict:
        return self._save_and_move(answer, marked=True)

    def clear(self) -> dict:
        self._running()
        with self.engine.lock:
            if not self.expire_if_due(wait=False):
                self._act(Clear())
            return self.view()

    def goto(self, number) -> dict:
        """A palette or section-tab jump: the response on screen is not saved."""
        self._running()
        if isinstance(number, bool) or not isinstance(number, int) or not 1 <= number <= len(self.state.paper):
            raise BadRequest(f"number: a question from 1 to {len(self.state.paper)}")
        with self.engine.lock:
            if not self.expire_if_due(wait=False):
                self._act(Goto(number))
            return self.view()

    def submit(self) -> dict:
        """Hand the paper in (the page has shown the summary and asked for confirmation), and mark
        it. The page polls the clock meanwhile, which answers with the marking's progress."""
        self._running()
        with self.engine.lock:
            if not self.expire_if_due(wait=False):
                events = self.engine.act(Submit())
                if any(isinstance(e, SubmitAsked) for e in events):
                    self.engine.act(Confirm())
        self.expire_if_due()
        return self.view()

    # --- what the page sees -----------------------------------------------------------

    def counts(self, indices) -> dict[str, int]:
        counts = dict.fromkeys(PALETTE_STATES, 0)
        for i in indices:
            counts[palette_state(self.state, i)] += 1
        return counts

    def summary(self) -> list[dict]:
        """The table before submission: per section, how many are in each of the palette's five
        states. The states do not overlap, so a row adds up to the section's questions and each
        cell equals the palette's count (an answer marked for review counts once, as such)."""
        return [{"section": section.name, "questions": len(section.questions), **self.counts(section.questions)}
                for section in self.sections]

    def view(self, error: str | None = None) -> dict:
        """The page's whole state: the question on screen, the palette, the clock; no key."""
        with self.engine.lock:
            s = self.state
            status = self.status
            out: dict = {"status": status, "seconds_left": round(self.engine.time_left(), 1),
                         "total": len(s.paper), "number": s.number}
            if error:
                out["error"] = error
            if status in ("submitted", "timed_out"):
                out["report_ready"] = self.report_ready
                out["marking"] = self.marking()
            if status != "running":
                return out
            i = s.current
            out["current"] = i + 1
            out["section"] = section_of(self.sections, i)
            out["question"] = question_view(self.engine.question(i))
            out["answer"] = s.answers.get(i)
            shape = out["question"]["matrix"]
            if shape is not None:   # the saved matrix, back into its cells
                out["answer_cells"] = answer_cells(out["answer"], shape["rows"], shape["cols"])
            out["marked"] = i in s.marked
            out["palette"] = [{"number": n + 1, "state": palette_state(s, n)} for n in range(len(s.paper))]
            out["sections"] = [{"name": sec.name, "questions": [n + 1 for n in sec.questions],
                                "counts": self.counts(sec.questions)} for sec in self.sections]
            out["counts"] = self.counts(range(len(s.paper)))
        self._prefetch()
        return out

    def paper(self) -> list[dict]:
        """Every question in one scrolling view ("Question Paper"), without keys."""
        self._running()
        out = []
        for sec in self.sections:
            for i in sec.questions:
                view = question_view(self.engine.question(i))
                shape = view["matrix"]
                cells = shape and answer_cells(self.state.answers.get(i), shape["rows"], shape["cols"])
                # A matrix answer as a table (empty cells while unanswered): the grid the candidate fills.
                view["answer_table"] = (answer_table(cells or [[""] * shape["cols"]] * shape["rows"])
                                        if shape else None)
                out.append({"number": i + 1, "section": sec.name, **view})
        return out
