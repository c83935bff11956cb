"""What to ask next, and how an answer moves the schedule: FSRS cards over the bank.

One card per template (`template:<id>`), one per misconception the learner has hit
(`misconception:<tag>`, reviewed whenever a question that can reveal it is answered),
and one per interview prompt (`interview:<id>`). Every due review comes first (see
`due.py`: most overdue first, then templates whose misconception is due), then new
templates under a daily limit. When neither is left, the soonest card is reviewed
early, unless the limit is 0: that asks for reviews only, so nothing more is asked.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Sequence

from fsrs import Card, Rating, Scheduler

from quizforge.practice.due import DueReviews, due_reviews
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
    reason: str    # due | remedial | new | ahead
    seed: int


class Planner:
    """Chooses the next item among `items` (template or prompt ids, in teaching order).

    `every_template`: due reviews are counted over every template, not only `items`, as
    `quiz stats` counts them (an unfiltered drill), so the two numbers agree."""

    def __init__(self, history: History, items: Sequence[str], *, key=template_key,
                 new_per_day: int = NEW_PER_DAY, light: Iterable[str] = (), every_template: bool = False):
        self.history = history
        self.items = list(items)
        self.key = key
        self.new_per_day = new_per_day
        self.light = set(light)
        self.scope = None if every_template else self.items
        self.scheduler = Scheduler()

    def reviews(self, now: float) -> DueReviews:
        """The reviews due now, in the order they are served, and when the next one falls due."""
        if self.key is template_key:
            return due_reviews(self.history, now, self.scope)
        cards = self.history.cards()
        own = sorted((float(cards[self.key(i)]["due_at"]), i) for i in self.items if self.key(i) in cards)
        return DueReviews([(i, "due") for at, i in own if at <= now], next((at for at, _ in own if at > now), None))

    def new_left(self, now: float) -> int:
        """How many new items may still be introduced today."""
        today = local_day(now)
        prefix = self.key("")   # this planner's own cards: drill and interview keep separate limits
        introduced = sum(1 for key, row in self.history.cards().items()
                         if row["introduced_day"] == today and key.startswith(prefix))
        return max(0, self.new_per_day - introduced)

    def next(self, now: float, exclude: set[str] = frozenset(), prefer_light: bool = False) -> Pick | None:
        """The next item, or None when nothing is due, no new item is allowed and early
        reviews are off (a daily limit of 0)."""
        cards = self.history.cards()
        fresh = [i for i in self.items if i not in exclude]
        if not fresh:
            fresh = list(self.items)   # every item asked already this session: allow repeats
        allowed = set(fresh)
        reviews = [(i, reason) for i, reason in self.reviews(now).items if i in allowed]
        new = [(i, "new") for i in fresh if self.key(i) not in cards] if self.new_left(now) else []
        ahead: list[tuple[str, str]] = []
        if not reviews and not new and self.new_per_day > 0:
            # Past the new limit: review early, preferring items not yet seen in this session.
            soonest = (sorted((cards[self.key(i)]["due_at"], i) for i in fresh if self.key(i) in cards)
                       or sorted((cards[self.key(i)]["due_at"], i) for i in self.items if self.key(i) in cards))
            ahead = [(i, "ahead") for _, i in soonest]
        for group in (reviews, new, ahead):   # a whole group is served before the next one starts
            if not group:
                continue
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
        self.history.save_card(key, card.to_dict(), card.due.timestamp(), at, db)
        self.history.record_review(key, attempt_id, int(rating), log.to_dict(), at, db)

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
