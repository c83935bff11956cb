"""GATE marking (`gate_score`): a wrong MCQ costs a third of its marks, MSQ and NAT are
all-or-nothing with no negative marks, an unattempted question scores 0.
"""

from __future__ import annotations

from fractions import Fraction

from quizforge.answers.keys import key_number

KINDS = ("MCQ", "MSQ", "NAT")

def gate_score_exact(kind: str, marks: int | Fraction | float, correct: bool | None) -> Fraction:
    """GATE marks for one question: +marks when correct, 0 when unattempted (None);
    when wrong, −marks/3 for an MCQ and 0 for an MSQ or NAT."""
    if not isinstance(kind, str) or kind.upper() not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    m = Fraction(key_number(marks, "marks"))
    if m <= 0:
        raise ValueError(f"marks must be positive, not {marks}")
    if correct is None:
        return Fraction(0)
    if correct is True:
        return m
    if correct is False:
        return -m / 3 if kind.upper() == "MCQ" else Fraction(0)
    raise TypeError(f"correct must be True, False or None, not {correct!r}")


def gate_score(kind: str, marks: int | Fraction | float, correct: bool | None) -> float:
    """gate_score_exact as a float: a wrong 1-mark MCQ gives -1/3 = -0.333…"""
    return float(gate_score_exact(kind, marks, correct))
