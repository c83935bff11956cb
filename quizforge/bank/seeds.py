"""Version-stable random streams, derived from one seed chain.

Python's `random` module promises no stability across versions, and a question
ID must regenerate the same question for years; so every draw comes from
BLAKE2b over (chain path, stream label, counter). Each element of a question
(its parameters, its option order, its matrices) takes its own labelled stream,
so changing how one element draws never shifts another.
"""

from __future__ import annotations

import hashlib
from typing import Sequence, TypeVar

T = TypeVar("T")


class Stream:
    """An endless, reproducible sequence of random integers for one purpose."""

    def __init__(self, path: str):
        self._path = path.encode("utf-8")
        self._counter = 0

    def _next64(self) -> int:
        digest = hashlib.blake2b(self._path + b"#" + str(self._counter).encode(), digest_size=8).digest()
        self._counter += 1
        return int.from_bytes(digest, "big")

    def integer(self, low: int, high: int) -> int:
        """Uniform on low..high inclusive (rejection sampling, so no modulo bias)."""
        if high < low:
            raise ValueError(f"empty range {low}..{high}")
        span = high - low + 1
        limit = (1 << 64) - (1 << 64) % span
        while True:
            x = self._next64()
            if x < limit:
                return low + x % span

    def choice(self, items: Sequence[T]) -> T:
        return items[self.integer(0, len(items) - 1)]

    def shuffled(self, items: Sequence[T]) -> list[T]:
        """A new list in random order (Fisher–Yates)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.integer(0, i)
            out[i], out[j] = out[j], out[i]
        return out

    def sample(self, items: Sequence[T], k: int) -> list[T]:
        return self.shuffled(items)[:k]

    def chance(self, numerator: int, denominator: int) -> bool:
        return self.integer(1, denominator) <= numerator


class SeedChain:
    """A node in the chain exam → student → question; children never share streams."""

    def __init__(self, path: str, wide: bool = False):
        self.path = path
        self.wide = wide          # a widened template's chain: draw from the wider ranges (`widened`)

    def child(self, label: str | int) -> "SeedChain":
        return SeedChain(f"{self.path}/{label}", self.wide)

    def stream(self, label: str) -> Stream:
        return Stream(f"{self.path}:{label}")


ROOT = SeedChain("quizforge/v1")


def question_chain(template_id: str, seed: int, wide: bool = False) -> SeedChain:
    return SeedChain(f"{ROOT.path}/{template_id}/{seed:04x}", wide)


def widened(chain: SeedChain) -> Stream | None:
    """The stream a widened template (a narrow one registered again under a new ID, bank v4) draws
    its wider numbers from; None for the narrow template, whose questions stay as they were."""
    return chain.stream("wider") if chain.wide else None
