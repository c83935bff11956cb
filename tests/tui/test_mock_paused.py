"""Paused mocks end to end over a pipe: a new mock asks first, `quiz stats` lists them with the
numbers that `quiz practice --resume N` takes, and a bad N gets one line naming them."""

from __future__ import annotations

import json

from practice_helpers import MOCK_PROMPT, Piped, right_answer, run_quiz

ASK = "r resume it · n start a new one › "


def test_paused_mocks_are_numbered_listed_asked_about_and_resumed(tmp_path):
    with Piped(tmp_path, "--mock", "gate", "--questions", "3", "--minutes", "10") as session:
        _, segment = session.expect(MOCK_PROMPT)
        assert "GATE mock #1 · 3 questions · 10:00" in segment
        answer = right_answer(session.current)
        session.send(answer)
        session.expect(MOCK_PROMPT)
        session.send("q")
        assert "continue with: quiz practice --resume 1" in session.read_rest()
        assert session.wait() == 0

    with Piped(tmp_path, "--mock", "gate", "--questions", "2", "--minutes", "5") as session:
        _, segment = session.expect(ASK)
        assert "mock #1 (1 of 3 answered, 9:" in segment and "left) is paused" in segment
        session.send("maybe")
        _, segment = session.expect(ASK)
        assert "✗ type r to resume, or n to start a new mock" in segment
        session.send("n")
        _, segment = session.expect(MOCK_PROMPT)
        assert "GATE mock #2 · 2 questions · 5:00" in segment
        session.send("q")
        assert session.wait() == 0

    stats = json.loads(run_quiz(tmp_path, "stats", "--json").stdout)["mocks"]
    assert [(m["number"], m["answered"], m["questions"]) for m in stats["paused"]] == [(1, 1, 3), (2, 0, 2)]
    assert stats["unfinished"] == 2 and stats["history"] == []
    table = run_quiz(tmp_path, "stats").stdout
    assert "Paused mocks" in table and "1 of 3" in table and "0 of 2" in table

    bad = run_quiz(tmp_path, "practice", "--resume", "7", input="")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.startswith("error: there is no paused mock 7; paused: #1 (1 of 3 answered, 9:")
    assert "#2 (0 of 2 answered, 4:" in bad.stderr

    with Piped(tmp_path, "--resume", "1") as session:
        _, segment = session.expect(MOCK_PROMPT)
        assert "Resuming mock #1: 1/3 answered" in segment and "Q2/3" in segment
        session.send("submit")
        session.expect(MOCK_PROMPT)
        session.send("submit")
        assert "Score" in session.read_rest()
        assert session.wait() == 0

    stats = json.loads(run_quiz(tmp_path, "stats", "--json").stdout)["mocks"]
    assert [m["number"] for m in stats["history"]] == [1] and stats["history"][0]["correct"] == 1
    assert [m["number"] for m in stats["paused"]] == [2]

    # With end of input at the question, nothing is started and nothing changes.
    done = run_quiz(tmp_path, "practice", "--mock", "gate", input="")
    assert done.returncode == 0 and "nothing started" in done.stdout
    assert [m["number"] for m in json.loads(run_quiz(tmp_path, "stats", "--json").stdout)["mocks"]["paused"]] == [2]
