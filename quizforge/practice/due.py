"""What is due, and when: the one definition behind every "due" a learner reads.

The drill serves due reviews in this order before any new template, its header and its
end-of-session line count them, and `quiz stats` (table, forecast and --json) reports the
same numbers. A review is a template to ask again, because either its own card is due
("due", most overdue first) or a misconception it revealed has a card that is due
("remedial", most recently hit first). A template due for both reasons counts once, and
it falls due at the sooner of the two times. Interview prompts are reviewed in `quiz
practice --interview`; each has one card and falls due when that card does.

Plain reads of the history (no fsrs, rich, torch or sympy), so `quiz stats` stays light.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

TEMPLATE = "template:"
MISCONCEPTION = "misconception:"
INTERVIEW = "interview:"


@dataclass(frozen=True)
class DueReviews:
    items: list[tuple[str, str]]   # (template id, "due" | "remedial"), in the order they are served
    next_at: float | None          # when the soonest review not due yet falls due; None if none is scheduled

    @property
    def count(self) -> int:
        return len(self.items)


@dataclass(frozen=True)
class _Drill:
    own: dict[str, float]                     # template -> its own card's due time
    remedial: dict[str, list[tuple[float, float]]]   # template -> (tag's due time, last hit there) per tag

    def due_at(self, template: str) -> float:
        times = [at for at, _ in self.remedial.get(template, ())]
        if template in self.own:
            times.append(self.own[template])
        return min(times)

    def templates(self) -> set[str]:
        return set(self.own) | set(self.remedial)


def _drill(history, scope: Iterable[str] | None) -> _Drill:
    chosen = None if scope is None else set(scope)

    def wanted(template: str) -> bool:
        return chosen is None or template in chosen

    cards = history.cards()
    own = {key[len(TEMPLATE):]: float(row["due_at"]) for key, row in cards.items()
           if key.startswith(TEMPLATE) and wanted(key[len(TEMPLATE):])}
    tags = {key[len(MISCONCEPTION):]: float(row["due_at"]) for key, row in cards.items()
            if key.startswith(MISCONCEPTION)}
    remedial: dict[str, list[tuple[float, float]]] = {}
    for tag, template, hit_at in history.misconception_templates(list(tags)):
        if wanted(template):
            remedial.setdefault(template, []).append((tags[tag], hit_at))
    return _Drill(own, remedial)


def drill_due_times(history, scope: Iterable[str] | None = None) -> dict[str, float]:
    """When each scheduled template's review falls due (in the past when it is due now)."""
    drill = _drill(history, scope)
    return {t: drill.due_at(t) for t in drill.templates()}


def interview_due_times(history) -> dict[str, float]:
    """When each interview prompt's review falls due."""
    return {key[len(INTERVIEW):]: float(row["due_at"]) for key, row in history.cards().items()
            if key.startswith(INTERVIEW)}


def due_reviews(history, now: float, scope: Iterable[str] | None = None) -> DueReviews:
    """The reviews due at `now` among the templates in `scope` (every template when None)."""
    drill = _drill(history, scope)
    own_due = sorted((at, t) for t, at in drill.own.items() if at <= now)
    items = [(t, "due") for _, t in own_due]
    served = {t for _, t in own_due}
    # remedial: most recent hit of a misconception that is due now
    hit_at = {t: max(hit for at, hit in pairs if at <= now) for t, pairs in drill.remedial.items()
              if t not in served and any(at <= now for at, _ in pairs)}
    items += [(t, "remedial") for t in sorted(hit_at, key=lambda t: (-hit_at[t], t))]
    return DueReviews(items, next_due({t: drill.due_at(t) for t in drill.templates()}, now))


def next_due(times: dict[str, float], now: float) -> float | None:
    """When the soonest review not yet due at `now` falls due; None when none is scheduled."""
    return min((at for at in times.values() if at > now), default=None)
