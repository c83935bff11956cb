"""`quiz stats --fit`: FSRS parameters fitted to the learner's own reviews by py-fsrs's optimizer.

py-fsrs fits only with enough history: it counts the reviews that fall on a later day than
the card's previous review (the first 64 of each card), and below one mini-batch (512) it
returns its defaults unchanged. Below that we say how many more are needed and change
nothing. Once fitted, the parameters are saved in the history, every card is rescheduled
with them (py-fsrs's `reschedule_card`) and every later review uses them (scheduler.py).

The optimizer runs on torch (and pandas); importing this module imports neither.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from quizforge.errors import InputError

FIRST_STABILITY = ("Again", "Hard", "Good", "Easy")   # parameters 0-3: stability after a first answer, in days
# What FSRS-6's other parameters govern (py-fsrs's Scheduler reads them by index).
ROLES = {4: "first difficulty", 5: "first difficulty", 6: "difficulty change", 7: "difficulty change",
         8: "growth after a recall", 9: "growth after a recall", 10: "growth after a recall",
         11: "stability after a lapse", 12: "stability after a lapse", 13: "stability after a lapse",
         14: "stability after a lapse", 15: "Hard's penalty", 16: "Easy's bonus", 17: "same-day reviews",
         18: "same-day reviews", 19: "same-day reviews", 20: "forgetting curve's shape"}
CHANGED = 0.005   # relative change below which a parameter is reported unchanged


@dataclass(frozen=True)
class FitResult:
    counted: int                  # reviews py-fsrs learns from
    needed: int                   # how many it needs
    before: list[float]
    after: list[float] | None     # None: not enough history, nothing changed
    rescheduled: int = 0

    @property
    def fitted(self) -> bool:
        return self.after is not None

    def changes(self) -> list[str]:
        """What changed, in words: first-answer stabilities by name, other parameters by number."""
        if self.after is None:
            return []
        lines = []
        for n, (old, new) in enumerate(zip(self.before, self.after)):
            if abs(new - old) <= CHANGED * max(abs(old), 1e-9):
                continue
            if n < len(FIRST_STABILITY):
                lines.append(f"after a first {FIRST_STABILITY[n]}, recall stays above 90% for {new:.2f} days "
                             f"(was {old:.2f})")
            else:
                role = ROLES.get(n)
                lines.append(f"w{n}{f' ({role})' if role else ''}: {old:.4f} → {new:.4f}")
        return lines


def _logs(history):
    """Every review the learner made, as py-fsrs's ReviewLogs, by card key."""
    from fsrs import ReviewLog

    by_key: dict[str, list] = {}
    for row in history.reviews():
        try:
            log = ReviewLog.from_json(row["log"])
        except (KeyError, TypeError, ValueError):
            continue   # a log this FSRS cannot read is left out, not fatal
        by_key.setdefault(row["card_key"], []).append(log)
    return by_key


def counted_reviews(logs_by_card: dict[str, list], per_card: int) -> int:
    """The reviews py-fsrs's optimizer learns from: a later day than the card's previous review,
    among each card's first `per_card` reviews."""
    total = 0
    for logs in logs_by_card.values():
        times: list[datetime] = sorted(log.review_datetime for log in logs)[:per_card]
        total += sum(1 for a, b in zip(times, times[1:]) if (b - a).days > 0)
    return total


class OptimizerMissing(InputError):
    """py-fsrs is installed without its optimizer's dependencies."""


def fit(history, now: float) -> FitResult:
    """Fit, save and reschedule when there is enough history; otherwise change nothing."""
    from fsrs import Card, Optimizer, Scheduler
    from fsrs import optimizer as fsrs_optimizer

    from quizforge.practice.scheduler import FITTED, scheduler_for

    if not hasattr(fsrs_optimizer, "max_seq_len"):  # py-fsrs defines its optimizer only where pandas and torch import
        raise OptimizerMissing("fitting needs py-fsrs's optimizer and its pandas: pip install 'fsrs[optimizer]'")
    before = [float(p) for p in scheduler_for(history).parameters]
    logs = _logs(history)
    counted = counted_reviews(logs, fsrs_optimizer.max_seq_len)
    needed = fsrs_optimizer.mini_batch_size
    if counted < needed:
        return FitResult(counted, needed, before, None)
    every_log = [log for card_logs in logs.values() for log in card_logs]
    after = [float(p) for p in Optimizer(every_log).compute_optimal_parameters()]
    scheduler = Scheduler(parameters=after)
    cards = history.cards()
    moved = 0
    with history.transaction() as db:
        history.save_setting(FITTED, {"parameters": after, "reviews": counted}, now, db)
        for key, card_logs in logs.items():
            if key not in cards:
                continue
            saved = Card.from_dict(json.loads(cards[key]["card"]))
            ours = [log for log in card_logs if log.card_id == saved.card_id]
            if not ours:
                continue
            card = scheduler.reschedule_card(saved, ours)
            history.save_card(key, card.to_dict(), card.due.timestamp(), now, db)
            moved += 1
    return FitResult(counted, needed, before, after, moved)
