"""Issue 34 item 12: lines the terminal would cut mid-word are wrapped to its width, in a real
pseudo-terminal of 40, 80 and 120 columns (a pty passes lines on as written: a line longer than
the width here is one the terminal would have cut)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from terminal_support import TmuxPane, in_pty, quiz_command, screen_lines
from terminal_support import assert_whole

REPO = Path(__file__).resolve().parents[2]
WIDTHS = (40, 80, 120)


def _screen(drawn: str) -> str:
    return screen_lines(drawn)


@pytest.mark.parametrize("width", WIDTHS)
def test_quiz_help_fits_and_cuts_no_description(tmp_path, width):
    code, drawn = in_pty(["--help"], width, tmp_path)
    text = _screen(drawn)
    assert code == 0
    assert max(len(line.rstrip()) for line in text.splitlines()) <= width, text
    commands = text[text.index("Commands:"):]
    assert "..." not in commands, commands
    for phrase in ("Parameter, FLOP and memory calculators.", "A question's worked solution, by its ID.",
                   "Drill, GATE mock or interview practice.", "Problem sets for a class."):
        assert phrase in " ".join(commands.split()), commands


@pytest.mark.parametrize("width", (40, 120))
def test_subcommand_help_keeps_option_descriptions_on_screen(tmp_path, width):
    """Click keeps the option column 30 wide at 40 columns, pushing descriptions off screen."""
    code, drawn = in_pty(["grade", "--help"], width, tmp_path)
    text = _screen(drawn)
    assert code == 0
    options = text[text.index("Options:"):]
    long_lines = [line for line in options.splitlines() if len(line.rstrip()) > width]
    assert all("[hidden|" in line for line in long_lines), long_lines   # a choice list is one word
    assert "challenges list`)." in options


@pytest.mark.parametrize("width", WIDTHS)
def test_ask_prints_its_commands_whole(tmp_path, width):
    code, drawn = in_pty(["ask", "attention.weight", "--seed", "1"], width, tmp_path)
    text = _screen(drawn)
    assert code == 0
    lines = text.splitlines()
    assert any(line.endswith("quiz explain attention.weight-0001") for line in lines), text
    assert any("quiz check attention.weight-0001 ANSWER" in line for line in lines), text
    assert max(len(line.rstrip()) for line in lines) <= width, text


@pytest.mark.parametrize("width", WIDTHS)
def test_check_never_splits_a_coordinate(tmp_path, width):
    wrong = "1 1 0 0; 1 1 0 0; 1 1 1 0; 1 1 1 1"   # the causal mask of -0000 with (1,2) set
    code, drawn = in_pty(["check", "matrices.causal_mask-0000", wrong], width, tmp_path)
    text = _screen(drawn)
    assert "1 of 16 entries is wrong (row, column): (1,2)." in " ".join(text.split())
    assert_whole(text, ["(1,2)."], width)


@pytest.mark.parametrize("width", WIDTHS)
def test_set_make_summary_is_wrapped_between_its_items(tmp_path, width):
    out = tmp_path / "out"
    code, drawn = in_pty(["set", "make", str(REPO / "examples" / "quiz1.toml"), "--variants", "3", "--no-pdf",
                          "-o", str(out)], width, tmp_path, timeout=300)
    text = _screen(drawn)
    assert code == 0, text
    summary = text[text.index("3 papers of"):]
    items = ["papers/ and keys/ as Markdown", "keys.csv", "keys.json", "moodle.xml", "quiz.gift", "qti21.zip",
             "canvas_qti12.zip", "lms_report.md"]
    slots = re.findall(r"Q\d+ \d+", summary)
    assert len(slots) >= 2, summary
    lines = summary.splitlines()
    assert all(any(item in line for line in lines) for item in items + slots), summary
    assert max(len(line.rstrip()) for line in lines) <= width, summary


def test_set_make_summary_piped_stays_one_line_each(tmp_path):
    from practice_helpers import run_quiz

    done = run_quiz(tmp_path, "set", "make", str(REPO / "examples" / "quiz1.toml"), "--variants", "3", "--no-pdf",
                    "-o", str(tmp_path / "out"), timeout=300)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()[:2]
    assert first.endswith(": papers/ and keys/ as Markdown, keys.csv, keys.json, moodle.xml, quiz.gift, qti21.zip, "
                          "canvas_qti12.zip, lms_report.md")
    assert re.fullmatch(r"Different questions per slot \(of 3 papers\): Q1 \d+( · Q\d+ \d+)+", second), second


@pytest.mark.parametrize("width", (40, 80))
def test_nothing_to_ask_is_wrapped_at_spaces_in_a_terminal(tmp_path, width):
    with TmuxPane(quiz_command("practice", "--new-per-day", "0"), width, tmp_path) as pane:
        text = pane.wait_for("__EXIT", timeout=120)
    said = text[text.index("Nothing to ask"):text.index("__EXIT")]
    assert " ".join(said.split()) == ("Nothing to ask: no reviews are due and new templates are off · "
                                      "no review is scheduled yet")
    words = said.split()
    assert_whole(said, [w for w in words if w != "·"], width)


@pytest.mark.parametrize("width", WIDTHS)
def test_practice_help_fits_the_terminal(tmp_path, width):
    code, drawn = in_pty(["practice", "--help"], width, tmp_path)
    text = _screen(drawn)
    assert code == 0
    assert max(len(line.rstrip()) for line in text.splitlines()) <= width, text
    assert "h hint, s skip, e explain, q quit." in " ".join(text.split())
