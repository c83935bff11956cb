"""What to ask next, and how an answer moves the schedule: FSRS cards over the bank.

One card per template (`template:<id>`), one per misconception the learner has hit
(`misconception:<tag>`, reviewed whenever a question that can reveal it is answered),
and one per interview prompt (`interview:<id>`). Due reviews come first, then new
templates under a daily limit; when neither is left, the soonest card is reviewed early.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Iterable, Sequence

from fsrs import Card, Rating, Scheduler

from quizforge.practice.store import History, local_day

NEW_PER_DAY = 10
NEW_EVERY = 4                # with reviews due, one question in four is a new template
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
    """Chooses the next item among `items` (template or prompt ids, in teaching order)."""

    def __init__(self, history: History, items: Sequence[str], *, key=template_key,
                 new_per_day: int = NEW_PER_DAY, light: Iterable[str] = ()):
        self.history = history
        self.items = list(items)
        self.key = key
        self.new_per_day = new_per_day
        self.light = set(light)
        self.scheduler = Scheduler()

    def _remedial(self, cards: dict, now: float) -> list[str]:
        """Items where a misconception now due was hit, most recent first."""
        due_tags = [k.split(":", 1)[1] for k, row in cards.items()
                    if k.startswith("misconception:") and row["due_at"] <= now]
        return [t for t in self.history.templates_with_misconceptions(due_tags) if t in self.items]

    def next(self, now: float, exclude: set[str] = frozenset(), prefer_light: bool = False,
             position: int = 0) -> Pick | None:
        """The next item. `position` is how many were asked this session: every NEW_EVERY-th
        slot goes to a new item when one is allowed, so a backlog of reviews never starves them."""
        cards = self.history.cards()
        fresh = [i for i in self.items if i not in exclude]
        if not fresh:
            fresh = list(self.items)   # every item asked already this session: allow repeats
        due = sorted((cards[self.key(i)]["due_at"], i) for i in fresh
                     if self.key(i) in cards and cards[self.key(i)]["due_at"] <= now)
        candidates: list[tuple[str, str]] = [(i, "due") for _, i in due]
        candidates += [(i, "remedial") for i in self._remedial(cards, now) if i in fresh]
        today = local_day(now)
        prefix = self.key("")   # this planner's own cards: drill and interview keep separate limits
        introduced_today = sum(1 for key, row in cards.items()
                               if row["introduced_day"] == today and key.startswith(prefix))
        if introduced_today < self.new_per_day:
            new = [(i, "new") for i in fresh if self.key(i) not in cards]
            candidates = new[:1] + candidates + new[1:] if position % NEW_EVERY == NEW_EVERY - 1 else candidates + new
        if not candidates:
            # Past the new limit: review early, preferring items not yet seen in this session.
            ahead = (sorted((cards[self.key(i)]["due_at"], i) for i in fresh if self.key(i) in cards)
                     or sorted((cards[self.key(i)]["due_at"], i) for i in self.items if self.key(i) in cards))
            candidates = [(i, "ahead") for _, i in ahead] or [(i, "new") for i in fresh]
        if prefer_light:
            # Nothing heavy is loaded yet: a light item now, the heavy ones once torch is warm.
            light = [c for c in candidates[:5] if c[0] in self.light]
            if light:
                candidates = light
        item, reason = candidates[0]
        return Pick(item, reason, secrets.randbelow(0x10000))

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

    def due_count(self, now: float) -> int:
        cards = self.history.cards()
        return sum(1 for i in self.items if self.key(i) in cards and cards[self.key(i)]["due_at"] <= now)
