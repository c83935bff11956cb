"""The practice library called directly: FSRS mapping, the planner's order, the store, mock papers."""

from __future__ import annotations

import json
import random
import sqlite3
import time

import pytest
from fsrs import Rating

from quizforge.bank.registry import all_templates, question
from quizforge.practice.mock import compose_paper, default_minutes, mark_paper
from quizforge.practice.scheduler import Planner, misconception_key, rating_for, template_key
from quizforge.practice.store import SCHEMA_VERSION, Attempt, History, HistoryError, MockState

NOW = time.mktime((2026, 11, 21, 12, 0, 0, 0, 0, -1))
DAY = 86400.0


# --- grading result → FSRS rating --------------------------------------------

@pytest.mark.parametrize("correct, tries, hints, seconds, marks, expected", [
    (False, 1, 0, 5, 1, Rating.Again),
    (False, 2, 3, 500, 2, Rating.Again),
    (True, 1, 1, 5, 1, Rating.Hard),       # a hint was needed
    (True, 2, 0, 5, 1, Rating.Hard),       # right on the second try
    (True, 1, 0, 100, 1, Rating.Good),     # right, but slow for one mark
    (True, 1, 0, 30, 1, Rating.Easy),      # right, first time, fast
    (True, 1, 0, 70, 2, Rating.Easy),      # two marks allow twice the time
    (True, 1, 0, 90, 2, Rating.Good),
])
def test_rating_for_maps_outcomes_as_the_issue_says(correct, tries, hints, seconds, marks, expected):
    assert rating_for(correct, tries=tries, hints=hints, seconds=seconds, marks=marks) == expected


# --- the planner -------------------------------------------------------------

def _review(history, planner, item, rating, at, hit=None, watched=()):
    sid = history.start_session("drill", {}, at)
    with history.transaction() as db:
        aid = history.record_attempt(sid, "drill", Attempt(f"{item}-0000", item, "dims", "NAT", "wrong",
                                                           misconception=hit), at, db=db)
        planner.review(item, rating, at, aid, db, hit=hit, watched=watched)


def test_new_items_come_in_teaching_order_under_the_daily_limit(history):
    planner = Planner(history, ["a.one", "a.two", "a.three"], new_per_day=2)
    first = planner.next(NOW)
    assert (first.item, first.reason) == ("a.one", "new")
    _review(history, planner, "a.one", Rating.Easy, NOW)
    _review(history, planner, "a.two", Rating.Easy, NOW)
    # Two new today: the third waits for tomorrow, so the soonest card is reviewed early.
    pick = planner.next(NOW + 60, exclude={"a.one", "a.two"})
    assert pick.reason == "ahead" and pick.item in {"a.one", "a.two"}
    tomorrow = planner.next(NOW + DAY, exclude={"a.one", "a.two"})
    assert (tomorrow.item, tomorrow.reason) == ("a.three", "new")


def test_due_reviews_come_before_new_items_most_overdue_first(history):
    planner = Planner(history, ["a.one", "a.two", "a.three", "a.four"])
    _review(history, planner, "a.two", Rating.Again, NOW - 3 * DAY)
    _review(history, planner, "a.one", Rating.Again, NOW - 2 * DAY)
    pick = planner.next(NOW)
    assert (pick.item, pick.reason) == ("a.two", "due")
    assert planner.next(NOW, exclude={"a.two"}).item == "a.one"
    assert planner.next(NOW, exclude={"a.two", "a.one"}).reason == "new"
    assert planner.reviews(NOW).count == 2


def test_a_good_answer_pushes_the_card_into_the_future(history):
    planner = Planner(history, ["a.one"])
    _review(history, planner, "a.one", Rating.Good, NOW)
    _review(history, planner, "a.one", Rating.Good, NOW + 700)
    due = history.cards()[template_key("a.one")]["due_at"]
    assert due > NOW + DAY / 2   # out of learning steps: days away, not minutes
    assert len(history.reviews()) == 2


def test_a_misconception_gets_its_own_card_and_brings_its_template_back(history):
    planner = Planner(history, ["a.one", "a.two"])
    _review(history, planner, "a.one", Rating.Easy, NOW - 3 * DAY, hit="no-bias", watched={"no-bias"})
    cards = history.cards()
    assert misconception_key("no-bias") in cards
    # The template card itself is not due yet (rated Easy), but the mistake is: remedial review.
    assert cards[template_key("a.one")]["due_at"] > NOW
    pick = planner.next(NOW, exclude={"a.two"})
    assert (pick.item, pick.reason) == ("a.one", "remedial")


def test_avoiding_a_tracked_misconception_reviews_it_good(history):
    planner = Planner(history, ["a.one"])
    _review(history, planner, "a.one", Rating.Again, NOW - DAY, hit="no-bias", watched={"no-bias"})
    _review(history, planner, "a.one", Rating.Good, NOW, watched={"no-bias"})
    ratings = [(r["card_key"], r["rating"]) for r in history.reviews()]
    assert ratings == [("template:a.one", 1), ("misconception:no-bias", 1),
                       ("template:a.one", 3), ("misconception:no-bias", 3)]


def test_prefer_light_picks_a_light_item_for_the_first_screen(history):
    planner = Planner(history, ["h.heavy", "l.light"], light=["l.light"])
    assert planner.next(NOW).item == "h.heavy"
    assert planner.next(NOW, prefer_light=True).item == "l.light"


def test_interview_cards_do_not_use_up_the_drill_new_limit(history):
    from quizforge.practice.scheduler import interview_key

    interview = Planner(history, ["x.one", "x.two"], key=interview_key, new_per_day=1)
    drill = Planner(history, ["a.one"], new_per_day=1)
    _review(history, interview, "x.one", Rating.Good, NOW)
    assert drill.next(NOW).reason == "new"
    assert interview.next(NOW, exclude={"x.one"}).reason == "ahead"


# --- the store ---------------------------------------------------------------

def test_a_new_history_has_the_schema_wal_and_version(tmp_path):
    path = tmp_path / "history.db"
    History(path).close()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert tables == {"sessions", "attempts", "cards", "reviews", "mocks", "tries", "settings"}


def test_garbage_is_refused_left_untouched_and_copied(tmp_path):
    path = tmp_path / "history.db"
    garbage = bytes(random.Random(1).randrange(256) for _ in range(4096))
    path.write_bytes(garbage)
    with pytest.raises(HistoryError, match="damaged.*copied to history.db.corrupt-"):
        History(path)
    assert path.read_bytes() == garbage
    (copy,) = tmp_path.glob("history.db.corrupt-*.bak")
    assert copy.read_bytes() == garbage


def test_a_truncated_database_is_refused(tmp_path):
    path = tmp_path / "history.db"
    with History(path) as h:
        sid = h.start_session("drill", {}, NOW)
        for n in range(200):
            h.record_attempt(sid, "drill", Attempt(f"dims.d_k-{n:04x}", "dims.d_k", "dims", "NAT", "correct"), NOW)
    sqlite3.connect(path).execute("PRAGMA wal_checkpoint(TRUNCATE)").close()
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(HistoryError, match="damaged"):
        History(path)


def test_a_history_from_a_newer_version_is_refused(tmp_path):
    path = tmp_path / "history.db"
    History(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version = 99")
    db.commit()
    db.close()
    before = path.read_bytes()
    with pytest.raises(HistoryError, match="newer quizforge.*schema 99"):
        History(path)
    assert path.read_bytes() == before
    assert list(tmp_path.glob("history.db.newer-*.bak"))


def test_a_foreign_sqlite_file_is_not_adopted(tmp_path):
    path = tmp_path / "history.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE invoices (id INTEGER)")
    db.commit()
    db.close()
    with pytest.raises(HistoryError, match="not a quizforge history"):
        History(path)


def test_a_failed_transaction_leaves_nothing_behind(history):
    sid = history.start_session("drill", {}, NOW)
    with pytest.raises(RuntimeError):
        with history.transaction() as db:
            history.record_attempt(sid, "drill", Attempt("dims.d_k-0001", "dims.d_k", "dims", "NAT", "correct"),
                                   NOW, db=db)
            raise RuntimeError("killed mid-write")
    assert history.attempts() == []


def test_two_connections_write_in_turn(tmp_path):
    path = tmp_path / "history.db"
    a, b = History(path), History(path)
    sa, sb = a.start_session("drill", {}, NOW), b.start_session("drill", {}, NOW)
    for n in range(50):
        a.record_attempt(sa, "drill", Attempt(f"dims.d_k-{n:04x}", "dims.d_k", "dims", "NAT", "correct"), NOW + n)
        b.record_attempt(sb, "drill", Attempt(f"dims.shapes-{n:04x}", "dims.shapes", "dims", "MCQ", "wrong"), NOW + n)
    assert len(a.attempts()) == 100
    assert a._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_mock_state_round_trips(history):
    sid = history.start_session("mock", {}, NOW)
    state = MockState(sid, "gate", ["dims.d_k-0001", "dims.shapes-0002"], 5.0)
    history.create_mock(state)
    state.answers[1] = "b"
    state.marked.add(0)
    state.visited.update({0, 1})
    state.elapsed, state.current, state.spent = 42.5, 1, {0: 30.0, 1: 12.5}
    history.save_mock(state)
    again = history.open_mock()
    assert (again.answers, again.marked, again.visited, again.elapsed, again.current, again.spent) == (
        {1: "b"}, {0}, {0, 1}, 42.5, 1, {0: 30.0, 1: 12.5})
    assert again.remaining == pytest.approx(300 - 42.5)


# --- mock papers -------------------------------------------------------------

def test_a_paper_mixes_marks_as_gate_does_and_starts_light():
    by_id = {t.id: t for t in all_templates()}
    for n in (5, 20, 65):
        paper = compose_paper(n, random.Random(n))
        templates = [by_id[qid.rsplit("-", 1)[0]] for qid in paper]
        ones = sum(t.marks == 1 for t in templates)
        assert ones == round(n * 30 / 65)
        assert [t.marks for t in templates] == sorted(t.marks for t in templates)   # 1-mark section first
        assert templates[0].light
        if n == 20:
            assert len(set(paper)) == n and len({t.id for t in templates}) == n   # no template twice
            assert len({t.topic for t in templates}) >= 6                          # spread over topics
    assert default_minutes(65) == 180 and default_minutes(20) == 55


def test_mark_paper_uses_gate_marking():
    mcq = next(question(f"dims.shapes-{s:04x}") for s in range(10))
    nat = question("dims.d_k-0001")
    msq = question("concepts.complexity-0001")
    wrong_letter = "abcd"[min(set(range(4)) - mcq.correct)]
    all_letters = "a,b,c,d" if msq.correct != frozenset(range(4)) else "a"
    state = MockState(1, "gate", [mcq.id, nat.id, msq.id, "dims.d_k-0002"], 10,
                      answers={0: wrong_letter, 1: nat.answer_md, 2: all_letters}, spent={0: 10.0, 1: 20.0})
    result, _ = mark_paper(state, [mcq, nat, msq, question("dims.d_k-0002")])
    assert result["negative"] == pytest.approx(round(mcq.marks / 3, 2))
    assert result["score"] == pytest.approx(round(nat.marks - mcq.marks / 3, 2))
    assert (result["answered"], result["correct"], result["questions"]) == (3, 1, 4)
    assert result["max"] == mcq.marks + nat.marks + msq.marks + 1
    assert result["per_topic"]["dims"]["seconds"] == 30.0
    assert [i["correct"] for i in result["items"]] == [False, True, False, None]
    json.dumps(result)   # stored as JSON


def test_every_due_review_comes_before_any_new_template(history):
    # The issue's drill served review, new, new, new, review, review with 3 due.
    items = [f"a.i{n}" for n in range(8)]
    planner = Planner(history, items, light=items[6:])   # the new ones are light: no jumping the queue
    for item in items[:3]:
        _review(history, planner, item, Rating.Again, NOW - 2 * DAY)
    picks = []
    asked: set[str] = set()
    for _ in range(6):
        pick = planner.next(NOW, exclude=asked, prefer_light=True)
        asked.add(pick.item)
        picks.append((pick.item, pick.reason))
    assert picks == [("a.i0", "due"), ("a.i1", "due"), ("a.i2", "due"),
                     ("a.i6", "new"), ("a.i7", "new"), ("a.i3", "new")]


def test_a_mistyped_mock_command_gets_its_usage_not_an_answer_error():
    from quizforge.practice.mock import mistyped_command

    assert mistyped_command("g") == "to go to a question: g N, e.g. g 7"
    assert mistyped_command("g abc") == "to go to a question: g N, e.g. g 7"
    for typo in ("gg 3", "gg3", "GG 3".lower(), "got 3", "g3x", "## 3", "gg"):
        assert mistyped_command(typo) == "to go to a question: g N, e.g. g 7", typo
    assert mistyped_command("submitt").startswith("did you mean submit?")
    assert mistyped_command("palete").startswith("did you mean palette?")
    for answer in ("a", "b,c", "0.25", "8 GiB", "abc", "1.5e3", "3 GB", "2 g"):
        assert mistyped_command(answer) is None, answer
