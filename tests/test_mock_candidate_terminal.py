"""What the candidate sees of a mock in the terminal: no question titles (GATE's questions carry
none, and a title can give the answer away), GATE's subject section, and the name shown."""

from __future__ import annotations

import io
import time

from rich.console import Console

from quizforge.bank.registry import question
from quizforge.practice.mock_screen import MockExam
from quizforge.practice.store import History, MockState
from quizforge.practice.terminal import EOF

GIVEAWAY = "attention.softmax_axis_bug-0000"   # titled "Code reading: softmax over the wrong axis"
NAT = "dims.d_k-0001"


class Lines:
    """The candidate's typed lines, then end of input (which pauses the mock)."""
    interactive = False

    def __init__(self, *lines: str):
        self.lines = list(lines)

    def prepare(self):
        pass

    def read(self, prompt="", *, deadline=None, status=None):
        return self.lines.pop(0) if self.lines else EOF


def sit(tmp_path, paper, *lines: str, sections: str = "marks") -> tuple[str, MockState]:
    with History(tmp_path / "history.db") as history:
        session = history.start_session("mock", {}, time.time())
        state = MockState(session, "gate", list(paper), 10, sections=sections)
        history.create_mock(state)
        out = io.StringIO()
        exam = MockExam(history, Lines(*lines), Console(file=out, width=100, color_system=None), state)
        try:
            exam.run()
        finally:
            exam.prefetcher.close()
    return out.getvalue(), state


def test_a_mock_in_the_terminal_shows_no_question_title(tmp_path):
    title = question(GIVEAWAY).title
    text, _ = sit(tmp_path, [GIVEAWAY, NAT], "n", "p", "l")
    assert "This attention code has a bug" in text and "Q2/2" in text
    assert title not in text and "wrong axis" not in text
    assert "Q1/2 · 1-mark questions  ·  MCQ  ·  1 mark" in text
