"""Issue 34 item 9: `quiz practice` names what it is doing until the first question is on screen,
in a terminal only, and leaves nothing of it behind."""

from __future__ import annotations

import pytest

from practice_helpers import run_quiz
from terminal_support import TmuxPane, in_pty, quiz_command, screen_lines


def test_a_terminal_sees_the_step_before_the_first_question(tmp_path):
    code, drawn = in_pty(["practice", "--count", "1"], 80, tmp_path, input_text="q\n", timeout=120)
    assert code == 0, drawn
    step = drawn.index("choosing the first question")   # (that nothing of it stays on screen: tmux, below)
    assert step < drawn.index("1/1 · new")
    assert "Drill · 1 question" in screen_lines(drawn)


def test_a_pipe_gets_no_spinner(tmp_path):
    done = run_quiz(tmp_path, "practice", "--count", "1", input="q\n", timeout=120)
    assert done.returncode == 0, done.stderr
    assert "first question" not in done.stdout + done.stderr and "\x1b" not in done.stdout + done.stderr
    assert done.stdout.startswith("Drill · 1 question")


@pytest.mark.parametrize("width", (40, 120))
def test_the_spinner_leaves_nothing_above_the_first_question(tmp_path, width):
    with TmuxPane(quiz_command("practice", "--count", "1"), width, tmp_path) as pane:
        pane.wait_for("answer ›", timeout=120)
        pane.type("q\n")
        text = pane.wait_for("__EXIT", timeout=60)
    assert text.lstrip().startswith("Drill · 1 question"), text
    for step in ("opening your history", "loading the question bank", "choosing the first question"):
        assert step not in text
