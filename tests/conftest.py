"""Shared fixtures. tests/ mirrors quizforge/'s packages, a folder each; the support modules
(*_support.py, practice_helpers.py, bank_draws.py) sit here at the top, which pytest puts on the
path for this conftest. A few test modules still borrow helpers from a test module in another
folder (assert_whole, the LMS scorers, the web mock's pages), so every folder is on the path too."""

import sys
from pathlib import Path

import pytest

for _folder in sorted(Path(__file__).parent.iterdir()):
    if _folder.is_dir() and any(_folder.glob("test_*.py")) and str(_folder) not in sys.path:
        sys.path.append(str(_folder))


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
