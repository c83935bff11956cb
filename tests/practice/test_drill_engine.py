"""The drill engine driven directly with actions: no pipe, no console, no terminal reader."""

from __future__ import annotations

import csv
import io
import json
import re
import sqlite3
import subprocess
import sys
import time

import pytest
from fsrs import Rating
from rich.console import Console

from quizforge.answers import format_number
from quizforge.answers.check import check_answer
from quizforge.practice import drill as d
from quizforge.tui.charts import stats_view
from quizforge.practice.history_export import export_history
from quizforge.tui.reports import drill_summary_view, due_line
from quizforge.practice.scheduler import Planner
from quizforge.practice.stats import compute_stats
from quizforge.practice.store import SCHEMA_VERSION, Attempt, History, _SCHEMA
from clock_support import SteppedClock

NOW = time.mktime((2026, 11, 21, 12, 0, 0, 0, 0, -1))
DAY = 86400.0


def right(question) -> str:
    text = question.correct_letters if question.kind != "NAT" else format_number(question.answer, question.decimals)
    assert check_answer(question, text).correct
    return text


def wrong(question) -> str:
    text = "123456789" if question.kind == "NAT" else next(
        c for c in "abcd" if c not in question.correct_letters)
    assert not check_answer(question, text).correct
    return text


def kinds(events) -> list[str]:
    return [type(e).__name__ for e in events]


def drill(history, clock=None, **options) -> d.Drill:
    return d.Drill(history, d.DrillOptions(**options), clock or SteppedClock(NOW))


# --- the engine is a library -------------------------------------------------

def test_importing_the_engine_imports_no_rich_and_no_terminal():
    code = ("import sys, quizforge.practice.drill; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('rich', 'prompt_toolkit', 'torch', 'sympy')"
            " or m == 'quizforge.tui.terminal'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_no_templates_is_a_library_error_without_cli_flags(history):
    with pytest.raises(d.NoTemplates) as caught:
        drill(history, topic="dims", difficulty=frozenset({3}))
    assert str(caught.value) == "no templates match topic dims with difficulty 3"
    assert "--" not in str(caught.value)


# --- one question, action by action -----------------------------------------------

def test_a_wrong_nat_answer_then_a_right_one_is_rated_hard_and_both_tries_are_kept(history):
    clock = SteppedClock(NOW)
    engine = drill(history, clock, topic="dims.d_k", count=2)
    started, shown = engine.start()
    assert isinstance(started, d.Started) and (started.topic, started.count, started.due) == ("dims.d_k", 2, 0)
    assert (shown.number, shown.count, shown.reason) == (1, 2, "new") and engine.phase == "asking"
    q = shown.question
    clock.now += 5
    (again,) = engine.act(d.Answer(wrong(q)))
    assert isinstance(again, d.TryAgain) and again.feedback.startswith("Not quite") and engine.phase == "asking"
    clock.now += 7
    graded, rated = engine.act(d.Answer(right(q)))
    assert graded.correct and graded.feedback == graded.verdict.feedback
    assert (rated.rating, rated.seconds) == ("Hard", 12)
    assert engine.phase == "answered" and (engine.summary.correct, engine.summary.wrong) == (1, 0)

    (a,) = history.attempts()
    assert (a["question_id"], a["outcome"], a["answer"], a["tries"], a["rating"]) == (
        q.id, "correct", right(q), 2, int(Rating.Hard))
    (tries,) = history.tries().values()
    assert [(t["n"], t["answer"], t["answered_at"], t["correct"]) for t in tries] == [
        (1, wrong(q), NOW + 5, 0), (2, right(q), NOW + 12, 1)]


def test_explain_asks_once_and_anything_else_cancels_it(history):
    engine = drill(history, topic="dims.d_k", count=1)
    _, shown = engine.start()
    assert kinds(engine.act(d.Explain())) == ["ConfirmGiveUp"]
    assert kinds(engine.act(d.Hint())) == ["HintShown"]        # cancels the first e
    assert kinds(engine.act(d.Explain())) == ["ConfirmGiveUp"]
    events = engine.act(d.Explain())
    assert kinds(events) == ["SolutionShown", "Rated"]   # the last question waits for Next, as the others do
    (over,) = engine.act(d.Next())
    assert events[1].rating == "Again" and over.summary.ended_by == "finished"
    (a,) = history.attempts()
    assert (a["outcome"], a["hints"], a["answer"]) == ("revealed", 1, None)
    assert history.tries() == {}
    assert history.sessions()[0]["status"] == "finished"


def test_hints_run_out_and_an_unreadable_answer_leaves_the_question_open(history):
    engine = drill(history, topic="dims.d_k", count=1)
    _, shown = engine.start()
    total = len(shown.question.hints)
    hints = [engine.act(d.Hint())[0] for _ in range(total)]
    assert [(h.number, h.total) for h in hints] == [(n, total) for n in range(1, total + 1)]
    assert [h.text for h in hints] == list(shown.question.hints)
    assert kinds(engine.act(d.Hint())) == ["NoMoreHints"]
    (unreadable,) = engine.act(d.Answer("zzz"))
    assert isinstance(unreadable, d.Unreadable) and unreadable.message
    assert engine.act(d.Answer("  ")) == [] and engine.act(d.Next()) == []
    assert engine.phase == "asking" and history.attempts() == []


def test_after_a_question_a_hint_is_refused_and_next_asks_the_planned_one(history):
    engine = drill(history, topic="dims", count=3)
    _, first = engine.start()
    assert kinds(engine.act(d.Skip())) == ["Skipped"] and engine.phase == "answered"
    (again,) = engine.act(d.Explain())      # the solution of the question just skipped
    assert isinstance(again, d.SolutionShown) and again.question.id == first.question.id
    peek = Planner(history, [t.id for t in d.drill_templates("dims", None)])
    upcoming = peek.next(engine.clock(), exclude={first.question.template}, prefer_light=True).item
    assert engine.act(d.Hint()) == [d.NextExpected()]   # typed at "Enter next": not for question 2
    (shown,) = engine.act(d.Next())
    assert shown.number == 2 and shown.question.template == upcoming and engine.current.hints == 0
    assert [a["outcome"] for a in history.attempts()] == ["skipped"]


def test_quit_and_end_of_input_end_the_session(history):
    engine = drill(history, topic="dims", count=3)
    engine.start()
    (over,) = engine.act(d.Quit("eof"))
    assert isinstance(over, d.SessionOver) and over.summary.ended_by == "eof" and engine.phase == "over"
    assert engine.act(d.Answer("1")) == []
    assert history.sessions()[0]["status"] == "quit"


# --- --new-per-day 0 ---------------------------------------------------------------

def test_no_new_templates_and_nothing_due_asks_nothing_and_says_when(history):
    engine = drill(history, new_per_day=0)
    (nothing,) = engine.start()
    assert isinstance(nothing, d.NothingToAsk) and nothing.next_due_at is None
    assert nothing.why == "no reviews are due and new templates are off"
    assert engine.phase == "over" and history.sessions() == [] and history.cards() == {}

    # One card, due tomorrow: still nothing to ask, and the line says when.
    _rate(history, "dims.d_k", Rating.Good, NOW - 60)
    due_at = history.cards()["template:dims.d_k"]["due_at"]
    assert due_at > NOW
    (nothing,) = drill(history, new_per_day=0).start()
    assert isinstance(nothing, d.NothingToAsk) and nothing.next_due_at == due_at

    from quizforge.tui.drill_screen import nothing_to_ask_line

    line = nothing_to_ask_line(nothing, NOW)
    assert re.fullmatch(r"Nothing to ask: no reviews are due and new templates are off · next review in \d+ "
                        r"(min|h|days?)", line), line


def test_no_new_templates_serves_the_due_reviews_then_stops(history):
    _rate(history, "dims.d_k", Rating.Again, NOW - 2 * DAY)
    before = set(history.cards())
    engine = drill(history, new_per_day=0, count=5)
    started, shown = engine.start()
    assert started.due == 1 and (shown.question.template, shown.reason) == ("dims.d_k", "due")
    engine.act(d.Answer(right(shown.question)))
    events = engine.act(d.Next())
    assert kinds(events) == ["SessionOver"]
    over = events[0]
    assert over.summary.ended_by == "exhausted" and over.summary.asked == 1
    assert over.why == "no reviews are due and new templates are off"
    assert over.due_now == 0 and over.next_due_at > NOW
    assert set(history.cards()) == before   # no template was introduced
    assert history.sessions()[-1]["status"] == "finished"


# --- reviews first, and one count of what is due ---------------------------------

def _rate(history, template, rating, at, hit=None):
    planner = Planner(history, [template])
    sid = history.start_session("drill", {}, at)
    with history.transaction() as db:
        aid = history.record_attempt(sid, "drill", Attempt(f"{template}-0000", template, template.split(".")[0],
                                                           "NAT", "wrong", misconception=hit), at, db=db)
        planner.review(template, rating, at, aid, db, hit=hit, watched={hit} if hit else ())


def _backlog(history):
    """Three template cards due and one template whose mistake is due: four reviews."""
    for n, template in enumerate(["concepts.why_sqrt_dk", "softmax.scaling_effect", "positional.why_needed"]):
        _rate(history, template, Rating.Again, NOW - (3 - n) * DAY)
    _rate(history, "concepts.path_length", Rating.Easy, NOW - 3 * DAY, hit="made-up-mistake")


def test_every_due_review_comes_first_and_every_due_count_agrees(history):
    _backlog(history)
    stats = compute_stats(history, NOW)
    assert stats["due"]["now"] == 4

    engine = drill(history, count=6)
    started, shown = engine.start()
    assert started.due == 4
    served = [(shown.question.template, shown.reason)]
    for _ in range(5):
        engine.act(d.Skip())   # a skip leaves the schedule alone: each review stays due
        (shown,) = engine.act(d.Next())
        served.append((shown.question.template, shown.reason))
    engine.act(d.Skip())
    events = engine.act(d.Next())
    assert served[:4] == [("concepts.why_sqrt_dk", "due"), ("softmax.scaling_effect", "due"),
                          ("positional.why_needed", "due"), ("concepts.path_length", "remedial")]
    assert [reason for _, reason in served[4:]] == ["new", "new"]
    over = events[-1]
    assert isinstance(over, d.SessionOver) and over.due_now == 4

    # The session-end line, `quiz stats` (table and --json) and the header all say 4.
    assert compute_stats(history, NOW)["due"]["now"] == 4
    summary = _text(drill_summary_view(over, NOW))
    assert "4 reviews due now · progress: quiz stats" in summary and "next review" not in summary
    assert "Due now: 4 (4 templates)" in _text(stats_view(compute_stats(history, NOW)))
    assert drill(history).start()[0].due == 4


def _text(renderable) -> str:
    out = io.StringIO()
    Console(file=out, width=120, no_color=True).print(renderable)
    return out.getvalue()


def test_the_session_end_line_says_one_true_thing():
    assert due_line(4, NOW + DAY, NOW) == "4 reviews due now"
    assert due_line(1, None, NOW) == "1 review due now"
    assert due_line(0, NOW + DAY, NOW) == "next review in 1 day"
    assert due_line(0, NOW + 3 * 3600, NOW) == "next review in 3 h"
    assert due_line(0, None, NOW) is None


def test_a_drill_that_clears_its_reviews_ends_with_when_the_next_is_due(history):
    _rate(history, "dims.d_k", Rating.Again, NOW - 2 * DAY)
    engine = drill(history, topic="dims.d_k", count=1)
    _, shown = engine.start()
    engine.act(d.Answer(right(shown.question)))
    (over,) = engine.act(d.Next())
    assert over.due_now == 0 and over.next_due_at == history.cards()["template:dims.d_k"]["due_at"] > NOW
    summary = _text(drill_summary_view(over, NOW))
    assert "due now" not in summary and re.search(r"next review in \d+ (min|h|days?) · progress", summary)


# --- every try in the history and its export ------------------------------------

def test_export_has_every_try_of_a_nat_answered_wrong_then_right(history):
    clock = SteppedClock(NOW)
    engine = drill(history, clock, topic="dims.d_k", count=1)
    _, shown = engine.start()
    q = shown.question
    clock.now += 4
    engine.act(d.Answer("1"))
    clock.now += 6
    engine.act(d.Answer(right(q)))

    out = io.StringIO(newline="")
    assert export_history(history, "csv", out) == 1
    (row,) = csv.DictReader(io.StringIO(out.getvalue(), newline=""))
    assert (row["answer"], row["tries"]) == (right(q), "2")
    assert json.loads(row["answers"]) == ["1", right(q)]
    times = json.loads(row["answers_at"])
    assert [_stamp(t) for t in times] == [NOW + 4, NOW + 10]

    out = io.StringIO()
    export_history(history, "json", out)
    (attempt,) = json.loads(out.getvalue())["attempts"]
    assert [(t["n"], t["answer"], t["answered_at"], t["correct"]) for t in attempt["tries"]] == [
        (1, "1", NOW + 4, False), (2, right(q), NOW + 10, True)]


def _stamp(text: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(text).timestamp()


def test_a_schema_1_history_opens_keeps_everything_and_exports(tmp_path):
    path = tmp_path / "history.db"
    db = sqlite3.connect(path)
    # Schema 1 is today's schema without the tries table (the one thing version 2 added).
    for statement in _SCHEMA.split(";"):
        if statement.strip() and "EXISTS tries " not in statement and " ON tries(" not in statement:
            db.execute(statement)
    db.execute("INSERT INTO sessions(id, mode, started_at, status) VALUES (1, 'drill', ?, 'finished')", (NOW,))
    db.execute("INSERT INTO attempts(session_id, mode, answered_at, day, question_id, template, topic, kind, answer,"
               " outcome, tries, rating) VALUES (1, 'drill', ?, '2026-11-21', 'dims.d_k-0001', 'dims.d_k', 'dims',"
               " 'NAT', '96', 'correct', 2, 2)", (NOW,))
    db.execute("INSERT INTO cards VALUES ('template:dims.d_k', '{}', ?, ?, '2026-11-21')", (NOW + DAY, NOW))
    db.execute("PRAGMA user_version = 1")
    db.commit()
    db.close()

    with History(path) as h:
        (a,) = h.attempts()
        assert (a["answer"], a["tries"], a["outcome"]) == ("96", 2, "correct")
        assert list(h.cards()) == ["template:dims.d_k"] and h.sessions()[0]["status"] == "finished"
        out = io.StringIO()
        export_history(h, "json", out)
        (exported,) = json.loads(out.getvalue())["attempts"]
        # The first try was never saved by schema 1: the one known answer keeps its number.
        assert [(t["n"], t["answer"], t["correct"]) for t in exported["tries"]] == [(2, "96", True)]
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    assert check.execute("SELECT count(*) FROM tries").fetchone()[0] == 0
    check.close()


# --- the CLI names its flags; the library does not ---------------------------------

def test_the_cli_names_the_flags_for_library_errors(tmp_path):
    import random

    from practice_helpers import run_quiz

    done = run_quiz(tmp_path, "practice", "--topic", "dims", "--difficulty", "3", input="")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip() == "error: no templates match --topic dims --difficulty 3"

    (tmp_path / "history.db").write_bytes(random.Random(3).randbytes(4096))
    for args in (["stats"], ["practice"]):
        done = run_quiz(tmp_path, *args, input="")
        assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
        assert done.stderr.rstrip().endswith("or keep the history in another folder (--data-dir PATH)"), done.stderr


def test_new_per_day_0_on_a_fresh_history_prints_one_line(tmp_path):
    from practice_helpers import run_quiz

    done = run_quiz(tmp_path, "practice", "--new-per-day", "0", input="1\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ("Nothing to ask: no reviews are due and new templates are off · "
                                   "no review is scheduled yet")
    with History(tmp_path / "history.db") as h:
        assert h.sessions() == [] and h.attempts() == []


def test_after_a_question_only_next_explain_or_quit_act(history):
    engine = drill(history, topic="dims.d_k", count=3)
    _, shown = engine.start()
    engine.act(d.Answer(right(shown.question)))
    assert engine.phase == "answered"
    for action in (d.Answer("12345"), d.Answer("a"), d.Hint(), d.Skip()):
        assert engine.act(action) == [d.NextExpected()]
        assert engine.phase == "answered" and engine.current.number == 1
    assert kinds(engine.act(d.Explain())) == ["SolutionShown"] and engine.phase == "answered"
    (second,) = engine.act(d.Next())
    assert second.number == 2 and engine.phase == "asking" and engine.current.tries == []
    assert [a["outcome"] for a in history.attempts()] == ["correct"]


def test_a_coarse_count_uses_no_try_however_it_is_written(history):
    engine = drill(history, topic="params.projections", count=1)
    _, shown = engine.start()
    assert shown.question.kind == "NAT"
    wrong_by_half = shown.question.answer * 1.5
    for coarse in (f"{wrong_by_half:.2e}", f"{wrong_by_half / 1e6:.2f}M"):   # 3 figures, for an exact count
        (refused,) = engine.act(d.Answer(coarse))
        assert isinstance(refused, d.Unreadable) and "significant figures" in refused.message, coarse
        assert engine.current.tries == [] and engine.phase == "asking"
