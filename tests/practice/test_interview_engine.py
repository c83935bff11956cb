"""The interview engine driven with actions directly: no reader, no console."""

from __future__ import annotations

import subprocess
import sys

import pytest
from fsrs import Rating

from practice_helpers import run_quiz
from quizforge.practice import interview_bank as ib
from quizforge.practice.interview import (ANSWERING, OVER, RATING, Asked, Drop, Ended, Hint, HintGiven, Interview,
                                          MovedOn, NoMoreHints, Quit, Rate, Rated, Reveal, Revealed, Skip, Skipped,
                                          UnknownTopic)
from quizforge.tui.interview_screen import action_for
from clock_support import SteppedClock

T0 = 1_800_000_000.0
SCALING, SOFTMAX = ib.chain("scaling"), ib.chain("softmax")   # the two chains filed under "softmax"


@pytest.fixture
def clock():
    return SteppedClock(T0)


def make(history, clock, count=10, topic="softmax") -> Interview:
    return Interview(history, count=count, topic=topic, clock=clock)


def test_start_puts_the_first_unseen_prompt(history, clock):
    interview = make(history, clock, count=3)
    assert interview.state.phase == "not started"
    assert interview.start() == [Asked(1, 3, SCALING, 1, SCALING.prompts[0])]
    state = interview.state
    assert (state.phase, state.asked, state.count, state.step, state.prompt) == (ANSWERING, 1, 3, 1,
                                                                                SCALING.prompts[0])
    (session,) = history.sessions()
    assert session["mode"] == "interview"


def test_hints_give_every_key_point_but_the_last(history, clock):
    interview = make(history, clock)
    interview.start()
    points = SCALING.prompts[0].key_points
    assert len(points) == 3
    assert interview.act(Hint()) == [HintGiven(points[0])]
    assert interview.act(Hint()) == [HintGiven(points[1])]
    assert interview.act(Hint()) == [NoMoreHints()]
    assert interview.state.hints == 2


def test_reveal_then_rating_records_the_attempt_and_asks_the_follow_up(history, clock):
    interview = make(history, clock)
    interview.start()
    interview.act(Hint())
    assert interview.act(Reveal("my notes")) == [Revealed(SCALING.prompts[0], "my notes")]
    assert interview.state.phase == RATING
    clock.now += 75
    assert interview.act(Rate(Rating.Good)) == [Rated("scaling.why", "Good", 75.0),
                                                Asked(2, 10, SCALING, 2, SCALING.prompts[1])]
    (attempt,) = history.attempts()
    assert (attempt["question_id"], attempt["outcome"], attempt["answer"], attempt["hints"], attempt["rating"],
            attempt["seconds"]) == ("scaling.why", "rated", "my notes", 1, int(Rating.Good), 75.0)
    assert set(history.cards()) == {"interview:scaling.why"}
    assert interview.summary.ratings == {"Good": 1} and interview.summary.weak == []


def test_skip_goes_on_to_the_follow_up_and_drop_to_another_chain(history, clock):
    interview = make(history, clock)
    interview.start()
    assert interview.act(Skip()) == [Skipped("scaling.why", dropped=False),
                                     Asked(2, 10, SCALING, 2, SCALING.prompts[1])]
    assert interview.act(Drop()) == [Skipped(SCALING.prompts[1].id, dropped=True), MovedOn(SCALING),
                                     Asked(3, 10, SOFTMAX, 1, SOFTMAX.prompts[0])]
    assert [(a["outcome"], a["rating"]) for a in history.attempts()] == [("skipped", None), ("skipped", None)]
    assert history.cards() == {}   # a skip moves no schedule


def test_again_ends_the_chain_and_its_follow_ups_are_not_asked(history, clock):
    interview = make(history, clock, count=5)
    interview.start()
    interview.act(Reveal())
    events = interview.act(Rate(Rating.Again))
    assert events == [Rated("scaling.why", "Again", 0.0), MovedOn(SCALING), Asked(2, 5, SOFTMAX, 1, SOFTMAX.prompts[0])]
    asked = []
    while interview.state.phase == ANSWERING:
        asked.append(interview.state.prompt.id)
        interview.act(Reveal())
        interview.act(Rate(Rating.Good))
    assert asked == [p.id for p in SOFTMAX.prompts]   # no scaling follow-up in between
    assert interview.state.phase == OVER and interview.summary.ended_by == "finished"
    assert interview.summary.weak == ["scaling.why"]


def test_the_last_prompt_of_a_chain_leads_to_the_next_chain_without_moving_on(history, clock):
    interview = make(history, clock)
    interview.start()
    events = []
    for _ in SCALING.prompts:
        interview.act(Reveal())
        events = interview.act(Rate(Rating.Easy))
    assert events == [Rated(SCALING.prompts[-1].id, "Easy", 0.0), Asked(5, 10, SOFTMAX, 1, SOFTMAX.prompts[0])]


def test_the_count_ends_the_session_with_its_summary(history, clock):
    interview = make(history, clock, count=2)
    interview.start()
    interview.act(Reveal())
    interview.act(Rate(Rating.Hard))
    interview.act(Reveal())
    clock.now += 30
    (rated, ended) = interview.act(Rate(Rating.Easy))
    assert rated == Rated(SCALING.prompts[1].id, "Easy", 30.0)
    assert isinstance(ended, Ended) and ended.summary is interview.summary
    summary = ended.summary
    assert (summary.asked, summary.seconds, summary.ended_by) == (2, 30.0, "finished")
    assert summary.ratings == {"Hard": 1, "Easy": 1} and summary.weak == ["scaling.why"]
    (session,) = history.sessions()
    assert session["status"] == "finished"
    assert interview.state.phase == OVER and interview.act(Quit()) == []


def test_quit_ends_the_session_as_quit(history, clock):
    interview = make(history, clock)
    interview.start()
    interview.act(Reveal())
    clock.now += 12
    (ended,) = interview.act(Quit())
    assert ended == Ended(interview.summary)
    assert (ended.summary.asked, ended.summary.seconds, ended.summary.ended_by) == (0, 12.0, "quit")
    assert history.sessions()[0]["status"] == "quit" and history.attempts() == []


@pytest.mark.parametrize("action, phase_actions", [
    (Rate(Rating.Good), []),             # no rating before the reveal
    (Skip(), [Reveal()]),                # nor a skip after it
    (Hint(), [Reveal()]),
])
def test_an_action_out_of_its_phase_is_refused(history, clock, action, phase_actions):
    interview = make(history, clock)
    interview.start()
    for earlier in phase_actions:
        interview.act(earlier)
    with pytest.raises(ValueError, match="not possible while the interview is"):
        interview.act(action)


def test_an_unknown_topic_names_the_topic_and_the_close_one_not_a_flag(history, clock):
    with pytest.raises(UnknownTopic) as caught:
        make(history, clock, topic="atention")
    message = str(caught.value)
    assert message.startswith("unknown interview topic 'atention' (did you mean attention?); ")
    assert "--" not in message and caught.value.param == "topic"


def test_the_cli_names_its_flag_and_suggests_the_topic_in_one_line(tmp_path):
    done = run_quiz(tmp_path, "practice", "--interview", "--topic", "atention", input="")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("error: --topic: unknown interview topic 'atention' "
                                  "(did you mean attention?); interview topics: architectures, attention, ")
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_a_chain_id_is_a_topic_too(history, clock):
    interview = make(history, clock, topic="inference")
    assert [c.id for c in interview.chains] == ["inference"]


@pytest.mark.parametrize("line, phase, expected", [
    ("", ANSWERING, Reveal(None)), ("some notes", ANSWERING, Reveal("some notes")), ("H", ANSWERING, Hint()),
    ("s", ANSWERING, Skip()), ("d", ANSWERING, Drop()), ("q", ANSWERING, Quit()),
    ("3", RATING, Rate(Rating.Good)), ("again", RATING, Rate(Rating.Again)), ("h", RATING, Rate(Rating.Hard)),
    ("q", RATING, Quit()), ("s", RATING, None), ("", RATING, None),
])
def test_the_screen_reads_keys_as_actions(line, phase, expected):
    assert action_for(line, phase) == expected


def test_the_engine_imports_no_rich_and_no_terminal_reader():
    code = ("import sys, quizforge.practice.interview; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'prompt_toolkit', 'click'}))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
    assert "quizforge.tui.terminal" not in subprocess.run(
        [sys.executable, "-c", "import sys, quizforge.practice.interview; print(list(sys.modules))"],
        capture_output=True, text=True, timeout=60).stdout
