"""The GATE mock engine driven directly with actions, on an injected clock: no reader, no screen."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time

import pytest

from quizforge.bank.registry import question
from quizforge.errors import InputError
from quizforge.practice.mock import (
    Answer, Clear, Cleared, Confirm, Ended, Goto, Heartbeat, LastQuestion, Mark, MarkChanged, MockEngine, Next,
    NoSuchQuestion, Palette, PaletteShown, Pause, Prev, Saved, Shown, Submit, SubmitAsked, Unreadable,
    paused_mock)
from quizforge.practice.store import History, MockState
from clock_support import SteppedClock

START = 1_800_000_000.0


MCQ = next(question(f"dims.shapes-{s:04x}") for s in range(10))
NAT = question("dims.d_k-0001")
MSQ = question("concepts.complexity-0001")
PAPER = [MCQ.id, NAT.id, MSQ.id, "dims.d_k-0002"]


def new_state(history: History, paper=PAPER, minutes: float = 10) -> MockState:
    session = history.start_session("mock", {}, START)
    state = MockState(session, "gate", list(paper), minutes)
    history.create_mock(state)
    return state


def saved(history: History, state: MockState) -> MockState:
    return next(m for _, m in history.mocks() if m.session_id == state.session_id)


@pytest.fixture
def engine(history):
    clock = SteppedClock(START)
    eng = MockEngine(history, new_state(history), clock)
    yield eng
    eng.close()


def test_importing_the_engine_imports_no_rich_and_no_terminal_reader():
    code = ("import sys, quizforge.practice.mock; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('rich', 'prompt_toolkit') "
            "or m == 'quizforge.tui.terminal']; print(bad)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_gate_marking_through_the_engine(engine, history):
    wrong_letter = "abcd"[min(set(range(4)) - MCQ.correct)]
    all_letters = "a,b,c,d" if MSQ.correct != frozenset(range(4)) else "a"
    assert engine.start() == [Shown(0, 4, False, None)]
    engine.clock.advance(10)
    assert engine.act(Answer(wrong_letter)) == [Saved(0, wrong_letter), Shown(1, 4, False, None)]
    engine.clock.advance(20)
    assert engine.act(Answer(NAT.answer_md)) == [Saved(1, NAT.answer_md), Shown(2, 4, False, None)]
    engine.clock.advance(5)
    assert engine.act(Answer(all_letters)) == [Saved(2, all_letters), Shown(3, 4, False, None)]
    assert engine.act(Submit()) == [SubmitAsked(unanswered=1, marked=0)]
    assert engine.act(Confirm()) == [Ended("submitted", 600 - 35)]
    result, earlier = engine.finish()
    assert earlier == []
    assert result["negative"] == pytest.approx(round(MCQ.marks / 3, 2))
    assert result["score"] == pytest.approx(round(NAT.marks - MCQ.marks / 3, 2))
    assert (result["answered"], result["correct"], result["questions"]) == (3, 1, 4)
    assert [i["correct"] for i in result["items"]] == [False, True, False, None]
    assert [i["seconds"] for i in result["items"]] == [10.0, 20.0, 5.0, 0.0]
    assert result["seconds"] == 35.0 and result["status"] == "submitted"
    stored = saved(history, engine.state)
    assert stored.result == json.loads(json.dumps(result))
    assert history.session(engine.state.session_id)["status"] == "submitted"
    outcomes = [a["outcome"] for a in history.attempts()]
    assert outcomes == ["wrong", "correct", "wrong", "unanswered"]


def test_navigation_marks_clear_and_palette(engine, history):
    engine.start()
    assert engine.act(Prev()) == [Shown(3, 4, False, None)]        # before the first: the last
    assert engine.act(Next()) == [Shown(0, 4, False, None)]        # after the last: the first
    assert engine.act(Goto(9)) == [NoSuchQuestion(9, 4)]
    assert engine.act(Goto(3)) == [Shown(2, 4, False, None)]
    assert engine.act(Mark()) == [MarkChanged(2, True)]
    assert engine.act(Answer("zzz"))[0].__class__ is Unreadable   # nothing saved, still on Q3
    assert engine.state.current == 2 and 2 not in engine.state.answers
    assert engine.act(Goto(4)) == [Shown(3, 4, False, None)]
    assert engine.act(Answer("64")) == [Saved(3, "64"), LastQuestion(unanswered=3)]
    assert engine.act(Clear()) == [Cleared(3)]
    assert engine.act(Goto(3)) == [Shown(2, 4, True, None)]
    (palette,) = engine.act(Palette())
    assert isinstance(palette, PaletteShown)
    assert [c.state for c in palette.cells] == ["not answered", "not visited", "marked for review", "not answered"]
    assert [c.current for c in palette.cells] == [False, False, True, False]
    assert (palette.answered, palette.marked, palette.total) == (0, 1, 4)
    stored = saved(history, engine.state)   # every action was saved as it happened
    assert stored.marked == {2} and stored.answers == {} and stored.visited == {0, 2, 3} and stored.current == 2


def test_a_submit_confirmed_only_right_after_it_was_asked(engine):
    engine.start()
    assert engine.act(Submit()) == [SubmitAsked(4, 0)]
    engine.act(Next())                                       # anything else: the question is asked again
    assert engine.act(Confirm()) == [SubmitAsked(4, 0)]
    assert engine.act(Confirm())[0] == Ended("submitted", 600)


def test_the_clock_runs_only_while_started_and_each_question_is_charged(engine, history):
    assert engine.time_left() == 600
    engine.clock.advance(30)                 # making the first question: not charged
    engine.start()
    assert engine.time_left() == 600
    engine.clock.advance(12.5)
    assert engine.time_left() == 587.5
    engine.act(Next())
    engine.clock.advance(7.5)
    engine.act(Next())
    assert engine.state.spent == {0: 12.5, 1: 7.5} and engine.state.elapsed == 20
    assert saved(history, engine.state).elapsed == 20


def test_checkpoint_saves_the_clock_while_the_learner_waits(engine, history):
    engine.start()
    engine.clock.advance(4)
    engine.checkpoint()
    assert saved(history, engine.state).elapsed == 4
    engine.clock.advance(3)
    engine.checkpoint()
    again = saved(history, engine.state)
    assert again.elapsed == 7 and again.spent == {0: 7}
    assert engine.time_left() == 593


def test_the_heartbeat_checkpoints_without_any_action(engine, history):
    engine.start()
    engine.clock.advance(42)
    with Heartbeat(engine, every=0.02):
        deadline = time.monotonic() + 5
        while saved(history, engine.state).elapsed != 42 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert saved(history, engine.state).elapsed == 42


def test_time_up_hands_the_paper_in_and_ignores_a_late_action(engine, history):
    engine.start()
    engine.act(Answer("a"))
    assert engine.poll() == []
    engine.clock.advance(601)
    assert engine.act(Answer("64")) == [Ended("timed_out", 0.0)]   # too late: not saved
    assert engine.state.answers == {0: "a"}
    result, _ = engine.finish()
    assert result["status"] == "timed_out" and result["seconds"] == 600.0   # the time allowed, not a second more
    assert history.session(engine.state.session_id)["status"] == "timed_out"


def test_pause_then_resume_keeps_answers_marks_and_clock(history):
    clock = SteppedClock(START)
    state = new_state(history)
    first = MockEngine(history, state, clock)
    first.start()
    first.act(Goto(2))
    first.act(Answer(NAT.answer_md))
    first.act(Mark())
    clock.advance(90)
    assert first.act(Pause()) == [Ended("paused", 510)]
    first.close()
    assert history.session(state.session_id)["status"] == "quit"

    clock.advance(3600)                      # time away does not count
    resumed = paused_mock(history)
    assert history.session(state.session_id)["status"] == "open"
    assert (resumed.number, resumed.current, resumed.answers, resumed.marked) == (1, 2, {1: NAT.answer_md}, {2})
    second = MockEngine(history, resumed, clock)
    assert second.start() == [Shown(2, 4, True, None)]
    assert second.time_left() == 510
    clock.advance(10)
    assert second.time_left() == 500
    second.close()


def test_resume_by_number_and_a_bad_number_names_the_paused_mocks(history):
    clock = SteppedClock(START)
    first, second = new_state(history), new_state(history)
    for state in (first, second):
        engine = MockEngine(history, state, clock)
        engine.start()
        clock.advance(60)
        engine.act(Pause())
        engine.close()
    assert [m.number for m in history.paused_mocks()] == [1, 2]
    assert paused_mock(history, "1").session_id == first.session_id
    assert paused_mock(history, "#2").session_id == second.session_id
    assert paused_mock(history).session_id == second.session_id   # plain: the last one
    for bad in ("7", "x", 0):
        with pytest.raises(InputError) as err:
            paused_mock(history, bad)
        message = str(err.value)
        assert "\n" not in message
        assert f"there is no paused mock {bad}" in message
        assert "#1 (0 of 4 answered, 9:00 left), #2 (0 of 4 answered, 9:00 left)" in message


def test_no_paused_mock_to_resume(history):
    with pytest.raises(InputError, match="no interrupted mock to resume"):
        paused_mock(history)


def test_the_screen_header_and_toolbar_read_one_clock(history):
    """Resumed: the header's time left and the first status line agree, though the question took a while."""
    from rich.console import Console

    from quizforge.tui.mock_screen import run_mock

    clock = SteppedClock(START)
    state = new_state(history)
    state.elapsed = 295.0
    history.save_mock(state)
    history.end_session(state.session_id, "quit", START)

    class SlowScript:
        """Reads 'q'; the question is slow to make, as the first torch question is."""
        interactive = False
        statuses: list[str] = []

        def prepare(self):
            clock.advance(5)

        def read(self, prompt="", *, deadline=None, status=None):
            self.statuses.append(status())
            return "q"

    out = io.StringIO()
    reader = SlowScript()
    assert run_mock(history, reader, Console(file=out, width=100), questions=None, minutes=None, resume=True,
                    clock=clock) == "paused"
    text = out.getvalue()
    assert "Resuming mock #1: 0/4 answered, 5:05 left" in text
    assert reader.statuses[0].startswith("⏱ 5:05 left  ·  question 1 of 4")
