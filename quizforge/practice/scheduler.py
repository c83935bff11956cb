"""What to ask next, and how an answer moves the schedule: FSRS cards over the bank.

One card per template (`template:<id>`), one per misconception the learner has hit
(`misconception:<tag>`, reviewed whenever a question that can reveal it is answered),
and one per interview prompt (`interview:<id>`). Every due review comes first (see
`due.py`: most overdue first, then templates whose misconception is due), then new
templates under a daily limit. A topic or template asked for by name introduces its
new templates past that limit ("extra"). When nothing else is left, the soonest card
is reviewed early, unless the limit is 0: that asks for reviews only, so nothing more
is asked. Within a session an item asked already comes back only when every other
item is asked too, the one asked longest ago first.

With an exam date (exam.py), the daily limit is the pace that introduces every template
in scope in time, and a review falling after the exam is brought forward. Parameters
fitted by `quiz stats --fit` (fit.py) replace FSRS's defaults.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Sequence

from fsrs import Card, Rating, Scheduler

from quizforge.practice.due import DueReviews, due_reviews
from quizforge.practice.exam import ExamPlan, ExamProgress, local_date
from quizforge.practice.store import History, local_day

NEW_PER_DAY = 10
FAST_SECONDS_PER_MARK = 40   # a first-try answer quicker than this per mark is rated Easy

RATING_NAMES = {Rating.Again: "Again", Rating.Hard: "Hard", Rating.Good: "Good", Rating.Easy: "Easy"}


def rating_for(correct: bool, *, tries: int, hints: int, seconds: float, marks: int) -> Rating:
    """How a graded answer maps to FSRS: wrong → Again; right with help or retries → Hard;
    right → Good; right, first time, unaided and fast → Easy."""
    if not correct:
        return Rating.Again
    if hints or tries > 1:
        return Rating.Hard
    if seconds <= FAST_SECONDS_PER_MARK * max(marks, 1):
        return Rating.Easy
    return Rating.Good


def _utc(at: float) -> datetime:
    return datetime.fromtimestamp(at, tz=timezone.utc)


def template_key(template_id: str) -> str:
    return f"template:{template_id}"


def misconception_key(tag: str) -> str:
    return f"misconception:{tag}"


def interview_key(prompt_id: str) -> str:
    return f"interview:{prompt_id}"


@dataclass(frozen=True)
class Pick:
    item: str      # a template id, or an interview prompt id
    reason: str    # due | remedial | new | extra (new, past the daily limit) | ahead
    seed: int


FITTED = "fsrs_parameters"   # the history's setting holding `quiz stats --fit`'s parameters


def scheduler_for(history) -> Scheduler:
    """FSRS with the learner's fitted parameters when `quiz stats --fit` saved some, else its defaults."""
    saved = history.setting(FITTED)
    if isinstance(saved, dict) and isinstance(saved.get("parameters"), list):
        try:
            return Scheduler(parameters=[float(p) for p in saved["parameters"]])
        except (TypeError, ValueError):
            pass   # parameters from another FSRS version: the defaults serve
    return Scheduler()


class Planner:
    """Chooses the next item among `items` (template or prompt ids, in teaching order).

    `every_template`: due reviews are counted over every template, not only `items`, as
    `quiz stats` counts them (an unfiltered drill), so the two numbers agree."""

    def __init__(self, history: History, items: Sequence[str], *, key=template_key,
                 new_per_day: int | None = NEW_PER_DAY, light: Iterable[str] = (), every_template: bool = False,
                 named: bool = False, exam: ExamPlan | None = None):
        """`new_per_day` None: the exam's pace sets it (NEW_PER_DAY without an exam). `named`: the
        learner asked for these items by name, so new ones come past the daily limit."""
        self.history = history
        self.items = list(items)
        self.key = key
        self.exam = exam
        self.paced = new_per_day is None and exam is not None
        self.new_per_day = NEW_PER_DAY if new_per_day is None else new_per_day
        self.named = named
        self.light = set(light)
        self.scope = None if every_template else self.items
        self.scheduler = scheduler_for(history)

    def reviews(self, now: float) -> DueReviews:
        """The reviews due now, in the order they are served, and when the next one falls due."""
        if self.key is template_key:
            return due_reviews(self.history, now, self.scope)
        cards = self.history.cards()
        own = sorted((float(cards[self.key(i)]["due_at"]), i) for i in self.items if self.key(i) in cards)
        return DueReviews([(i, "due") for at, i in own if at <= now], next((at for at, _ in own if at > now), None))

    def daily_limit(self, now: float) -> int:
        """New items allowed today: --new-per-day, or with an exam date the pace that meets it."""
        if not self.paced or not self.exam.active(now):
            return self.new_per_day
        today = local_day(now)
        cards = self.history.cards()
        left = sum(1 for i in self.items
                   if self.key(i) not in cards or cards[self.key(i)]["introduced_day"] == today)
        return self.exam.pace(now, left)

    def new_left(self, now: float) -> int:
        """How many new items may still be introduced today."""
        today = local_day(now)
        prefix = self.key("")   # this planner's own cards: drill and interview keep separate limits
        cards = self.history.cards()
        if self.paced and self.exam.active(now):   # the pace is over the scope, so is today's count
            introduced = sum(1 for i in self.items
                             if self.key(i) in cards and cards[self.key(i)]["introduced_day"] == today)
        else:
            introduced = sum(1 for key, row in cards.items() if row["introduced_day"] == today and key.startswith(prefix))
        return max(0, self.daily_limit(now) - introduced)

    def exam_progress(self, now: float) -> ExamProgress | None:
        """How many templates in scope are still to be introduced before the exam, and at what pace."""
        if self.exam is None:
            return None
        cards = self.history.cards()
        left = sum(1 for i in self.items if self.key(i) not in cards)
        today = local_day(now)
        before_today = left + sum(1 for i in self.items
                                  if self.key(i) in cards and cards[self.key(i)]["introduced_day"] == today)
        pace = self.exam.pace(now, before_today) if self.exam.active(now) else 0
        return ExamProgress(self.exam.day, self.exam.days_left(now), left, pace)

    def next(self, now: float, exclude: Iterable[str] = (), prefer_light: bool = False) -> Pick | None:
        """The next item, or None when nothing is due, no new item is allowed and early
        reviews are off (a daily limit of 0).

        `exclude`: the items asked in this session, in the order asked (a set when the order is
        unknown); they come back only once every other item is asked, longest ago first."""
        cards = self.history.cards()
        asked = list(dict.fromkeys(reversed(list(exclude))))[::-1]   # each item where it was last asked
        fresh = [i for i in self.items if i not in set(asked)]
        # Repeats, longest ago first; the one just asked only when no other can be asked.
        again = [i for i in asked if i in set(self.items)]
        for candidates, ordered in ((fresh, False), (again[:-1], True), (again[-1:], True)):
            pick = self._pick(now, cards, candidates, ordered=ordered, prefer_light=prefer_light) if candidates else None
            if pick is not None:
                return pick
        return None

    def _pick(self, now: float, cards, candidates: list[str], *, ordered: bool, prefer_light: bool) -> Pick | None:
        """The next of `candidates`: due reviews, then new, then extra, then early reviews. `ordered`:
        within a group, the candidates' own order comes first (repeats, longest ago first)."""
        rank = {item: n for n, item in enumerate(candidates)}
        reviews = [(i, reason) for i, reason in self.reviews(now).items if i in rank]
        unseen = [i for i in candidates if self.key(i) not in cards]
        new = [(i, "new") for i in unseen] if self.new_left(now) else []
        extra = [(i, "extra") for i in unseen] if self.named and self.new_per_day > 0 and not new else []
        ahead: list[tuple[str, str]] = []
        if not reviews and not new and not extra and self.new_per_day > 0:
            # Past the new limit: review early, the soonest due first.
            ahead = [(i, "ahead") for _, i in sorted((cards[self.key(i)]["due_at"], i)
                                                     for i in candidates if self.key(i) in cards)]
        for group in (reviews, new, extra, ahead):   # a whole group is served before the next one starts
            if not group:
                continue
            if ordered:
                group = sorted(group, key=lambda pair: rank[pair[0]])
            if prefer_light:
                # Nothing heavy is loaded yet: a light item now, the heavy ones once torch is warm.
                group = [c for c in group[:5] if c[0] in self.light] or group
            item, reason = group[0]
            return Pick(item, reason, secrets.randbelow(0x10000))
        return None

    # --- reviewing ----------------------------------------------------------

    def _review(self, key: str, rating: Rating, at: float, attempt_id: int | None, db) -> None:
        saved = self.history.card(key)
        card = Card.from_dict(saved) if saved else Card(due=_utc(at))
        card, log = self.scheduler.review_card(card, rating, review_datetime=_utc(at))
        if self.exam is not None:
            earlier = self.exam.due_before_exam(self.scheduler, card, at, self._later_review_days(key, saved, at))
            if earlier is not None:
                card.due = _utc(earlier)
        self.history.save_card(key, card.to_dict(), card.due.timestamp(), at, db)
        self.history.record_review(key, attempt_id, int(rating), log.to_dict(), at, db)

    def _later_review_days(self, key: str, saved: dict | None, at: float) -> int:
        """Local days after the card's first review on which it was reviewed, this one included."""
        if saved is None:
            return 0
        times = self.history.card_reviews(key) + [at]
        first = local_date(times[0])
        return len({local_date(t) for t in times} - {first})

    def review(self, item: str, rating: Rating, at: float, attempt_id: int | None, db,
               *, hit: str | None = None, watched: Iterable[str] = ()) -> None:
        """Move the item's card, and the cards of misconceptions this question could reveal:
        the one hit gets Again; ones already tracked and avoided get Good."""
        self._review(self.key(item), rating, at, attempt_id, db)
        for tag in set(watched):
            key = misconception_key(tag)
            if tag == hit:
                self._review(key, Rating.Again, at, attempt_id, db)
            elif rating != Rating.Again and self.history.card(key) is not None:
                self._review(key, Rating.Good, at, attempt_id, db)
        if hit and hit not in set(watched):
            self._review(misconception_key(hit), Rating.Again, at, attempt_id, db)
