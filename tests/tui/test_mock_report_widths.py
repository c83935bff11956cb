"""The mock report below 80 columns: every cell of every section is shown whole, nothing is cut."""

from __future__ import annotations

import re

import pytest
from rich.console import Console

from quizforge.tui.mock_report import mock_report_view
from quizforge.practice.timefmt import clock_text

WIDTHS = (40, 60, 80)

ITEMS = [
    {"id": "dims.d_k-0001", "topic": "dims", "kind": "NAT", "marks": 1, "answer": "64", "key": "64",
     "correct": True, "earned": 1.0, "seconds": 10.0},
    {"id": "concepts.layernorm_batchnorm-00a2", "topic": "concepts", "kind": "MCQ", "marks": 2,
     "answer": "a", "key": "b", "correct": False, "earned": -0.67, "seconds": 3.0},
    {"id": "params.projections-7f3a", "topic": "params", "kind": "NAT", "marks": 2,
     "answer": "4*1280^2 + 4*1280 + 12345678901234567890", "key": "6,558,720", "correct": False, "earned": 0.0,
     "seconds": 95.0},
    {"id": "dims.shapes-002a", "topic": "dims", "kind": "MCQ", "marks": 1, "answer": None, "key": "c",
     "correct": None, "earned": 0.0, "seconds": 0.0},
]
PER_TOPIC = {
    "dims": {"questions": 2, "answered": 1, "correct": 1, "score": 1.0, "max": 2.0, "seconds": 10.0},
    "concepts": {"questions": 1, "answered": 1, "correct": 0, "score": -0.67, "max": 2.0, "seconds": 3.0},
    "params": {"questions": 1, "answered": 1, "correct": 0, "score": 0.0, "max": 2.0, "seconds": 95.0},
}
TITLES = {"dims": "Dimensions and shapes", "concepts": "Complexity and concepts", "params": "Parameter counts"}
RESULT = {"score": 0.33, "max": 6.0, "negative": 0.67, "questions": 4, "answered": 3, "correct": 1,
          "seconds": 108.0, "status": "timed_out", "per_topic": PER_TOPIC, "items": ITEMS,
          "misconceptions": [{"tag": "params.no_bias", "label": "forgot the biases", "count": 2,
                              "feedback": "each projection also has a bias vector of d_model entries"}]}


def _render(width: int) -> str:
    console = Console(width=width, record=True, highlight=False, color_system=None)
    console.print(mock_report_view(RESULT, [dict(RESULT, score=3.0)]))
    return console.export_text()


def _squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _in_order(text: str, pieces: list[str]) -> int:
    """Each piece appears after the previous one (whitespace ignored, so wrapping is allowed)."""
    flat, at = _squash(text), 0
    for piece in pieces:
        found = flat.find(_squash(piece), at)
        assert found >= 0, f"{piece!r} is missing after position {at}:\n{text}"
        at = found + len(_squash(piece))
    return at


@pytest.mark.parametrize("width", WIDTHS)
def test_every_cell_of_the_report_is_shown_whole(width):
    text = _render(width)
    assert "…" not in text
    assert max(len(line.rstrip()) for line in text.splitlines()) <= width
    # 0.33 is 1/3 kept to 2 places: 1/3 of 6 is 5.56%, rounded once (not 5.5% through 0.33).
    _in_order(text, ["Score", "0.33 / 6", "(5.6%)", "Negative marks", "−0.67", "Answered", "3 of 4", "correct 1",
                     "accuracy 33%", "Time used", "1:48", "(time ran out)"])
    for topic, t in PER_TOPIC.items():
        accuracy = f"{t['correct'] / t['answered']:.0%}"
        _in_order(text, ["By topic", TITLES[topic], str(t["questions"]), str(t["answered"]), str(t["correct"]),
                         accuracy, f"{t['score']:g}/{t['max']:g}", clock_text(t["seconds"]),
                         clock_text(t["seconds"] / t["questions"])])
    _in_order(text, ["Misconceptions hit", "forgot the biases", "2", RESULT["misconceptions"][0]["feedback"]])
    # Question by question, in paper order: ID, the answer as typed, the key, the verdict and the marks.
    pieces = ["Question by question"]
    for item in ITEMS:
        mark = {True: "✓", False: "✗", None: "–"}[item["correct"]]
        pieces += [item["id"], item["answer"] or "–", item["key"], mark, f"{item['earned']:+g}/{item['marks']}"]
    _in_order(text, pieces)
    _in_order(text, ["Against earlier mocks", "points on the last (50.0%)", "average 50.0% over 1"])


def test_a_wide_terminal_keeps_the_tables():
    text = _render(120)
    assert re.search(r"topic\s+Qs\s+answered\s+correct\s+accuracy\s+marks\s+time\s+per Q", text), text
    assert re.search(r"#\s+question\s+your answer\s+key\s+marks", text), text
    assert "…" not in text
