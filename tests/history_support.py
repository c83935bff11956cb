"""A learner's history written as `quiz stats` reads it: attempts, cards and mocks at wall-clock
times counted in days from TODAY."""

from __future__ import annotations

import time
from datetime import date, timedelta

from quizforge.practice.store import Attempt, History, MockState

TODAY = date(2025, 3, 20)


def at(offset: int, hour: int = 12, minute: int = 0) -> float:
    """Unix time of a local wall-clock time `offset` days from TODAY."""
    d = TODAY + timedelta(days=offset)
    return time.mktime((d.year, d.month, d.day, hour, minute, 0, 0, 0, -1))


NOW = at(0, 18)


def attempt(topic: str = "params", outcome: str = "correct", template: str | None = None, **kw) -> Attempt:
    kind = kw.pop("kind", "NAT")
    return Attempt(question_id=f"{template or topic + '.q'}-0001", template=template or f"{topic}.q", topic=topic,
                   kind=kind, outcome=outcome, marks=kw.pop("marks", 1), **kw)


def record(h: History, when: float, *attempts: Attempt, mode: str = "drill") -> int:
    session = h.start_session(mode, {}, when)
    for i, a in enumerate(attempts):
        h.record_attempt(session, mode, a, at=when + i)
    return session


def add_card(h: History, key: str, due_at: float, introduced: float) -> None:
    with h.transaction() as db:
        h.save_card(key, {"card_id": 1, "state": 2, "step": None, "stability": 3.2, "difficulty": 5.1,
                          "due": "2025-03-21T12:00:00+00:00", "last_review": None}, due_at, introduced, db)


def mock(h: History, when: float, score: float, top: float, *, result: bool = True, seconds: float = 5400) -> int:
    session = h.start_session("mock", {}, when)
    state = MockState(session_id=session, exam="gate-da", paper=[f"params.q-{i:04x}" for i in range(10)], minutes=180)
    h.create_mock(state)
    if result:
        state.result = {
            "score": score, "max": top, "negative": 0.66, "questions": 10, "answered": 8, "correct": 6,
            "status": "submitted", "submitted_at": when + seconds, "seconds": seconds,
            "per_topic": {"params": {"questions": 10, "answered": 8, "correct": 6, "score": score, "max": top,
                                     "seconds": seconds}},
            "misconceptions": [{"tag": "extra-bias", "label": "forgot the biases", "count": 1}],
        }
        state.elapsed = seconds
        h.save_mock(state)
        h.end_session(session, "submitted", when + seconds)
    return session
