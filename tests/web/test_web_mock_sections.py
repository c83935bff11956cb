"""Section tabs by marks or by topic (`quiz practice --mock gate --sections topic|marks`): kept
with the mock, so a resume shows the same, in the browser's tabs and the terminal's palette;
a mock saved before sections could be chosen opens by marks."""

from __future__ import annotations

import json
import re
import sqlite3

import pytest

from practice_helpers import MOCK_PROMPT, Piped, run_quiz
from quizforge.bank.template import TOPICS
from quizforge.practice.mock import MockEngine, new_mock
from quizforge.practice.mock_sections import numbers_text, paper_sections
from quizforge.practice.store import History, MockState

PAPER = ["dims.shapes-0000", "dims.d_k-0001", "concepts.complexity-0001", "norms.layernorm-0001",
         "matrices.causal_mask-0002"]


def test_sections_by_topic_follow_the_syllabus_and_by_marks_gate():
    by_topic = paper_sections(PAPER, "topic")
    assert [(s.name, s.questions) for s in by_topic] == [
        ("Dimensions and shapes", (0, 1)), ("Normalization by hand", (3,)), ("Complexity and concepts", (2,)),
        ("Whole matrices by hand", (4,))]
    by_marks = paper_sections(PAPER, "marks")
    assert [(s.name, s.questions) for s in by_marks] == [("1-mark questions", (0, 1, 4)),
                                                         ("2-mark questions", (2, 3))]
    assert numbers_text((0, 1, 2, 6, 8, 9)) == "1–3, 7, 9–10"


def _topic_mock(history: History, paper=PAPER) -> MockState:
    session = history.start_session("mock", {"exam": "gate", "sections": "topic"}, 1_800_000_000.0)
    state = MockState(session, "gate", list(paper), 10, sections="topic")
    history.create_mock(state)
    return state


def test_a_topic_mock_keeps_its_sections_and_the_browser_shows_them_as_tabs(tmp_path):
    pytest.importorskip("starlette")
    from starlette.testclient import TestClient

    from quizforge.web.server import PageKey, create_app
    from quizforge.web.sitting import WebSitting

    with History(tmp_path / "history.db") as history:
        _topic_mock(history)
        resumed = history.paused_mocks()[-1]   # as --resume reads it back
        assert resumed.sections == "topic"
        sitting = WebSitting(MockEngine(history, resumed, lambda: 1_800_000_000.0))
        access = PageKey()
        client = TestClient(create_app(sitting, "tok", 8123, access=access), base_url="http://127.0.0.1:8123")
        page = client.get(f"/tok/?key={access.key}").text   # the one-time link sets the session cookie
        assert "<td>Normalization by hand</td><td>1</td>" in page   # the paper-specific instructions
        view = client.post("/tok/api/begin", json={}).json()
        assert [(s["name"], s["questions"]) for s in view["sections"]] == [
            ("Dimensions and shapes", [1, 2]), ("Normalization by hand", [4]), ("Complexity and concepts", [3]),
            ("Whole matrices by hand", [5])]
        view = client.post("/tok/api/save-next", json={"answer": None}).json()
        assert view["current"] == 2 and view["section"] == 0
        view = client.post("/tok/api/save-next", json={"answer": None}).json()   # a section's last: the next one
        assert view["current"] == 4 and view["section"] == 1
        assert [r["section"] for r in client.get("/tok/api/summary").json()["sections"]] == [
            "Dimensions and shapes", "Normalization by hand", "Complexity and concepts", "Whole matrices by hand"]


def test_new_mock_stores_the_sections_and_refuses_others(tmp_path):
    from quizforge.errors import InputError

    with History(tmp_path / "history.db") as history:
        state = new_mock(history, 3, 5, sections="topic")
        assert state.sections == "topic" and history.paused_mocks()[-1].sections == "topic"
        assert json.loads(history.sessions()[-1]["settings"])["sections"] == "topic"
        with pytest.raises(InputError, match="sections: 'chapters' is not one of subject, topic, marks"):
            new_mock(history, 3, 5, sections="chapters")


@pytest.mark.parametrize("settings", ['{"exam": "gate", "questions": 3, "minutes": 5}', "{}",
                                      '{"sections": "chapters"}', "[1]", "not json"])
def test_a_mock_saved_before_sections_could_be_chosen_opens_by_marks(tmp_path, settings):
    with History(tmp_path / "history.db") as history:
        state = _topic_mock(history)
    with sqlite3.connect(tmp_path / "history.db") as db:   # as an older quizforge wrote it
        db.execute("UPDATE sessions SET settings = ? WHERE id = ?", (settings, state.session_id))
    with History(tmp_path / "history.db") as history:
        assert history.paused_mocks()[-1].sections == "marks"


def test_the_terminal_mock_shows_topic_sections_and_a_resume_keeps_them(tmp_path):
    with Piped(tmp_path, "--mock", "gate", "--sections", "topic", "--questions", "4", "--minutes", "10") as session:
        _, segment = session.expect(MOCK_PROMPT)
        first = session.current
        topic = TOPICS[first.split(".")[0]]
        assert re.search(rf"Q1/4 · {re.escape(topic)}", segment), segment
        session.send("l")
        _, palette = session.expect(MOCK_PROMPT)
        assert re.search(rf"{re.escape(topic)} \(Q [0-9, –]+\): 0/\d answered · 0 marked · \d not visited", palette)
        session.send("q")
        session.read_rest()
        assert session.wait() == 0
    with Piped(tmp_path, "--resume") as session:
        _, segment = session.expect(MOCK_PROMPT)
        assert f"Q1/4 · {topic}" in segment
        session.send("q")
        session.read_rest()
        assert session.wait() == 0


@pytest.mark.parametrize("args, message", [
    (("--resume", "--sections", "topic"), "--sections belongs to a new --mock gate (a resumed mock keeps its own)"),
    (("--sections", "topic"), "--sections belongs to a new --mock gate"),
    (("--mock", "gate", "--sections", "chapters"), "'chapters' is not one of 'subject', 'topic', 'marks'"),
])
def test_sections_option_is_checked(tmp_path, args, message):
    run = run_quiz(tmp_path, "practice", *args, input="")
    assert run.returncode == 2 and message in run.stderr and "Traceback" not in run.stderr
