"""Planning toward an exam date: FSRS's predicted recall on exam day, and the pace of new templates.

The exam day starts at local midnight on the exam date; "exam-day recall" is FSRS's
retrievability of a card at that moment (py-fsrs's `get_card_retrievability`, which
counts whole days). Two rules follow from it:

- after a review, a card whose next due date falls on or after the exam day is brought
  forward, to the start of the day its predicted recall falls below the target, so that
  it is reviewed again before the exam; a card reviewed on fewer than REVIEW_DAYS later
  days since it was introduced comes back early enough to leave a day for each review
  still needed; and a review due on a later day falls due at the start of that day, so
  a learner who practises at any hour of it is asked;
- new templates are introduced at a pace that finishes REVIEW_DAYS days before the exam.

Plain arithmetic over fsrs's Card and Scheduler: no torch, numpy or sympy.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone

from quizforge.errors import InputError

DEFAULT_TARGET = 0.9
REVIEW_DAYS = 2      # days kept after the last new template, for its two reviews
DAY = 86400.0


def day_start(day: date) -> float:
    """Local midnight at the start of `day`, in unix seconds."""
    return time.mktime((day.year, day.month, day.day, 0, 0, 0, 0, 0, -1))


def local_date(at: float) -> date:
    return date.fromtimestamp(at)


def parse_exam_date(text: str, now: float) -> date:
    """'2027-02-07' → the date; a date that is not ISO, or has passed, is a one-line error."""
    try:
        day = date.fromisoformat(text.strip())
    except ValueError:
        raise InputError(f"--exam-date {text!r}: write the date as YYYY-MM-DD, e.g. 2027-02-07") from None
    if day <= local_date(now):
        raise InputError(f"--exam-date {text}: the exam must be after today ({local_date(now).isoformat()})")
    return day


@dataclass(frozen=True)
class ExamPlan:
    day: date
    target: float = DEFAULT_TARGET

    @property
    def starts_at(self) -> float:
        return day_start(self.day)

    def days_left(self, now: float) -> int:
        """Whole days from today to the exam day: 1 the day before, 0 on the day."""
        return (self.day - local_date(now)).days

    def active(self, now: float) -> bool:
        return self.days_left(now) > 0

    def pace(self, now: float, to_introduce: int) -> int:
        """New templates a day so that `to_introduce` (those left at the start of today) are all
        introduced REVIEW_DAYS days before the exam; on the last days, all that are left."""
        if to_introduce <= 0:
            return 0
        days = max(1, self.days_left(now) - REVIEW_DAYS)
        return math.ceil(to_introduce / days)

    def recall(self, scheduler, card) -> float:
        """FSRS's predicted recall of `card` at the start of exam day (0 for a card never reviewed)."""
        return float(scheduler.get_card_retrievability(card, _utc(self.starts_at)))

    def due_before_exam(self, scheduler, card, at: float, later_review_days: int) -> float | None:
        """The due time this plan moves `card` to after a review at `at`, or None to keep FSRS's.

        `later_review_days`: the local days, after the day it was introduced, on which the card
        has been reviewed (this review included)."""
        exam = self.starts_at
        due = card.due.timestamp()
        tomorrow = day_start(local_date(at) + timedelta(days=1))
        if at >= exam or tomorrow >= exam or due < tomorrow:
            return None   # the exam has come, no day is left before it, or FSRS asks again today
        options = []
        if due < exam:
            options.append(day_start(local_date(due)))   # its day, whatever hour the learner practises
        need = max(0, REVIEW_DAYS - later_review_days)
        if need:   # the latest day that leaves a day for each review still needed
            options.append(day_start(self.day - timedelta(days=need)))
        if due >= exam and self.recall(scheduler, card) < self.target:
            # The first whole day on which recall falls below the target, as fsrs counts days.
            last = _utc(card.last_review.timestamp() if card.last_review else at)
            days = 1
            while scheduler.get_card_retrievability(card, last + timedelta(days=days)) >= self.target:
                days += 1
            options.append(day_start(local_date((last + timedelta(days=days)).timestamp())))
        if not options:
            return None
        return min(max(min(options), tomorrow), day_start(self.day - timedelta(days=1)))


def _utc(at: float) -> datetime:
    return datetime.fromtimestamp(at, tz=timezone.utc)


@dataclass(frozen=True)
class ExamProgress:
    """What the drill's header says about the exam."""
    day: date
    days_left: int
    left: int          # templates in scope not yet introduced
    pace: int          # new templates a day to introduce them in time


def exam_from_settings(saved: dict | None) -> ExamPlan | None:
    """The plan saved in the history (see History.setting("exam")), or None."""
    if not saved:
        return None
    try:
        return ExamPlan(date.fromisoformat(saved["date"]), float(saved.get("target", DEFAULT_TARGET)))
    except (KeyError, TypeError, ValueError):
        return None


EXAM_SETTING = "exam"


def remember_exam(history, exam_date: str | None, target: float | None, now: float) -> ExamPlan | None:
    """The plan to practise toward: `exam_date` (or "off") and `target` as given, saved in the
    history for later sessions; the saved plan when neither is given."""
    saved = exam_from_settings(history.setting(EXAM_SETTING))
    if exam_date is not None and exam_date.strip().lower() == "off":
        if target is not None:
            raise InputError("--target-retention needs an exam date; --exam-date off forgets it")
        history.save_setting(EXAM_SETTING, None, now)
        return None
    if exam_date is None and target is None:
        return saved
    if exam_date is None and saved is None:
        raise InputError("--target-retention needs an exam date: add --exam-date YYYY-MM-DD")
    day = parse_exam_date(exam_date, now) if exam_date is not None else saved.day
    chosen = target if target is not None else saved.target if saved and saved.day == day else DEFAULT_TARGET
    plan = ExamPlan(day, chosen)
    history.save_setting(EXAM_SETTING, {"date": day.isoformat(), "target": chosen}, now)
    return plan
