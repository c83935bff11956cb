"""Practice aimed at an exam date (issue 34): a learner driven through simulated weeks on the
test clock, FSRS's predicted recall on exam day against the target, the pace of new templates,
`quiz stats` with the exam and `quiz stats --fit`; and the drill's interleaving, named topics
past the daily limit and the last question's worked solution."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from datetime import date, datetime, timedelta, timezone

import pytest
from fsrs import Card, Rating, Scheduler

from quizforge.practice import drill as d
from quizforge.practice.exam import REVIEW_DAYS, ExamPlan, day_start, local_date, remember_exam
from quizforge.practice.fit import fit
from quizforge.practice.scheduler import FITTED, Planner, scheduler_for, template_key
from quizforge.practice.store import History
from quizforge.errors import InputError
from practice_helpers import quiz_env, run_quiz, strip_ansi
from clock_support import SteppedClock

START = time.mktime((2026, 12, 1, 9, 0, 0, 0, 0, -1))   # 09:00 local, the learner's practice hour
DAY = 86400.0
TEMPLATES = [f"sim.t{n:02d}" for n in range(30)]


def _utc(at: float) -> datetime:
    return datetime.fromtimestamp(at, tz=timezone.utc)


def practise_daily(history, planner: Planner, days: int, *, slips_until: int, rng: random.Random) -> None:
    """Each day at 09:00: every due review and every new template allowed, answered one a minute;
    before day `slips_until` one answer in five is wrong (Again), after it every answer is right."""
    for day in range(days):
        now = START + day * DAY
        asked: list[str] = []
        while True:
            pick = planner.next(now, exclude=asked)
            if pick is None or pick.reason == "ahead":
                break
            rating = Rating.Again if day < slips_until and rng.random() < 0.2 else Rating.Good
            with history.transaction() as db:
                planner.review(pick.item, rating, now, None, db)
            asked.append(pick.item)
            now += 60


def exam_day_recall(history, plan: ExamPlan) -> dict[str, float]:
    scheduler = Scheduler()
    return {key: plan.recall(scheduler, Card.from_dict(json.loads(row["card"])))
            for key, row in history.cards().items()}


def test_simulated_weeks_meet_the_target_on_exam_day_and_leave_nothing_due_after_it(history, monkeypatch):
    random.seed(34)   # FSRS's fuzz
    exam = ExamPlan(local_date(START) + timedelta(days=21), target=0.95)
    planner = Planner(history, TEMPLATES, new_per_day=None, exam=exam)

    progress = planner.exam_progress(START)
    assert (progress.days_left, progress.left, progress.pace) == (21, 30, 2)   # 30 over 19 days

    practise_daily(history, planner, 21, slips_until=14, rng=random.Random(1))
    cards = history.cards()
    assert set(cards) == {template_key(t) for t in TEMPLATES}
    # Every template was introduced by the pace, REVIEW_DAYS days before the exam at the latest...
    last_intro = max(date.fromisoformat(row["introduced_day"]) for row in cards.values())
    assert last_intro <= exam.day - timedelta(days=REVIEW_DAYS)
    # ...and reviewed on at least two later days before the exam.
    for key, row in cards.items():
        later = {local_date(t) for t in history.card_reviews(key)} - {date.fromisoformat(row["introduced_day"])}
        assert len([day for day in later if day < exam.day]) >= 2, key

    recall = exam_day_recall(history, exam)
    assert min(recall.values()) >= exam.target, sorted(recall.items(), key=lambda kv: kv[1])[:3]
    # Nothing left due before the exam: every review that fell before it was done.
    assert planner.reviews(exam.starts_at - 1).count == 0


def test_without_the_plan_the_same_learner_falls_short_of_the_target(history):
    """The control: FSRS alone (90% desired retention) leaves cards due after the exam under a 95% target."""
    random.seed(34)
    exam = ExamPlan(local_date(START) + timedelta(days=21), target=0.95)
    planner = Planner(history, TEMPLATES, new_per_day=2)
    practise_daily(history, planner, 21, slips_until=14, rng=random.Random(1))
    recall = exam_day_recall(history, exam)
    assert min(recall.values()) < exam.target
    assert any(row["due_at"] > exam.starts_at for row in history.cards().values())


def test_a_review_due_after_the_exam_is_brought_forward_to_when_recall_falls_below_target():
    exam = ExamPlan(local_date(START) + timedelta(days=30), target=0.97)
    scheduler = Scheduler(enable_fuzzing=False)
    card = Card(due=_utc(START - 20 * DAY))
    for k in range(4):   # a card with long intervals: due well after the exam
        card, _ = scheduler.review_card(card, Rating.Good, _utc(card.due.timestamp()))
    at = card.last_review.timestamp()
    assert card.due.timestamp() > exam.starts_at and exam.recall(scheduler, card) < exam.target
    moved = exam.due_before_exam(scheduler, card, at, later_review_days=3)
    # The first day its predicted recall falls below 97%, as fsrs counts days.
    days = next(n for n in range(1, 400)
                if scheduler.get_card_retrievability(card, card.last_review + timedelta(days=n)) < exam.target)
    assert moved == max(day_start(local_date(at + days * DAY)), day_start(local_date(at) + timedelta(days=1)))
    assert START <= moved < exam.starts_at
    # Already above the target on exam day: FSRS's own date stands.
    assert ExamPlan(exam.day, target=0.5).due_before_exam(scheduler, card, at, later_review_days=3) is None


def test_the_exam_date_is_remembered_and_checked(history):
    now = START
    assert remember_exam(history, None, None, now) is None
    plan = remember_exam(history, "2027-02-07", None, now)
    assert (plan.day, plan.target) == (date(2027, 2, 7), 0.9)
    assert remember_exam(history, None, 0.95, now) == ExamPlan(date(2027, 2, 7), 0.95)
    assert remember_exam(history, None, None, now) == ExamPlan(date(2027, 2, 7), 0.95)
    for text, words in [("07/02/2027", "YYYY-MM-DD"), ("2026-11-30", "after today")]:
        with pytest.raises(InputError, match=words):
            remember_exam(history, text, None, now)
    assert remember_exam(history, None, None, now) == ExamPlan(date(2027, 2, 7), 0.95)   # nothing lost
    assert remember_exam(history, "off", None, now) is None
    assert remember_exam(history, None, None, now) is None
    with pytest.raises(InputError, match="--exam-date"):
        remember_exam(history, None, 0.95, now)


# --- the commands -------------------------------------------------------------

def _exam_in(days: int) -> str:
    return (date.today() + timedelta(days=days)).isoformat()


@pytest.mark.parametrize("width", [40, 80, 120])
def test_practice_with_an_exam_date_says_the_pace_and_stats_shows_the_exam(tmp_path, width, monkeypatch):
    exam = _exam_in(12)   # the templates left, over the 10 days before the last two
    done = run_quiz(tmp_path, "practice", "--exam-date", exam, "--difficulty", "1", "--count", "1", input="s\n\n")
    assert done.returncode == 0, done.stderr
    header = " ".join(strip_ansi(done.stdout).split())
    found = re.search(rf"exam {exam} in 12 days · (\d+) new templates left · (\d+) a day", header)
    assert found, header
    left, pace = map(int, found.groups())
    assert pace == -(-left // (12 - REVIEW_DAYS))

    again = run_quiz(tmp_path, "practice", "--count", "1", input="q\n")   # remembered
    assert f"exam {exam} in 12 days" in " ".join(again.stdout.split())

    shown = subprocess.run([sys.executable, "-m", "quizforge", "stats"], capture_output=True, text=True,
                           env=quiz_env(tmp_path, COLUMNS=str(width)), timeout=60)
    text = strip_ansi(shown.stdout)
    assert shown.returncode == 0 and max(len(line) for line in text.splitlines()) <= width, text
    flat = " ".join(text.split())
    assert f"Exam {exam} · in 12 days · target recall 90%" in flat
    assert "Predicted recall on exam day" in flat and "Dimensions" in flat

    stats = json.loads(run_quiz(tmp_path, "stats", "--json").stdout)["exam"]
    assert (stats["date"], stats["days_left"], stats["target"]) == (exam, 12, 0.9)
    assert sum(t["introduced"] for t in stats["topics"]) == 0   # the one question was skipped

    off = run_quiz(tmp_path, "practice", "--exam-date", "off", "--count", "1", input="q\n")
    assert "exam " not in off.stdout and json.loads(run_quiz(tmp_path, "stats", "--json").stdout)["exam"] is None


@pytest.mark.parametrize("args, words", [
    (["--exam-date", "tomorrowish"], "YYYY-MM-DD"),
    (["--exam-date", "2001-01-01"], "after today"),
    (["--target-retention", "0.95"], "--exam-date"),
    (["--exam-date", "2099-01-01", "--interview"], "belong to the drill"),
])
def test_bad_exam_options_are_one_line(tmp_path, args, words):
    done = run_quiz(tmp_path, "practice", *args, input="q\n")
    assert done.returncode == 2 and done.stdout == "" and done.stderr.count("\n") == 1, done
    assert words in done.stderr


def test_recall_on_exam_day_per_topic_counts_introduced_templates(tmp_path):
    from quizforge.practice.stats import compute_stats

    with History(tmp_path / "history.db") as h:
        exam = remember_exam(h, "2027-02-07", 0.9, START)
        planner = Planner(h, ["dims.d_k", "dims.d_v"], exam=exam)
        with h.transaction() as db:
            planner.review("dims.d_k", Rating.Good, START, None, db)
        stats = compute_stats(h, START)["exam"]
        dims = next(t for t in stats["topics"] if t["topic"] == "dims")
        card = Card.from_dict(h.card(template_key("dims.d_k")))
        assert dims["introduced"] == 1 and dims["recall"] == pytest.approx(exam.recall(Scheduler(), card), abs=1e-4)
        assert dims["below_target"] == (dims["recall"] < 0.9)
        assert stats["days_left"] == (date(2027, 2, 7) - local_date(START)).days


# --- quiz stats --fit -------------------------------------------------------------

def _long_history(history, cards: int, days: int) -> None:
    """A learner who forgets faster than FSRS's defaults predict, reviewing what is due every day."""
    rng = random.Random(7)
    planner = Planner(history, [f"sim.f{n:03d}" for n in range(cards)], new_per_day=cards)
    truth = Scheduler()
    for day in range(days):
        now = START + day * DAY
        asked: list[str] = []
        while (pick := planner.next(now, exclude=asked)) is not None and pick.reason != "ahead":
            saved = history.card(template_key(pick.item))
            recall = truth.get_card_retrievability(Card.from_dict(saved), _utc(now)) ** 3 if saved else 0.5
            rating = Rating.Good if rng.random() < recall else Rating.Again
            with history.transaction() as db:
                planner.review(pick.item, rating, now, None, db)
            asked.append(pick.item)
            now += 60


def test_fit_needs_py_fsrs_threshold_and_says_so(tmp_path):
    with History(tmp_path / "history.db") as h:
        _long_history(h, 10, 20)
        before = h.cards()
    done = run_quiz(tmp_path, "stats", "--fit")
    assert done.returncode == 0, done.stderr
    assert "not enough history to fit yet" in done.stdout and "of the 512 reviews" in done.stdout
    with History(tmp_path / "history.db") as h:
        assert h.setting(FITTED) is None and h.cards() == before


def test_fit_without_the_optimizers_dependencies_says_what_to_install(tmp_path, monkeypatch):
    """py-fsrs defines its optimizer's constants only where pandas and torch import."""
    from fsrs import optimizer

    from quizforge.practice.fit import OptimizerMissing, fit

    monkeypatch.delattr(optimizer, "max_seq_len")
    with History(tmp_path / "history.db") as h:
        _long_history(h, 10, 20)
        with pytest.raises(OptimizerMissing, match=r"pip install 'fsrs\[optimizer\]'"):
            fit(h, START + 30 * DAY)
        assert h.setting(FITTED) is None


def test_fit_with_enough_history_changes_the_parameters_and_the_scheduler_uses_them(tmp_path):
    with History(tmp_path / "history.db") as h:
        _long_history(h, 60, 60)
        default = list(Scheduler().parameters)
    done = run_quiz(tmp_path, "stats", "--fit", "--json", timeout=600)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["fitted"] and result["reviews"] >= 512 and result["rescheduled"] == 60
    assert result["before"] == default and result["after"] != default and result["changes"]
    with History(tmp_path / "history.db") as h:
        assert h.setting(FITTED)["parameters"] == result["after"]
        assert list(scheduler_for(h).parameters) == result["after"]
        # The next review is scheduled with the fitted parameters.
        planner = Planner(h, ["sim.new"])
        with h.transaction() as db:
            planner.review("sim.new", Rating.Easy, START + 90 * DAY, None, db)
        card = Card.from_dict(h.card(template_key("sim.new")))
        assert card.stability == pytest.approx(result["after"][3])
    assert json.loads(run_quiz(tmp_path, "stats", "--json").stdout)["fitted"]["reviews"] == result["reviews"]


# --- the drill: interleaving, named topics, the last question -----------------------

def test_repeats_interleave_and_never_come_back_to_back(history):
    planner = Planner(history, ["a.one", "a.two", "a.three"], new_per_day=0)
    with history.transaction() as db:
        for item in planner.items:
            planner.review(item, Rating.Easy, START, None, db)
    planner.new_per_day = 1   # no new template is left: early reviews, one at a time
    asked: list[str] = []
    for _ in range(7):
        asked.append(planner.next(START + 60, exclude=asked).item)
    assert sorted(asked[:3]) == sorted(planner.items)
    assert all(a != b for a, b in zip(asked, asked[1:]))
    assert asked[3:6] == asked[:3]   # then the one asked longest ago, in turn


def test_a_named_topic_past_the_daily_limit_introduces_its_templates_and_says_so(history):
    clock = SteppedClock(START)
    first = d.Drill(history, d.DrillOptions(topic="matrices", count=1, new_per_day=1), clock)
    _, shown = first.start()
    first.act(d.Skip())
    first.act(d.Answer("1"))   # anything but Enter at the next prompt changes nothing
    assert first.act(d.Quit())[-1].summary.ended_by == "finished"
    with history.transaction() as db:
        first.planner.review(shown.question.template, Rating.Good, clock(), None, db)   # today's one new template

    drill = d.Drill(history, d.DrillOptions(topic="matrices", count=5, new_per_day=1), clock)
    events = drill.start()
    served = [(events[-1].question.template, events[-1].reason, events[-1].limit)]
    for _ in range(4):
        drill.act(d.Skip())
        (shown,) = drill.act(d.Next())
        served.append((shown.question.template, shown.reason, shown.limit))
    templates = [t for t, _, _ in served]
    assert len(set(templates[:3])) == 3, served   # every matrix template before any repeats
    assert all(a != b for a, b in zip(templates, templates[1:])), served
    # The two not yet introduced come past today's limit of 1, then the one introduced today.
    assert [(reason, limit) for _, reason, limit in served[:3]] == [("extra", 1), ("extra", 1), ("ahead", 1)]


def test_the_cap_line_names_the_flag_and_a_named_topic_is_practised(tmp_path):
    done = run_quiz(tmp_path, "practice", "--topic", "dims.d_k", "--count", "1", "--new-per-day", "1",
                    input="1\n1\n\n")   # wrong twice: today's one new template is introduced
    assert done.returncode == 0 and "rated Again" in done.stdout
    capped = run_quiz(tmp_path, "practice", "--new-per-day", "1", "--difficulty", "3", input="q\n")
    assert "--new-per-day N" in " ".join(capped.stdout.split())
    named = run_quiz(tmp_path, "practice", "--topic", "attention.weight", "--count", "1", "--new-per-day", "1",
                     input="s\n\n")
    flat = " ".join(strip_ansi(named.stdout).split())
    assert "Nothing to ask" not in flat and "new · past today's limit of 1" in flat, flat


def test_the_last_question_offers_its_worked_solution(tmp_path):
    done = run_quiz(tmp_path, "practice", "--topic", "dims", "--count", "1", input="1\n1\ne\n")
    assert done.returncode == 0, done.stderr
    out = strip_ansi(done.stdout)
    assert out.index("rated Again") < out.index("Enter next · e worked solution") < out.index("Worked solution")
    assert out.index("Worked solution") < out.index("Session over")
    assert "input ended" not in out   # every question was asked: the session finished


def test_an_explicit_new_per_day_wins_over_the_exam_pace(history):
    exam = ExamPlan(local_date(START) + timedelta(days=10))
    assert Planner(history, TEMPLATES, new_per_day=None, exam=exam).daily_limit(START) == 4   # 30 over 8 days
    assert Planner(history, TEMPLATES, new_per_day=5, exam=exam).daily_limit(START) == 5
    progress = Planner(history, TEMPLATES, new_per_day=5, exam=exam).exam_progress(START)
    assert (progress.left, progress.pace) == (30, 4)   # the header still says the pace the exam needs


def _right(question) -> str:
    from quizforge.answers import format_number

    if question.is_matrix:
        return question.answer_md
    return question.correct_letters if question.kind != "NAT" else format_number(question.answer, question.decimals)


def test_the_drill_itself_over_two_weeks_meets_the_target_on_exam_day(history):
    """The engine a learner drives: each morning, every question the drill plans, answered
    right in half a minute, until it would review ahead of time."""
    random.seed(3)
    clock = SteppedClock(START)
    exam = ExamPlan(local_date(START) + timedelta(days=14))
    level = frozenset({1})
    for day in range(14):
        clock.now = START + day * DAY
        drill = d.Drill(history, d.DrillOptions(difficulty=level, count=200, new_per_day=None, exam=exam), clock)
        events = drill.start()
        if isinstance(events[-1], d.NothingToAsk):
            continue
        if day == 0:
            assert events[0].exam.left == len(drill.planner.items) and events[0].exam.pace == -(-events[0].exam.left // 12)
        shown = events[-1]
        while shown.reason != "ahead":
            clock.now += 30
            drill.act(d.Answer(_right(shown.question)))
            nxt = drill.act(d.Next())
            if not isinstance(nxt[-1], d.QuestionShown):
                break
            shown = nxt[-1]
        drill.close("quit")
    planner = Planner(history, [t.id for t in d.drill_templates(None, level)])
    cards = history.cards()
    assert all(template_key(t) in cards for t in planner.items)
    recall = {t: exam.recall(Scheduler(), Card.from_dict(history.card(template_key(t)))) for t in planner.items}
    assert min(recall.values()) >= exam.target, recall
    assert planner.reviews(exam.starts_at - 1).count == 0
    for t in planner.items:   # each reviewed on two days after the one it was introduced on
        days = sorted({local_date(at) for at in history.card_reviews(template_key(t))})
        assert len([day for day in days[1:] if day < exam.day]) >= 2, (t, days)


def test_with_an_exam_date_a_review_falls_due_at_the_start_of_its_day():
    exam = ExamPlan(local_date(START) + timedelta(days=40))
    scheduler = Scheduler(enable_fuzzing=False)
    card, _ = scheduler.review_card(Card(due=_utc(START)), Rating.Easy, _utc(START + 60))   # due in days, at 09:01
    due = card.due.timestamp()
    assert START + DAY < due < exam.starts_at and due != day_start(local_date(due))
    assert exam.due_before_exam(scheduler, card, START + 60, later_review_days=2) == day_start(local_date(due))


def test_the_json_export_keeps_the_exam_date(tmp_path):
    with History(tmp_path / "history.db") as h:
        remember_exam(h, "2027-02-07", 0.95, START)
    data = json.loads(run_quiz(tmp_path, "export-history", "--format", "json").stdout)
    assert data["settings"] == {"exam": {"date": "2027-02-07", "target": 0.95}, "fsrs_parameters": None}


def test_the_template_just_asked_comes_back_only_when_no_other_can(history):
    planner = Planner(history, ["a.one", "a.two", "a.three"], new_per_day=1)
    with history.transaction() as db:
        planner.review("a.one", Rating.Easy, START, None, db)   # today's one new template
    # a.two and a.three were skipped (no card) and no new one is allowed: a.one, again and again.
    assert planner.next(START + 60, exclude=["a.one", "a.two", "a.three"]).item == "a.one"
    assert planner.next(START + 60, exclude=["a.one", "a.two", "a.three", "a.one"]).item == "a.one"
