"""What a question is, once its template has been applied to a seed: plain, frozen data."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, Callable

KINDS = ("MCQ", "MSQ", "NAT")
LETTERS = "abcd"
MEDIUMS = ("terminal", "paper", "fields")   # a matrix typed whole; written in boxes; typed in an LMS's fields

Number = int | Fraction | float


@dataclass(frozen=True)
class Unit:
    """The unit a NAT answer is asked in: `scale` base units (bytes, FLOPs, …) per one of it."""

    name: str          # "GiB", "million", "days"
    family: str        # unit family the answer parser accepts: "bytes", "count", "flops", "time" or "none"
    scale: Number = 1
    words: tuple[str, ...] = ()   # how people write this unit after a number: ("days", "day"); ("x",) for ratios
    after_number: str = ""        # how it reads after a key, when not `name`: "174.60 billion", not "billions"

    @property
    def suffix(self) -> str:
        return self.after_number or self.name


@dataclass(frozen=True)
class Misconception:
    """A named wrong formula: it makes MCQ distractors and diagnoses NAT answers."""

    tag: str           # stable id for statistics, e.g. "no-bias"
    label: str         # short name, e.g. "forgot the biases"
    feedback: str      # what the learner is told, e.g. "that is the count without the bias terms"
    value: Any = None  # what the wrong formula gives for this question
    # Merged mistakes (bank.coinciding): the other formulas' own values, which the range check must see too.
    merged_values: tuple = ()

    @property
    def values(self) -> tuple:
        """Every value this mistake stands for: its own, then those merged into it."""
        return (self.value, *self.merged_values)


@dataclass(frozen=True)
class Statement:
    """A claim for conceptual MCQ/MSQ options, with why it is true or false."""

    text: str
    true: bool
    why: str = ""
    tag: str = ""      # misconception tag when picking this false statement reveals one


@dataclass(frozen=True)
class Step:
    """One step of a worked solution. `md` is Markdown with $…$ LaTeX; `text` overrides the
    terminal rendering when the automatic translation would read badly (sympy's Unicode)."""

    title: str
    md: str = ""
    text: str | None = None
    matrix: tuple[tuple[str, ...], ...] | None = None
    row_labels: tuple[str, ...] = ()
    col_labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class Option:
    md: str                                    # option text, Markdown with $…$
    correct: bool
    value: Any = None                          # numeric options keep their value
    misconception: Misconception | None = None
    why: str = ""                              # conceptual options: the reason


@dataclass(frozen=True)
class Question:
    id: str
    template: str
    topic: str
    kind: str                                  # MCQ | MSQ | NAT
    marks: int
    difficulty: int
    title: str
    prompt: str                                # Markdown with $…$
    options: tuple[Option, ...] = ()
    answer: Any = None                         # NAT: exact value in `unit`, or a matrix (tuple of row tuples); MCQ/MSQ: see `correct`
    answer_md: str = ""                        # the key as it is shown
    decimals: int | None = None                # NAT: required decimal places (GATE range)
    rel_tol: float | None = None               # NAT without decimals: relative tolerance (None = exact)
    unit: Unit | None = None
    misconceptions: tuple[Misconception, ...] = ()
    solution: tuple[Step, ...] = ()
    hints: tuple[str, ...] = ()                # concept, then formula, then numbers
    exhibits: tuple[Step, ...] = ()            # matrices shown with the prompt
    # Measures the key on the reference model (instantiated on meta, or run on CPU);
    # tests compare it with `answer`, which comes from the closed forms.
    verify: Callable[[], Any] | None = field(default=None, compare=False, repr=False)

    @cached_property   # asked once per option by the exports; a question never changes
    def correct(self) -> frozenset[int]:
        """0-based indices of the correct options (MCQ/MSQ)."""
        return frozenset(i for i, o in enumerate(self.options) if o.correct)

    @property
    def correct_letters(self) -> str:
        return ",".join(LETTERS[i] for i in sorted(self.correct))

    @property
    def is_matrix(self) -> bool:
        """A NAT question whose answer is a whole matrix, checked entry by entry (answers.matrix_questions)."""
        return self.kind == "NAT" and isinstance(self.answer, tuple)

    @property
    def uses_minus_infinity(self) -> bool:
        """A matrix key with a −∞ entry (an additive mask)."""
        return self.is_matrix and any(isinstance(x, float) and math.isinf(x) and x < 0
                                      for row in self.answer for x in row)

    def instruction(self, medium: str = "terminal") -> str:
        """What GATE would print under the question: how to answer. A matrix is answered differently
        at a prompt, on paper and in an LMS (medium: terminal, paper or fields)."""
        if self.is_matrix:
            return self._matrix_instruction(medium)
        if self.kind == "MCQ":
            return "Choose ONE option (a–d)."
        if self.kind == "MSQ":
            return "Choose ONE OR MORE options (e.g. a,c); all and only the correct ones score."
        parts = ["Enter a number"]
        if self.unit is not None and self.unit.name:
            parts.append(f"in {self.unit.name}")
        if self.decimals is not None:
            parts.append(f"rounded to {self.decimals} decimal place{'s' if self.decimals != 1 else ''}")
        elif self.rel_tol:
            parts.append(f"(within {self.rel_tol:.1%})")
        else:
            parts.append("(exact)")
        return " ".join(parts) + "."

    def _matrix_instruction(self, medium: str) -> str:
        """How to answer a matrix, for where the answer is given: typed whole at a prompt, written
        in a printed grid of boxes, or typed in an LMS's fields."""
        rows, cols = len(self.answer), len(self.answer[0]) if self.answer else 0
        how = (f", each entry rounded to {self.decimals} decimal place{'s' if self.decimals != 1 else ''}"
               if self.decimals else " with exact entries")
        if medium == "paper":
            infinity = " (an entry may be −∞)" if self.uses_minus_infinity else ""
            return f"Write the {rows}×{cols} matrix{how}{infinity}: one entry in each box."
        if medium == "fields":
            infinity = " (type −∞ as -inf)" if self.uses_minus_infinity else ""
            return f"Type the {rows}×{cols} matrix{how}{infinity}: one entry in each field, row by row."
        if medium != "terminal":
            raise ValueError(f"no instruction for the medium {medium!r} (one of {', '.join(MEDIUMS)})")
        infinity = " (write −∞ as -inf)" if self.uses_minus_infinity else ""
        return (f"Enter the {rows}×{cols} matrix{how}{infinity}: one row per line, ';' between rows, "
                "or nested brackets as in [[1, 0], [1, 1]].")
