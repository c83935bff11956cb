"""Which drill reviews are due: the one definition behind every "due" a learner reads.

The drill serves these in this order before any new template, its header and its
end-of-session line count them, and `quiz stats` (table and --json) reports the same
number. A review is a template to ask again, because either its own card is due
("due", most overdue first) or a misconception it revealed has a card that is due
("remedial", most recently hit first). A template due for both reasons counts once.

Plain reads of the history (no fsrs, rich, torch or sympy), so `quiz stats` stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

TEMPLATE = "template:"
MISCONCEPTION = "misconception:"


@dataclass(frozen=True)
class DueReviews:
    items: list[tuple[str, str]]   # (template id, "due" | "remedial"), in the order they are served
    next_at: float | None          # when the soonest review not due yet falls due; None if none is scheduled

    @property
    def count(self) -> int:
        return len(self.items)


def due_reviews(history, now: float, scope: Iterable[str] | None = None) -> DueReviews:
    """The reviews due at `now` among the templates in `scope` (every template when None)."""
    chosen = None if scope is None else set(scope)

    def wanted(template: str) -> bool:
        return chosen is None or template in chosen

    cards = history.cards()
    own = sorted((float(row["due_at"]), key[len(TEMPLATE):]) for key, row in cards.items()
                 if key.startswith(TEMPLATE) and wanted(key[len(TEMPLATE):]))
    items = [(t, "due") for at, t in own if at <= now]

    tags = {key[len(MISCONCEPTION):]: float(row["due_at"]) for key, row in cards.items()
            if key.startswith(MISCONCEPTION)}
    hit_at: dict[str, float] = {}        # template → when a misconception now due was last hit on it
    later: list[tuple[float, str]] = []  # (when, template) for reviews not due yet
    for tag, template, at in history.misconception_templates(list(tags)):
        if not wanted(template):
            continue
        if tags[tag] <= now:
            hit_at[template] = max(hit_at.get(template, at), at)
        else:
            later.append((tags[tag], template))
    served = {t for t, _ in items}
    items += [(t, "remedial") for t in sorted(hit_at, key=lambda t: (-hit_at[t], t)) if t not in served]
    served |= set(hit_at)
    later += [(at, t) for at, t in own if at > now]
    upcoming = [at for at, t in later if t not in served]   # a template due now is not "next" as well
    return DueReviews(items, min(upcoming) if upcoming else None)
