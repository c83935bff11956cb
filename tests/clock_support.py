"""The test clock the engines are given in place of time.time: it stands still until a test moves it."""

from __future__ import annotations


class SteppedClock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds
