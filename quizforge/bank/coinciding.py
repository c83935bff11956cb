"""Misconceptions whose wrong formulas give the same number, merged into one.

When two mistakes produce the same value, an answer with that value cannot say which
mistake was made; the feedback names every one that matches instead of guessing.
"""

from __future__ import annotations

from quizforge.answers.question_keys import values_match
from quizforge.bank.question import Misconception


def merge_coinciding(misconceptions: list[Misconception | None], decimals: int | None = None,
                     rel_tol: float | None = None) -> list[Misconception]:
    """Drop the Nones; merge misconceptions whose values the key's precision cannot tell apart."""
    groups: list[list[Misconception]] = []
    for m in misconceptions:
        if m is None or m.value is None:
            continue
        for group in groups:
            if values_match(group[0].value, m.value, decimals=decimals, rel_tol=rel_tol):
                group.append(m)
                break
        else:
            groups.append([m])
    merged = []
    for group in groups:
        if len(group) == 1:
            merged.append(group[0])
            continue
        first = group[0]
        merged.append(Misconception(
            first.tag, " or ".join(m.label for m in group),
            "that number matches more than one mistake: " + "; or ".join(f"{m.label} ({m.feedback})" for m in group),
            first.value, tuple(v for m in group for v in m.values)[1:]))
    return merged
