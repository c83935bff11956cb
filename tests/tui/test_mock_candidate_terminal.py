"""What the candidate sees of a mock in the terminal: no question titles (GATE's questions carry
none, and a title can give the answer away), GATE's subject section, and the name shown."""

from __future__ import annotations

import io
import time

from rich.console import Console

from practice_helpers import ScriptedLines
from quizforge.bank.registry import question
from quizforge.tui.mock_screen import MockExam
from quizforge.practice.store import History, MockState

GIVEAWAY = "attention.softmax_axis_bug-0000"   # titled "Code reading: softmax over the wrong axis"
NAT = "dims.d_k-0001"


def sit(tmp_path, paper, *lines: str, sections: str = "marks") -> tuple[str, MockState]:
    with History(tmp_path / "history.db") as history:
        session = history.start_session("mock", {}, time.time())
        state = MockState(session, "gate", list(paper), 10, sections=sections)
        history.create_mock(state)
        out = io.StringIO()
        exam = MockExam(history, ScriptedLines(*lines), Console(file=out, width=100, color_system=None), state)
        try:
            exam.run()
        finally:
            exam.prefetcher.close()
    return out.getvalue(), state


def test_a_mock_in_the_terminal_shows_no_question_title(tmp_path):
    title = question(GIVEAWAY).title
    text, _ = sit(tmp_path, [GIVEAWAY, NAT], "n", "p", "l")
    assert "This attention code has a bug" in text and "Q2/2" in text
    assert title not in text and "wrong axis" not in text
    assert "Q1/2 · 1-mark questions  ·  MCQ  ·  1 mark" in text


def test_a_new_mock_has_gates_subject_section_and_the_terminal_names_it(tmp_path):
    from quizforge.practice.mock import new_mock
    from quizforge.practice.mock_sections import SUBJECT_SECTION, paper_sections

    with History(tmp_path / "other.db") as history:
        state = new_mock(history, 3, 5)
        assert state.sections == "subject" and history.paused_mocks()[-1].sections == "subject"
        assert [(s.name, s.questions) for s in paper_sections(state.paper, "subject")] == [
            ("Data Science & Artificial Intelligence", (0, 1, 2))]
    text, _ = sit(tmp_path, [GIVEAWAY, NAT], "l", sections="subject")
    assert f"Q1/2 · {SUBJECT_SECTION}  ·  MCQ  ·  1 mark" in text
    assert f"{SUBJECT_SECTION} (Q 1–2): 0/2 answered · 0 marked · 1 not visited" in text


def test_the_command_sits_a_subject_section_by_default(tmp_path):
    from practice_helpers import run_quiz

    run = run_quiz(tmp_path, "practice", "--mock", "gate", "--questions", "2", "--minutes", "5", input="q\n")
    assert run.returncode == 0, run.stderr
    assert "Q1/2 · Data Science & Artificial Intelligence" in run.stdout


def test_the_candidates_name_is_given_never_the_user_name():
    from quizforge.errors import InputError
    from quizforge.web.sitting import candidate_name

    assert candidate_name(None) == "Candidate"
    assert candidate_name("  Asha   Rao ") == "Asha Rao"
    assert candidate_name("Zoë O'Neil-Ng") == "Zoë O'Neil-Ng"
    for bad, message in [("   ", "give the candidate's name"), ("x" * 41, "at most 40 characters (this one has 41)"),
                         ("Asha\x1b[2J", "it has a control character")]:
        try:
            candidate_name(bad)
        except InputError as exc:
            assert message in str(exc) and "\n" not in str(exc)
        else:
            raise AssertionError(bad)


def test_the_name_reaches_the_browser_mock_from_the_option_or_the_environment(monkeypatch):
    from click.testing import CliRunner

    import quizforge.cli
    import quizforge.cli.interrupts
    import quizforge.web.launch

    given = []
    monkeypatch.setattr(quizforge.web.launch, "browser_practice", lambda **kw: given.append(kw["name"]) or 0)
    monkeypatch.setattr(quizforge.cli.interrupts, "stop_cleanly_on_sigterm", lambda: None)
    monkeypatch.delenv("QUIZFORGE_NAME", raising=False)
    runner = CliRunner()
    for args, env in [([], {}), (["--name", "Asha Rao"], {}), ([], {"QUIZFORGE_NAME": "Ravi"}),
                      (["--name", "Asha"], {"QUIZFORGE_NAME": "Ravi"})]:
        run = runner.invoke(quizforge.cli.cli, ["practice", "--mock", "gate", "--browser", *args], env=env)
        assert run.exit_code == 0, run.output
    assert given == ["Candidate", "Asha Rao", "Ravi", "Asha"]
    # The variable may stay set for the terminal's modes; the option belongs to --browser.
    run = runner.invoke(quizforge.cli.cli, ["practice", "--mock", "gate", "--name", "Asha"])
    assert run.exit_code == 2 and "--name belongs to --browser" in run.output


def test_an_unusable_name_is_one_line_before_anything_starts(tmp_path):
    from practice_helpers import run_quiz

    run = run_quiz(tmp_path, "practice", "--mock", "gate", "--browser", "--name", "a\tb\x07", input="")
    assert run.returncode == 2 and run.stderr.strip().count("\n") == 0, run.stderr
    assert "--name: letters, digits, spaces and punctuation only" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "history.db").exists()


def test_the_paper_is_20_questions_in_55_minutes_by_default_and_at_most_gates_65(tmp_path):
    from practice_helpers import run_quiz
    from quizforge.practice.mock import new_mock

    with History(tmp_path / "other.db") as history:
        state = new_mock(history, None, None)
    assert (len(state.paper), state.minutes) == (20, 55)
    run = run_quiz(tmp_path, "practice", "--mock", "gate", "--questions", "66", input="")
    assert run.returncode == 2 and "66 is not in the range 1<=x<=65" in run.stderr
