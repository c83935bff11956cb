"""Progress statistics over a learner's history, as plain JSON-able data.

`compute_stats(history, now, days=30)` reads the SQLite history once and returns
the dict that `quiz stats --json` prints (and that `charts.stats_view` draws).
Every fraction is in 0..1 (rounded to 4 places); a mock's percent is 0..100, rounded
once to 1 place from its exact score (as both mock reports show it, see mock_percent);
days are the learner's local dates, YYYY-MM-DD, as stored in the `day` column.

Keys:

- `today` (str): the local date of `now`. `days` (int): the length of the daily series.
- `window`: `{"first": day, "last": day}`, the dates of the first and last point of
  every `daily` series (`last` is today).
- `empty` (bool): nothing recorded yet (no attempts, cards or mocks).
- `totals`: `attempts` (every recorded row, skips and interview ratings included),
  `answered` (correct + wrong + revealed), `correct`, `wrong`, `revealed`, `skipped`,
  `unanswered` (left blank in a submitted mock), `accuracy` (correct / answered, None
  when nothing was answered), `sessions`, `sessions_by_mode` ({mode: count}),
  `seconds` (time spent on questions, the sum of the attempts' seconds),
  `first_day` and `last_day` (None when empty).
- `topics`: a list, in the bank's topic order (unknown topics after, by name), of the
  topics with at least one non-interview attempt: `topic`, `title`, `attempts`,
  `answered`, `correct`, `accuracy`; `trend`: `{"recent", "previous", "delta"}`,
  accuracy over the last 7 days (today included) and the 7 days before, and their
  difference (any may be None); `daily`: `days` accuracies, oldest first, None on
  days with nothing answered in that topic.
- `interview`: self-rated interview prompts, kept out of every accuracy:
  `attempts`, `ratings` (`{"again", "hard", "good", "easy", "unrated"}` counts),
  `prompts_practised`, and `prompts` (by prompt id: `prompt`, `attempts`,
  `last_day`, `last_rating`).
- `streak`: `current` (consecutive active days ending today, or yesterday when
  nothing has been done yet today), `longest`, `active_days`, `last_active_day`.
  A day is active when at least one attempt on it is real work: an outcome other
  than `skipped` (and `unanswered`, a blank left in a submitted mock).
- `due`: what falls due, counted in reviews (a drill template or an interview prompt),
  each by `due.py`'s one definition: `drill` and `interview`, each `{"now", "scheduled",
  "new_today"}` (due now, as the drill's header counts them; every template or prompt
  with a schedule; introduced today, as the daily new limit counts them); `now`,
  `scheduled` and `new_today`, their sums; `later_today` (due today but not yet);
  `next_at` (unix seconds when the next drill review not yet due falls due, None when
  none is scheduled); `forecast`: 14 `{"day", "count"}` entries from today, the reviews
  falling due on each local day (today's count is `now` + `later_today`, overdue ones
  included); `after_forecast`: those due after the fortnight. The forecast and
  `after_forecast` add up to `scheduled`.
- `misconceptions`: the 10 weakest: `tag`, `label`, `hits`, `last_hit` (day),
  `templates` (sorted), `corrected` (a correct answer on one of those templates
  after the misconception's latest hit); uncorrected first, then most hits, then
  most recent. `misconceptions_total`: how many distinct tags were ever hit.
- `mocks`: `history` (submitted mocks, oldest first: `number` (the mock's number, as
  its header and `quiz practice --resume N` use it), `session_id`, `exam`, `day`,
  `score`, `max`, `percent`, `negative`, `correct`, `answered`, `questions`,
  `status`, `minutes` used, `minutes_allowed`), `best` and `last` (entries of the
  history, None when there is none), `change` (last percent minus the one before,
  in percent points from exact values, 1 place, None with fewer than 2), `unfinished` (mocks never submitted),
  `paused` (those of them that can be resumed, oldest first: `number`, `session_id`,
  `exam`, `day` started, `answered`, `marked`, `questions`, `seconds_left`,
  `minutes_allowed`).
- `exam`: None without an exam date (`quiz practice --exam-date`); else `date`, `days_left`
  (0 on the day, negative after it), `target` (the recall wanted on exam day), `recall`
  (FSRS's predicted recall at the start of exam day, the mean over introduced templates,
  None before any), `below_target` (introduced templates predicted under the target),
  and `topics`, in the bank's order: `topic`, `title`, `templates` (in the bank),
  `introduced`, `recall` and `below_target`, as above for that topic.
- `fitted`: None while FSRS's default parameters serve; after `quiz stats --fit`,
  `{"reviews": how many reviews it learned from}`.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter, defaultdict
from datetime import date, timedelta
from typing import Any, Iterable

from quizforge.practice.due import drill_due_times, interview_due_times, next_due
from quizforge.practice.mock_percent import exact_percent, mock_percent, one_place
from quizforge.practice.store import local_day

INTERVIEW = "interview"
ANSWERED = ("correct", "wrong", "revealed")
NOT_WORK = ("skipped", "unanswered")
RATING_NAMES = {1: "again", 2: "hard", 3: "good", 4: "easy"}
FORECAST_DAYS = 14
TREND_DAYS = 7
TOP_MISCONCEPTIONS = 10
PAUSED_STATUSES = ("open", "quit")   # as History.paused_mocks() chooses them: these can be resumed

def _topics() -> dict[str, str]:
    from quizforge.bank.template import TOPICS   # light: no torch or sympy behind it

    return dict(TOPICS)


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _shift(day: str, n: int) -> str:
    return (date.fromisoformat(day) + timedelta(days=n)).isoformat()


def _is_interview(row) -> bool:
    return row["mode"] == INTERVIEW or row["kind"] == INTERVIEW


def _accuracy(rows: Iterable) -> tuple[int, int, float | None]:
    answered = correct = 0
    for r in rows:
        if r["outcome"] in ANSWERED:
            answered += 1
            correct += r["outcome"] == "correct"
    return answered, correct, _ratio(correct, answered)


# --- sections --------------------------------------------------------------

def _totals(attempts: list, sessions: list) -> dict[str, Any]:
    outcomes = Counter(r["outcome"] for r in attempts)
    answered = sum(outcomes[o] for o in ANSWERED)
    days = [r["day"] for r in attempts]
    return {
        "attempts": len(attempts),
        "answered": answered,
        "correct": outcomes["correct"],
        "wrong": outcomes["wrong"],
        "revealed": outcomes["revealed"],
        "skipped": outcomes["skipped"],
        "unanswered": outcomes["unanswered"],
        "accuracy": _ratio(outcomes["correct"], answered),
        "sessions": len(sessions),
        "sessions_by_mode": dict(sorted(Counter(s["mode"] for s in sessions).items())),
        "seconds": round(sum(float(r["seconds"] or 0) for r in attempts), 1),
        "first_day": min(days) if days else None,
        "last_day": max(days) if days else None,
    }


def _topic_section(attempts: list, today: str, days: int) -> list[dict[str, Any]]:
    names = _topics()
    by_topic: dict[str, list] = defaultdict(list)
    for r in attempts:
        if not _is_interview(r):
            by_topic[r["topic"]].append(r)
    order = [t for t in names if t in by_topic] + sorted(t for t in by_topic if t not in names)
    series = [_shift(today, -i) for i in range(days - 1, -1, -1)]
    recent_from = _shift(today, -(TREND_DAYS - 1))
    previous_from = _shift(today, -(2 * TREND_DAYS - 1))
    out = []
    for topic in order:
        rows = by_topic[topic]
        answered, correct, accuracy = _accuracy(rows)
        per_day: dict[str, list] = defaultdict(list)
        for r in rows:
            per_day[r["day"]].append(r)
        recent = _accuracy(r for r in rows if recent_from <= r["day"] <= today)[2]
        previous = _accuracy(r for r in rows if previous_from <= r["day"] < recent_from)[2]
        delta = round(recent - previous, 4) if recent is not None and previous is not None else None
        out.append({
            "topic": topic,
            "title": names.get(topic, topic),
            "attempts": len(rows),
            "answered": answered,
            "correct": correct,
            "accuracy": accuracy,
            "trend": {"recent": recent, "previous": previous, "delta": delta},
            "daily": [_accuracy(per_day.get(d, ()))[2] for d in series],
        })
    return out


def _interview_section(attempts: list) -> dict[str, Any]:
    rows = [r for r in attempts if _is_interview(r)]
    ratings = {name: 0 for name in RATING_NAMES.values()} | {"unrated": 0}
    prompts: dict[str, dict[str, Any]] = {}
    for r in rows:
        ratings[RATING_NAMES.get(r["rating"], "unrated")] += 1
        template = r["template"] or ""
        prompt = template[len("interview."):] if template.startswith("interview.") else template
        entry = prompts.setdefault(prompt, {"prompt": prompt, "attempts": 0, "last_day": None, "last_rating": None})
        entry["attempts"] += 1
        entry["last_day"] = r["day"]  # rows come oldest first
        entry["last_rating"] = RATING_NAMES.get(r["rating"])
    return {
        "attempts": len(rows),
        "ratings": ratings,
        "prompts_practised": len(prompts),
        "prompts": [prompts[k] for k in sorted(prompts)],
    }


def _streak_section(attempts: list, today: str) -> dict[str, Any]:
    active = sorted({r["day"] for r in attempts if r["outcome"] not in NOT_WORK})
    longest = run = 0
    previous = None
    for day in active:
        run = run + 1 if previous is not None and _shift(previous, 1) == day else 1
        longest = max(longest, run)
        previous = day
    days = set(active)
    cursor = today if today in days else _shift(today, -1)
    current = 0
    while cursor in days:
        current += 1
        cursor = _shift(cursor, -1)
    return {"current": current, "longest": longest, "active_days": len(active),
            "last_active_day": active[-1] if active else None}


def _due_section(history, cards: dict, now: float, today: str) -> dict[str, Any]:
    horizon = [_shift(today, i) for i in range(FORECAST_DAYS)]
    counts = dict.fromkeys(horizon, 0)
    drill_times = drill_due_times(history)
    kinds = {"drill": (drill_times, "template:"), "interview": (interview_due_times(history), "interview:")}
    out: dict[str, Any] = {}
    beyond = later_today = 0
    for kind, (times, prefix) in kinds.items():
        due_now = sum(at <= now for at in times.values())
        out[kind] = {"now": due_now, "scheduled": len(times),
                     "new_today": sum(1 for key, row in cards.items()
                                      if key.startswith(prefix) and row["introduced_day"] == today)}
        for at in times.values():
            day = max(local_day(at), today)
            if day in counts:
                counts[day] += 1
                later_today += at > now and day == today
            else:
                beyond += 1
    return {"now": out["drill"]["now"] + out["interview"]["now"], "later_today": later_today,
            "next_at": next_due(drill_times, now),
            "scheduled": out["drill"]["scheduled"] + out["interview"]["scheduled"],
            "new_today": out["drill"]["new_today"] + out["interview"]["new_today"],
            "drill": out["drill"], "interview": out["interview"],
            "forecast": [{"day": d, "count": counts[d]} for d in horizon], "after_forecast": beyond}


def _misconception_section(attempts: list) -> tuple[list[dict[str, Any]], int]:
    rows = [r for r in attempts if not _is_interview(r)]  # oldest first: the index is the order of events
    correct_at: dict[str, list[int]] = defaultdict(list)
    hits: dict[str, dict[str, Any]] = {}
    for i, r in enumerate(rows):
        if r["outcome"] == "correct":
            correct_at[r["template"]].append(i)
        tag = r["misconception"]
        if not tag:
            continue
        entry = hits.setdefault(tag, {"tag": tag, "label": None, "hits": 0, "last_hit": None,
                                      "templates": set(), "_last": -1})
        entry["hits"] += 1
        entry["label"] = r["misconception_label"] or entry["label"]
        entry["last_hit"] = r["day"]
        entry["templates"].add(r["template"])
        entry["_last"] = i
    out = []
    for entry in hits.values():
        last = entry.pop("_last")
        entry["corrected"] = any(i > last for t in entry["templates"] for i in correct_at.get(t, ()))
        entry["templates"] = sorted(entry["templates"])
        entry["label"] = entry["label"] or entry["tag"]
        out.append((entry, last))
    out.sort(key=lambda pair: (pair[0]["corrected"], -pair[0]["hits"], -pair[1], pair[0]["tag"]))
    return [entry for entry, _ in out[:TOP_MISCONCEPTIONS]], len(out)


def _mock_section(mocks: list) -> dict[str, Any]:
    history = []
    paused = []
    unfinished = 0
    for row, state in mocks:
        result = state.result
        if not isinstance(result, dict):
            unfinished += 1
            if row["status"] in PAUSED_STATUSES:
                paused.append({
                    "number": state.number,
                    "session_id": state.session_id,
                    "exam": state.exam,
                    "day": local_day(float(row["started_at"])),
                    "answered": len(state.answers),
                    "marked": len(state.marked),
                    "questions": len(state.paper),
                    "seconds_left": math.floor(state.remaining * 10) / 10,   # down, as the countdown shows it
                    "minutes_allowed": state.minutes,
                })
            continue
        at = result.get("submitted_at") or row["ended_at"] or row["started_at"]
        score = float(result.get("score") or 0)
        top = float(result.get("max") or 0)
        history.append({
            "number": state.number,
            "session_id": state.session_id,
            "exam": state.exam,
            "day": local_day(float(at)),
            "score": score,
            "max": top,
            "percent": mock_percent(result),
            "negative": float(result.get("negative") or 0),
            "correct": int(result.get("correct") or 0),
            "answered": int(result.get("answered") or 0),
            "questions": int(result.get("questions") or len(state.paper)),
            "status": result.get("status") or row["status"],
            "minutes": round(float(result.get("seconds") or state.elapsed or 0) / 60, 1),
            "minutes_allowed": state.minutes,
        })
    scored = [m for m in history if m["percent"] is not None]
    best = max(scored, key=lambda m: exact_percent(m["score"], m["max"])) if scored else None  # the first of equals
    change = None
    if len(scored) >= 2:
        last, before = (exact_percent(m["score"], m["max"]) for m in scored[-2:][::-1])
        change = one_place(last - before)
    return {"history": history, "best": best, "last": history[-1] if history else None,
            "change": change, "unfinished": unfinished, "paused": paused}


def _exam_section(history, cards: dict, now: float) -> dict[str, Any] | None:
    from quizforge.practice.exam import EXAM_SETTING, exam_from_settings

    plan = exam_from_settings(history.setting(EXAM_SETTING))
    if plan is None:
        return None
    from fsrs import Card

    from quizforge.bank.registry import all_templates
    from quizforge.practice.scheduler import scheduler_for, template_key

    scheduler = scheduler_for(history)
    names = _topics()
    by_topic: dict[str, list[float | None]] = defaultdict(list)
    for template in all_templates():
        row = cards.get(template_key(template.id))
        by_topic[template.topic].append(
            plan.recall(scheduler, Card.from_dict(json.loads(row["card"]))) if row is not None else None)

    def summary(recalls: list[float | None]) -> dict[str, Any]:
        known = [r for r in recalls if r is not None]
        return {"templates": len(recalls), "introduced": len(known),
                "recall": round(sum(known) / len(known), 4) if known else None,
                "below_target": sum(r < plan.target for r in known)}

    order = [t for t in names if t in by_topic] + sorted(t for t in by_topic if t not in names)
    every = [r for t in order for r in by_topic[t]]
    overall = summary(every)
    return {"date": plan.day.isoformat(), "days_left": plan.days_left(now), "target": plan.target,
            "recall": overall["recall"], "below_target": overall["below_target"],
            "topics": [{"topic": t, "title": names.get(t, t)} | summary(by_topic[t]) for t in order]}


def _fitted_section(history) -> dict[str, Any] | None:
    saved = history.setting("fsrs_parameters")
    return {"reviews": saved.get("reviews")} if isinstance(saved, dict) else None


# --- entry point -----------------------------------------------------------

def compute_stats(history, now: float | None = None, *, days: int = 30) -> dict[str, Any]:
    """Everything `quiz stats` shows, as JSON-able data (see the module docstring)."""
    if now is None:
        now = time.time()
    days = max(1, int(days))
    today = local_day(now)
    attempts = history.attempts()
    sessions = history.sessions()
    cards = history.cards()
    mocks = history.mocks()
    misconceptions, distinct = _misconception_section(attempts)
    stats = {
        "today": today,
        "days": days,
        "window": {"first": _shift(today, -(days - 1)), "last": today},
        "empty": not attempts and not cards and not mocks,
        "totals": _totals(attempts, sessions),
        "topics": _topic_section(attempts, today, days),
        "interview": _interview_section(attempts),
        "streak": _streak_section(attempts, today),
        "due": _due_section(history, cards, now, today),
        "misconceptions": misconceptions,
        "misconceptions_total": distinct,
        "mocks": _mock_section(mocks),
        "exam": _exam_section(history, cards, now),
        "fitted": _fitted_section(history),
    }
    # Plain data all the way down: what --json prints is exactly this.
    return json.loads(json.dumps(stats))
