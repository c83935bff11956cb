"""`quiz practice` in a real pseudo-terminal (prompt_toolkit prompts): a session killed
with SIGKILL loses nothing answered, a mock resumes with its clock, and under tmux the
countdown stays visible at the bottom of the screen and ticks."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import uuid

import pytest

pexpect = pytest.importorskip("pexpect")

from practice_helpers import db_rows, integrity, mock_row, quiz_env, right_answer, run_quiz  # noqa: E402

try:   # a sandbox without pseudo-terminals cannot run any of this
    _probe = pexpect.spawn(sys.executable, ["-c", "pass"], encoding="utf-8", timeout=10)
    _probe.expect(pexpect.EOF)
    _probe.close()
except Exception as exc:  # pragma: no cover - depends on the machine
    pytest.skip(f"pexpect cannot spawn a pseudo-terminal: {exc}", allow_module_level=True)

# The ID in a panel's bottom border, between rich's colour codes: ... dims.d_k-8220 ─╯
BORDER_ID = r"(?:\x1b\[[0-9;]*m| )([a-z]+\.[a-z0-9_]+-[0-9a-f]{4})(?:\x1b\[[0-9;]*m| )*─╯"


def spawn(home, *args: str):
    env = quiz_env(home, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
    env.pop("NO_COLOR", None)
    child = pexpect.spawn(sys.executable, ["-m", "quizforge", "practice", *args], env=env, encoding="utf-8",
                          dimensions=(40, 120), timeout=20)
    return child


def wait_question(child, title: str) -> str:
    """Wait for the panel titled `title` (e.g. 'Q2/5' or '2/3 · '), its ID and the prompt; returns the ID."""
    child.expect_exact(title)
    child.expect(BORDER_ID)
    qid = child.match.group(1)
    child.expect_exact("›")   # the prompt is up
    assert "\x1b[?2004h" in child.before, "not a prompt_toolkit prompt: " + repr(child.before[-300:])
    return qid


def kill(child) -> None:
    os.kill(child.pid, signal.SIGKILL)
    child.expect(pexpect.EOF, timeout=10)
    child.close()
    assert child.signalstatus == signal.SIGKILL


@pytest.fixture
def children():
    spawned = []
    yield spawned
    for child in spawned:
        if child.isalive():
            child.close(force=True)


def test_mock_killed_with_sigkill_resumes_with_answers_and_clock(tmp_path, children):
    from quizforge.practice.mock import CHECKPOINT_SECONDS

    child = spawn(tmp_path, "--mock", "gate", "--questions", "5", "--minutes", "30")
    children.append(child)
    q1 = wait_question(child, "Q1/5")
    shown = time.monotonic()   # the clock started just before Q1 was drawn
    a1 = right_answer(q1)
    child.sendline(a1)
    q2 = wait_question(child, "Q2/5")
    a2 = right_answer(q2)
    child.sendline(a2)
    q3 = wait_question(child, "Q3/5")
    child.sendline("m")
    child.expect_exact("marked for review")
    time.sleep(CHECKPOINT_SECONDS + 1.5)   # sitting at the prompt: only the checkpoints save the clock
    used = time.monotonic() - shown
    kill(child)

    state = mock_row(tmp_path)
    # The crash gives back at most one checkpoint interval of the time used (the README says so).
    assert used - CHECKPOINT_SECONDS - 0.5 <= state["elapsed"] <= used + 0.5, (used, state["elapsed"])
    assert state["paper"][:3] == [q1, q2, q3]
    assert state["answers"] == {"0": a1, "1": a2} and state["marked"] == [2] and state["current"] == 2
    assert state["result"] is None
    assert db_rows(tmp_path, "SELECT status FROM sessions") == [{"status": "open"}]
    assert integrity(tmp_path) == "ok"

    child = spawn(tmp_path, "--resume")
    children.append(child)
    child.expect(r"Resuming mock #1: 2/5 answered, (\d+):(\d\d) left")
    left = int(child.match.group(1)) * 60 + int(child.match.group(2))
    assert left == int(30 * 60 - state["elapsed"])   # what was saved, no more
    assert wait_question(child, "Q3/5 · marked for review") == q3
    child.sendline("submit")
    child.expect_exact("type submit again to hand the paper in")
    child.sendline("submit")
    child.expect_exact("Score")
    child.expect_exact("By topic")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    state = mock_row(tmp_path)
    result = state["result"]
    assert result["status"] == "submitted" and (result["answered"], result["correct"]) == (2, 2)
    assert [item["correct"] for item in result["items"]] == [True, True, None, None, None]
    assert db_rows(tmp_path, "SELECT status FROM sessions") == [{"status": "submitted"}]
    assert len(db_rows(tmp_path, "SELECT * FROM mocks")) == 1


def test_drill_killed_with_sigkill_keeps_answers_and_a_sound_history(tmp_path, children):
    child = spawn(tmp_path, "--count", "5")
    children.append(child)
    shown = []
    for n in (1, 2):
        qid = wait_question(child, f"{n}/5 · ")
        shown.append(qid)
        child.sendline(right_answer(qid))
        child.expect_exact("rated ")
        child.expect_exact("Enter next")
        child.sendline("")
    shown.append(wait_question(child, "3/5 · "))
    time.sleep(0.3)
    kill(child)

    attempts = db_rows(tmp_path, "SELECT * FROM attempts ORDER BY id")
    assert [a["question_id"] for a in attempts] == shown[:2]
    assert [a["outcome"] for a in attempts] == ["correct", "correct"]
    cards = {r["key"] for r in db_rows(tmp_path, "SELECT key FROM cards")}
    assert {f"template:{a['template']}" for a in attempts} <= cards
    assert not any(k.startswith(f"template:{shown[2].rsplit('-', 1)[0]}") for k in cards)
    assert len(db_rows(tmp_path, "SELECT * FROM reviews WHERE card_key LIKE 'template:%'")) == 2
    assert db_rows(tmp_path, "SELECT status FROM sessions") == [{"status": "open"}]
    assert integrity(tmp_path) == "ok"

    again = run_quiz(tmp_path, "practice", "--count", "1", input="s\n")
    assert again.returncode == 0, again.stderr
    assert "Session over" in again.stdout
    assert integrity(tmp_path) == "ok"
    assert [s["status"] for s in db_rows(tmp_path, "SELECT status FROM sessions ORDER BY id")] == ["open", "finished"]
    assert len(db_rows(tmp_path, "SELECT * FROM attempts")) == 3


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_mock_countdown_ticks_at_the_bottom_of_the_screen_in_tmux(tmp_path):
    socket = f"quizforge-test-{uuid.uuid4().hex[:12]}"
    tmux = ["tmux", "-L", socket]
    env = quiz_env(tmp_path)
    env.pop("NO_COLOR", None)
    env.pop("PROMPT_TOOLKIT_NO_CPR", None)   # tmux answers cursor-position requests
    env.pop("TMUX", None)
    command = " ".join(["env", "-u", "PROMPT_TOOLKIT_NO_CPR", f"QUIZFORGE_HOME={tmp_path}", sys.executable,
                        "-m", "quizforge", "practice", "--mock", "gate", "--questions", "3", "--minutes", "5"])
    status = re.compile(r"⏱ (\d+):(\d\d) left  ·  question 1 of 3")

    def bottom() -> tuple[str, list[str]]:
        screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", "quiz"], capture_output=True, text=True,
                                env=env, timeout=10).stdout
        rows = screen.split("\n")[:40]
        return rows[-1], rows

    try:
        subprocess.run([*tmux, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-s", "quiz",
                        command], check=True, env=env, timeout=10)
        deadline = time.monotonic() + 15
        first = None
        while time.monotonic() < deadline:
            last, rows = bottom()
            first = status.search(last)
            if first and any("answer or command ›" in r for r in rows):
                break
            time.sleep(0.2)
        assert first, "no countdown on the bottom row:\n" + "\n".join(rows)
        assert len(rows) == 40
        time.sleep(2.2)
        last, rows = bottom()
        later = status.search(last)
        assert later, "the countdown left the bottom row:\n" + "\n".join(rows)
        before = int(first[1]) * 60 + int(first[2])
        after = int(later[1]) * 60 + int(later[2])
        assert before <= 5 * 60 and 1 <= before - after <= 4, (first[0], later[0])
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, env=env, timeout=10)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_resumed_mock_shows_one_time_in_header_and_toolbar_in_tmux(tmp_path):
    paused = run_quiz(tmp_path, "practice", "--mock", "gate", "--questions", "3", "--minutes", "5", input="q\n")
    assert paused.returncode == 0 and "Mock paused" in paused.stdout, paused.stdout + paused.stderr
    socket = f"quizforge-test-{uuid.uuid4().hex[:12]}"
    tmux = ["tmux", "-L", socket]
    env = quiz_env(tmp_path)
    env.pop("NO_COLOR", None)
    env.pop("PROMPT_TOOLKIT_NO_CPR", None)
    env.pop("TMUX", None)
    command = " ".join(["env", "-u", "PROMPT_TOOLKIT_NO_CPR", f"QUIZFORGE_HOME={tmp_path}", sys.executable,
                        "-m", "quizforge", "practice", "--resume", "1"])
    header = re.compile(r"Resuming mock #1: 0/3 answered, (\d+):(\d\d) left")
    status = re.compile(r"⏱ (\d+):(\d\d) left  ·  question 1 of 3")
    try:
        subprocess.run([*tmux, "-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-s", "quiz",
                        command], check=True, env=env, timeout=10)
        deadline = time.monotonic() + 15
        head = bar = None
        while time.monotonic() < deadline and not (head and bar):
            screen = subprocess.run([*tmux, "capture-pane", "-p", "-t", "quiz"], capture_output=True, text=True,
                                    env=env, timeout=10).stdout
            head, bar = header.search(screen), status.search(screen)
            time.sleep(0.1)
        assert head and bar, screen
        shown = int(head[1]) * 60 + int(head[2])
        ticking = int(bar[1]) * 60 + int(bar[2])
        assert 0 <= shown - ticking <= 2, (head[0], bar[0])
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True, env=env, timeout=10)


def test_a_stray_line_at_the_drills_next_prompt_keeps_the_prompt_in_a_terminal(tmp_path, children):
    child = spawn(tmp_path, "--count", "2")
    children.append(child)
    first = wait_question(child, "1/2 · ")
    child.sendline(right_answer(first))
    child.expect_exact("Enter next")
    child.sendline("12345")
    child.expect_exact("press Enter (or n) for the next question")
    child.expect_exact("Enter next")
    assert "2/2 · " not in child.before
    child.sendline("")
    second = wait_question(child, "2/2 · ")
    assert second != first
    child.sendline("q")
    child.expect(pexpect.EOF)
    assert [(a["question_id"], a["outcome"]) for a in db_rows(tmp_path, "SELECT * FROM attempts")] == \
        [(first, "correct")]
