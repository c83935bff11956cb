"""`quiz stats` and `quiz export-history`: statistics, terminal charts and exports over a real History."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import time
from datetime import date, datetime, timedelta

import pytest
from click.testing import CliRunner

import quizforge.cli.stats as stats_cli  # its clock is pinned below
from quizforge.cli import cli
from quizforge.tui.charts import EMPTY_MESSAGE, bar, sparkline, stats_view
from quizforge.practice.history_export import CSV_COLUMNS, export_history
from quizforge.practice.paths import history_path
from quizforge.practice.stats import compute_stats
from quizforge.practice.store import Attempt, History, MockState
from quizforge.errors import InputError

from history_support import NOW, TODAY, add_card, at, attempt, mock, record


def day(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


def topic(stats: dict, name: str) -> dict:
    return next(t for t in stats["topics"] if t["topic"] == name)


# --- compute_stats -----------------------------------------------------------

def test_accuracy_per_topic_and_trend(history):
    # Previous week (days -10, -9): params 1 of 4.  This week (-1, 0): params 3 of 4 (one revealed).
    record(history, at(-10), attempt("params", "correct"), attempt("params", "wrong"))
    record(history, at(-9), attempt("params", "wrong"), attempt("params", "wrong"), attempt("params", "skipped"))
    record(history, at(-1), attempt("params", "correct"), attempt("params", "correct"))
    record(history, at(0), attempt("params", "correct"), attempt("params", "revealed"),
           attempt("attention", "correct"), attempt("attention", "correct"))
    record(history, at(0, 9), attempt("concepts", "rated", "interview.why-sqrt-dk", kind="interview", rating=3),
           attempt("concepts", "rated", "interview.why-sqrt-dk", kind="interview", rating=1),
           attempt("concepts", "rated", "interview.kv-cache", kind="interview", rating=4), mode="interview")

    stats = compute_stats(history, NOW)
    assert [t["topic"] for t in stats["topics"]] == ["params", "attention"]  # bank order; interview kept out

    params = topic(stats, "params")
    assert (params["attempts"], params["answered"], params["correct"]) == (9, 8, 4)
    assert params["accuracy"] == 0.5
    assert params["trend"] == {"recent": 0.75, "previous": 0.25, "delta": 0.5}
    assert len(params["daily"]) == 30
    assert params["daily"][-1] == 0.5 and params["daily"][-2] == 1.0
    assert params["daily"][-10] == 0.0 and params["daily"][-11] == 0.5
    assert params["daily"][:19] == [None] * 19 and params["daily"][-3] is None
    assert stats["window"] == {"first": day(-29), "last": day(0)}

    attention = topic(stats, "attention")
    assert attention["accuracy"] == 1.0
    assert attention["trend"] == {"recent": 1.0, "previous": None, "delta": None}

    totals = stats["totals"]
    assert (totals["attempts"], totals["answered"], totals["correct"]) == (14, 10, 6)
    assert (totals["wrong"], totals["revealed"], totals["skipped"]) == (3, 1, 1)
    assert totals["accuracy"] == 0.6
    assert totals["sessions"] == 5 and totals["sessions_by_mode"] == {"drill": 4, "interview": 1}
    assert (totals["first_day"], totals["last_day"]) == (day(-10), day(0))

    interview = stats["interview"]
    assert interview["attempts"] == 3 and interview["prompts_practised"] == 2
    assert interview["ratings"] == {"again": 1, "hard": 0, "good": 1, "easy": 1, "unrated": 0}
    assert interview["prompts"][1] == {"prompt": "why-sqrt-dk", "attempts": 2, "last_day": day(0), "last_rating": "again"}

    # A shorter window shortens every series.
    assert len(topic(compute_stats(history, NOW, days=7), "params")["daily"]) == 7


def test_time_spent_sums_the_attempts(history):
    record(history, at(-2), attempt(seconds=30.5), attempt(outcome="wrong", seconds=60))
    assert compute_stats(history, NOW)["totals"]["seconds"] == 90.5


def test_streak_broken_by_a_gap_and_skips_do_not_count(history):
    for offset in (-9, -8, -7):            # three days in a row: the longest
        record(history, at(offset), attempt(outcome="wrong"))
    record(history, at(-6), attempt(outcome="skipped"), attempt(outcome="skipped"))  # only skips: not a day's work
    # -5 .. -2: nothing
    record(history, at(-1), attempt())
    record(history, at(0, 8), attempt(outcome="revealed"))

    streak = compute_stats(history, NOW)["streak"]
    assert streak == {"current": 2, "longest": 3, "active_days": 5, "last_active_day": day(0)}

    # Nothing yet today: the streak ending yesterday still stands; a day later it is gone.
    assert compute_stats(history, at(1, 9))["streak"]["current"] == 2
    assert compute_stats(history, at(2, 9))["streak"]["current"] == 0
    assert compute_stats(history, at(2, 9))["streak"]["longest"] == 3


def test_a_skip_does_not_extend_the_current_streak(history):
    record(history, at(-1), attempt())
    record(history, at(0), attempt(outcome="skipped"))
    streak = compute_stats(history, NOW)["streak"]
    assert streak["current"] == 1 and streak["active_days"] == 1 and streak["last_active_day"] == day(-1)


def test_due_now_and_the_forecast(history):
    add_card(history, "template:params.q", at(-3), at(-10))           # overdue: counted today
    add_card(history, "template:flops.q", at(0, 21), at(-4))          # later today, but its mistake is due now
    add_card(history, "misconception:extra-bias", NOW - 60, at(0, 9))  # due a minute ago, introduced today
    add_card(history, "template:dims.q", at(1, 8), at(0, 10))         # introduced today
    add_card(history, "template:attention.q", at(0, 20), at(-3))      # later today
    add_card(history, "template:memory.q", at(5, 7), at(-2))
    add_card(history, "interview:kv-cache", at(5, 22), at(-2))
    add_card(history, "interview:rope", at(-1), at(0, 8))             # an overdue prompt, introduced today
    add_card(history, "template:softmax.q", at(20), at(-2))            # beyond the fortnight
    record(history, at(-1), attempt("flops", "wrong", misconception="extra-bias"))

    due = compute_stats(history, NOW)["due"]
    # Reviews the drill would serve: params.q (its card is due) and flops.q (its mistake is due);
    # the interview serves rope. A misconception's own card is not a review.
    assert due["drill"] == {"now": 2, "scheduled": 6, "new_today": 1}
    assert due["interview"] == {"now": 1, "scheduled": 2, "new_today": 1}
    assert due["now"] == 3 and due["scheduled"] == 8 and due["new_today"] == 2 and due["later_today"] == 1
    assert due["next_at"] == at(0, 20)   # attention.q; flops.q is due already, not "next"
    assert [f["day"] for f in due["forecast"]] == [day(i) for i in range(14)]
    counts = [f["count"] for f in due["forecast"]]
    assert counts[0] == due["now"] + due["later_today"] == 4
    assert counts[1] == 1 and counts[5] == 2 and due["after_forecast"] == 1
    assert sum(counts) + due["after_forecast"] == due["scheduled"]

    shown = render(stats_view(compute_stats(history, NOW)))
    assert "Due now: 3 (2 templates, 1 interview prompt) · 1 more later today" in shown
    assert "Scheduled: 8 (6 templates, 2 interview prompts) · new today: 1 template, 1 interview prompt" in shown
    assert re.search(r"today\s+\S+\s+4\n", shown) and re.search(r"later\s+1\n", shown)


def test_due_now_agrees_with_what_the_drill_serves(history):
    """The issue's case: overdue interview prompts count in "due now" as in the forecast."""
    for n, template in enumerate(["params.q", "flops.q", "dims.q", "memory.q", "softmax.q"]):
        add_card(history, f"template:{template}", at(-1 - n), at(-9))
    for prompt in ("kv-cache", "rope"):
        add_card(history, f"interview:{prompt}", at(-2), at(-9))
    due = compute_stats(history, NOW)["due"]
    from quizforge.practice.due import due_reviews
    assert due["drill"]["now"] == due_reviews(history, NOW).count == 5
    assert due["now"] == due["forecast"][0]["count"] == 7


def test_misconceptions_ranked_and_corrected(history):
    hit = lambda template, tag, label=None: attempt(template.split(".")[0], "wrong", template,  # noqa: E731
                                                    misconception=tag, misconception_label=label)
    # extra-bias: 3 hits, then a correct answer on the same template: corrected.
    record(history, at(-8), hit("params.projections", "extra-bias", "forgot the biases"),
           hit("params.projections", "extra-bias", "forgot the biases"))
    record(history, at(-7), hit("params.projections", "extra-bias", "forgot the biases"),
           attempt("params", "correct", "params.projections"))
    # no-scale: a correct answer before its latest hit does not count as corrected.
    record(history, at(-6), hit("attention.weight", "no-scale", "forgot 1/sqrt(d_k)"),
           attempt("attention", "correct", "attention.weight"))
    record(history, at(-3), hit("attention.weight", "no-scale", "forgot 1/sqrt(d_k)"),
           hit("memory.kv_cache", "no-scale", "forgot 1/sqrt(d_k)"))
    # per-head: 2 hits, the later on day -4; a correct answer on another template does not help.
    record(history, at(-5), hit("dims.heads", "per-head"), hit("dims.heads", "per-head"))
    record(history, at(-4), attempt("flops", "correct", "flops.matmul"))
    # fma-twice and square-seq: one hit each; the more recent ranks first.
    record(history, at(-2), hit("flops.matmul", "fma-twice", "counted 1 FLOP per MAC"))
    record(history, at(-1), hit("flops.attention", "square-seq", "n instead of n²"))

    stats = compute_stats(history, NOW)
    ranked = stats["misconceptions"]
    assert [m["tag"] for m in ranked] == ["no-scale", "per-head", "square-seq", "fma-twice", "extra-bias"]
    assert stats["misconceptions_total"] == 5
    top = ranked[0]
    assert top == {"tag": "no-scale", "label": "forgot 1/sqrt(d_k)", "hits": 3, "last_hit": day(-3),
                   "templates": ["attention.weight", "memory.kv_cache"], "corrected": False}
    assert ranked[1]["label"] == "per-head"  # no label recorded: the tag stands in
    assert ranked[-1]["corrected"] is True and ranked[-1]["hits"] == 3 and ranked[-1]["last_hit"] == day(-7)
    assert not any(m["corrected"] for m in ranked[:-1])


def test_misconceptions_keep_the_top_ten(history):
    record(history, at(-1), *[attempt("params", "wrong", "params.q", misconception=f"tag-{i:02d}") for i in range(12)])
    stats = compute_stats(history, NOW)
    assert len(stats["misconceptions"]) == 10 and stats["misconceptions_total"] == 12
    assert stats["misconceptions"][0]["tag"] == "tag-11"  # equal hits: the latest first


def test_mock_history_best_last_and_change(history):
    first = mock(history, at(-20), 40, 100)
    second = mock(history, at(-10), 55, 100, seconds=9000)
    mock(history, at(-5), 0, 0, result=False)  # never submitted
    third = mock(history, at(-2), 47.5, 100)

    mocks = compute_stats(history, NOW)["mocks"]
    assert [m["session_id"] for m in mocks["history"]] == [first, second, third]
    assert [m["percent"] for m in mocks["history"]] == [40.0, 55.0, 47.5]
    assert mocks["best"]["session_id"] == second and mocks["last"]["session_id"] == third
    assert mocks["change"] == -7.5
    assert mocks["unfinished"] == 1
    entry = mocks["history"][1]
    assert entry["day"] == day(-10) and entry["minutes"] == 150.0 and entry["minutes_allowed"] == 180
    assert (entry["score"], entry["max"], entry["negative"]) == (55.0, 100.0, 0.66)
    assert (entry["correct"], entry["answered"], entry["questions"], entry["status"]) == (6, 8, 10, "submitted")


def test_paused_mocks_are_listed_with_the_numbers_resume_takes(history):
    history.start_session("drill", {}, at(-30))          # session ids are not mock numbers
    first = mock(history, at(-20), 40, 100)
    paused = mock(history, at(-5), 0, 0, result=False)
    state = history.paused_mocks()[0]
    state.answers, state.marked, state.elapsed = {0: "12", 3: "a"}, {3}, 180 * 60 - 1880.5
    history.save_mock(state)
    history.end_session(paused, "quit", at(-5))

    mocks = compute_stats(history, NOW)["mocks"]
    assert [(m["number"], m["session_id"]) for m in mocks["history"]] == [(1, first)]
    assert mocks["unfinished"] == 1
    assert mocks["paused"] == [{"number": 2, "session_id": paused, "exam": "gate-da", "day": day(-5), "answered": 2,
                                "marked": 1, "questions": 10, "seconds_left": 1880.5, "minutes_allowed": 180}]
    text = render(stats_view(compute_stats(history, NOW)))
    assert "Paused mocks" in text and "quiz practice --resume N" in text
    (row,) = [line for line in text.splitlines() if "2 of 10" in line]
    assert row.split("│")[1].strip() == "2" and "31:20 of 3:00:00" in row
    mock_row = next(line for line in text.splitlines() if "40 / 100" in line)
    assert mock_row.split("│")[1].strip() == "1"   # the mock's number, not its session id (2)


def test_a_history_with_only_a_paused_mock_is_not_empty(history):
    mock(history, at(-1), 0, 0, result=False)
    text = render(stats_view(compute_stats(history, NOW)))
    assert text.strip() != EMPTY_MESSAGE and "Paused mocks" in text


def test_one_mock_has_no_change(history):
    mock(history, at(-2), 30, 50)
    mocks = compute_stats(history, NOW)["mocks"]
    assert mocks["change"] is None and mocks["best"] == mocks["last"] and mocks["last"]["percent"] == 60.0


def test_empty_history(history):
    stats = compute_stats(history, NOW)
    assert stats["empty"] is True and stats["today"] == day(0)
    assert stats["totals"]["attempts"] == 0 and stats["totals"]["accuracy"] is None
    assert stats["totals"]["first_day"] is None and stats["totals"]["seconds"] == 0
    assert stats["topics"] == [] and stats["misconceptions"] == []
    assert stats["interview"]["attempts"] == 0 and stats["interview"]["prompts"] == []
    assert stats["streak"] == {"current": 0, "longest": 0, "active_days": 0, "last_active_day": None}
    assert stats["due"]["now"] == 0 and stats["due"]["scheduled"] == 0 and stats["due"]["after_forecast"] == 0
    assert [f["count"] for f in stats["due"]["forecast"]] == [0] * 14
    assert stats["mocks"] == {"history": [], "best": None, "last": None, "change": None, "unfinished": 0,
                              "paused": []}
    assert json.loads(json.dumps(stats)) == stats


# --- charts ------------------------------------------------------------------

def render(renderable) -> str:
    from rich.console import Console

    console = Console(file=io.StringIO(), width=120, color_system=None, highlight=False)
    console.print(renderable)
    return console.file.getvalue()


def test_bar_and_sparkline():
    assert bar(1.0, 4) == "████" and bar(0.0, 4) == "    " and bar(0.5, 4) == "██  "
    assert bar(1 / 16, 2) == "▏ "
    assert sparkline([0.0, None, 0.5, 1.0]) == "▁ ▅█"
    assert sparkline([-10, 50, 120], 0, 100) == "▁▅█"


def test_empty_view_is_one_friendly_line(history):
    text = render(stats_view(compute_stats(history, NOW))).strip()
    assert text == EMPTY_MESSAGE


def test_view_shows_every_section(history):
    record(history, at(-1), attempt("params", "correct"), attempt("params", "wrong", "params.q", misconception="extra-bias",
                                                                   misconception_label="forgot the biases"))
    record(history, at(0), attempt("attention", "wrong"), attempt("softmax", "correct"))
    add_card(history, "template:params.q", at(-1), at(-1))
    mock(history, at(-3), 40, 100)
    mock(history, at(-2), 50, 100)
    text = render(stats_view(compute_stats(history, NOW)))
    for needle in ("Parameter counts", "Attention by hand", "Softmax and scaling", "Streak: 2 days", "Due now: 1 (1 template)", "Reviews falling due, next 14 days", "today",
                   "forgot the biases", "open", "Mock tests", "+10.0 points"):
        assert needle in text, needle
    assert "█" in text


# --- export ------------------------------------------------------------------

HOSTILE = '=HYPERLINK("http://evil.example/?q=1,2","click, me")\nsecond "line"'


def test_csv_round_trip_neutralises_formulas(history):
    record(history, at(-1, 10, 30), attempt(answer=HOSTILE, outcome="wrong"), attempt(answer="-3"),
           attempt(answer="@SUM(A1)", outcome="wrong"), attempt(answer="-2^30", outcome="wrong"),
           attempt(answer="+1.5e9"), attempt(answer=None, outcome="skipped"))
    out = io.StringIO(newline="")
    assert export_history(history, "csv", out) == 6
    rows = list(csv.DictReader(io.StringIO(out.getvalue(), newline="")))
    assert list(rows[0]) == list(CSV_COLUMNS) and len(rows) == 6
    answers = [r["answer"] for r in rows]
    assert answers == ["'" + HOSTILE, "-3", "'@SUM(A1)", "'-2^30", "+1.5e9", ""]
    first = rows[0]
    assert first["outcome"] == "wrong" and first["topic"] == "params" and first["day"] == day(-1)
    assert datetime.fromisoformat(first["answered_at_iso"]).timestamp() == pytest.approx(at(-1, 10, 30))
    assert float(first["answered_at"]) == at(-1, 10, 30)


def test_json_export_has_every_section(history):
    session = record(history, at(-1), attempt(answer=HOSTILE, outcome="wrong"))
    add_card(history, "template:params.q", at(2), at(-1))
    with history.transaction() as db:
        history.record_review("template:params.q", 1, 1, {"rating": 1, "review_datetime": "2025-03-19T12:00:00"},
                              at(-1), db)
    mock(history, at(-3), 40, 100)
    out = io.StringIO()
    assert export_history(history, "json", out) == 1
    data = json.loads(out.getvalue())
    assert data["format"] == "quizforge-history" and data["version"] == 1
    assert datetime.fromisoformat(data["exported_at"])
    assert {"sessions", "attempts", "cards", "reviews", "mocks"} <= set(data)
    assert data["attempts"][0]["answer"] == HOSTILE and data["attempts"][0]["session_id"] == session
    assert data["cards"][0]["card"]["stability"] == 3.2 and data["cards"][0]["key"] == "template:params.q"
    assert data["reviews"][0]["log"]["rating"] == 1
    assert data["mocks"][0]["result"]["score"] == 40 and data["mocks"][0]["paper"][0] == "params.q-0000"
    assert data["sessions"][0]["settings"] == {}


def test_unknown_format_names_the_valid_ones(history):
    with pytest.raises(InputError, match="csv, json"):
        export_history(history, "xml", io.StringIO())


# --- CLI ---------------------------------------------------------------------

@pytest.fixture
def data_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(stats_cli, "_now", lambda: NOW)
    folder = tmp_path / "data"
    h = History(history_path(folder))
    record(h, at(-2), attempt("params", "correct"), attempt("flops", "wrong"))
    record(h, at(-1), attempt("params", "wrong", "params.q", misconception="extra-bias"))
    record(h, at(0), attempt("attention", "correct"))
    add_card(h, "template:params.q", at(1), at(-2))
    mock(h, at(-3), 40, 100)
    h.close()
    return folder


def test_stats_json_is_compute_stats(data_dir):
    result = CliRunner().invoke(cli, ["stats", "--json", "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    with History(history_path(data_dir)) as h:
        assert json.loads(result.output) == compute_stats(h, NOW)
    result = CliRunner().invoke(cli, ["stats", "--json", "--days", "10", "--data-dir", str(data_dir)])
    assert json.loads(result.output)["days"] == 10 and len(json.loads(result.output)["topics"][0]["daily"]) == 10


def test_stats_renders_text(data_dir):
    result = CliRunner().invoke(cli, ["stats", "--data-dir", str(data_dir)])
    assert result.exit_code == 0, result.output
    for needle in ("Parameter", "FLOPs and", "Attention", "Streak: 3 days", "extra-bias", "Mock tests"):
        assert needle in result.output, needle


def test_stats_without_a_history_file(tmp_path, monkeypatch):
    monkeypatch.setattr(stats_cli, "_now", lambda: NOW)
    folder = tmp_path / "fresh"
    result = CliRunner().invoke(cli, ["stats", "--data-dir", str(folder)])
    assert result.exit_code == 0 and result.output.strip() == EMPTY_MESSAGE
    result = CliRunner().invoke(cli, ["stats", "--json", "--data-dir", str(folder)])
    data = json.loads(result.output)
    assert data["empty"] is True and data["totals"]["attempts"] == 0 and data["mocks"]["history"] == []
    assert not history_path(folder).exists()


def test_stats_rejects_bad_days(run_quiz, tmp_path):
    code, out, err = run_quiz("stats", "--days", "0", "--data-dir", str(tmp_path))
    assert code == 2 and err.startswith("error:") and len(err.strip().splitlines()) == 1


def test_export_to_a_file_is_atomic_and_reported(run_quiz, data_dir, tmp_path):
    target = tmp_path / "out" / "history.csv"
    target.parent.mkdir()
    target.write_text("old contents")
    code, out, err = run_quiz("export-history", "--format", "csv", "--output", str(target),
                              "--data-dir", str(data_dir))
    assert code == 0 and out == ""
    assert err.strip() == f"exported 4 attempts to {target}"
    with open(target, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 4 and rows[2]["misconception"] == "extra-bias"
    assert sorted(p.name for p in target.parent.iterdir()) == ["history.csv"]  # no temp file left behind


def test_export_json_to_stdout(run_quiz, data_dir):
    code, out, err = run_quiz("export-history", "--format", "json", "--data-dir", str(data_dir))
    data = json.loads(out)
    assert code == 0 and err == "" and len(data["attempts"]) == 4 and len(data["mocks"]) == 1


def test_export_unknown_format_is_one_line(run_quiz, data_dir, tmp_path):
    target = tmp_path / "never.xml"
    code, out, err = run_quiz("export-history", "--format", "xml", "--output", str(target), "--data-dir", str(data_dir))
    assert code == 2 and out == ""
    assert err.strip() == "error: unknown export format 'xml'; formats: csv, json"
    assert not target.exists()


def test_export_to_a_missing_folder(run_quiz, data_dir, tmp_path):
    code, _, err = run_quiz("export-history", "--format", "csv", "--output", str(tmp_path / "no" / "x.csv"),
                            "--data-dir", str(data_dir))
    assert code == 2 and "does not exist" in err and len(err.strip().splitlines()) == 1


def test_commands_do_not_import_torch_numpy_or_sympy(data_dir, tmp_path):
    script = f"""
import sys
from click.testing import CliRunner
from quizforge.cli import cli
for args in (["stats"], ["stats", "--json"], ["export-history", "--format", "csv"],
             ["export-history", "--format", "json", "--output", {str(tmp_path / "h.json")!r}]):
    result = CliRunner().invoke(cli, args + ["--data-dir", {str(data_dir)!r}])
    assert result.exit_code == 0, (args, result.output, result.exception)
heavy = sorted(m for m in ("torch", "numpy", "sympy") if m in sys.modules)
print("heavy:", heavy)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "heavy: []"
