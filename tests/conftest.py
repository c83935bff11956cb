"""Shared fixtures. tests/ mirrors quizforge/'s packages, a folder each; the helpers that several
folders use (*_support.py, practice_helpers.py, bank_draws.py) sit here at the top, which pytest
puts on the path for this conftest."""

import pytest


@pytest.fixture
def run_quiz(capsys):
    """Run the `quiz` entry point in-process; return (exit code, stdout, stderr)."""
    from quizforge.cli import main

    def run(*args: str) -> tuple[int, str, str]:
        with pytest.raises(SystemExit) as exc:
            main(list(args))
        out = capsys.readouterr()
        return exc.value.code, out.out, out.err

    return run


@pytest.fixture
def history(tmp_path):
    """A learner's history in a fresh SQLite file, closed after the test."""
    from quizforge.practice.store import History

    with History(tmp_path / "history.db") as opened:
        yield opened
