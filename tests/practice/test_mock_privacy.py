"""The history is the learner's alone, and an open mock's keys stay hidden until it is submitted."""

from __future__ import annotations

import json
import os
import stat

import pytest

from practice_helpers import right_answer, run_quiz as run_quiz_process
from quizforge.practice.mock import new_mock
from quizforge.practice.paths import data_dir
from quizforge.practice.store import History


def mode(path) -> int:
    return stat.S_IMODE(os.stat(path).st_mode)


def test_a_new_history_folder_is_700_and_its_files_600(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.delenv("QUIZFORGE_HOME", raising=False)
    os.umask(0o022)
    folder = data_dir()
    assert folder == tmp_path / "share" / "quizforge" and mode(folder) == 0o700
    with History(folder / "history.db") as history:
        new_mock(history, 2, 5)   # writes through the WAL
        files = sorted(p.name for p in folder.iterdir())
        assert files == ["history.db", "history.db-shm", "history.db-wal"]
        assert {name: mode(folder / name) for name in files} == dict.fromkeys(files, 0o600)


def test_an_older_world_readable_history_is_tightened_once_and_said_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "share"))
    monkeypatch.delenv("QUIZFORGE_HOME", raising=False)
    folder = tmp_path / "share" / "quizforge"
    folder.mkdir(parents=True)
    with History(folder / "history.db") as history:
        new_mock(history, 2, 5)
    for path in [folder, *folder.iterdir()]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    (folder / "notes.txt").write_text("not ours")   # other files in the folder are left alone
    os.chmod(folder / "notes.txt", 0o644)
    data_dir()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "made the history private to you" in err
    assert "quizforge 755→700" in err and "history.db 644→600" in err
    assert mode(folder) == 0o700 and mode(folder / "history.db") == 0o600 and mode(folder / "notes.txt") == 0o644
    data_dir()
    assert capsys.readouterr().err == ""   # once


def test_a_data_dir_the_user_named_keeps_its_mode_but_its_history_files_are_tightened(tmp_path, capsys):
    os.chmod(tmp_path, 0o755)
    with History(tmp_path / "history.db") as history:
        new_mock(history, 2, 5)
    os.chmod(tmp_path / "history.db", 0o644)
    data_dir(tmp_path)
    assert mode(tmp_path) == 0o755 and mode(tmp_path / "history.db") == 0o600
    assert "history.db 644→600" in capsys.readouterr().err


@pytest.fixture
def open_mock(tmp_path):
    with History(tmp_path / "history.db") as history:
        state = new_mock(history, 3, 10)
    return state


def test_explain_ask_and_check_refuse_an_open_mocks_questions_until_it_is_submitted(tmp_path, open_mock):
    first = open_mock.paper[0]
    template, seed = first.rsplit("-", 1)
    variant = f"{template.upper()}-{int(seed, 16):x}"   # the same question, written another way
    for args in (["explain", first], ["explain", variant, "--json"], ["ask", first, "--with-answer"],
                 ["check", first, right_answer(first)]):
        done = run_quiz_process(tmp_path, *args)
        assert done.returncode == 2 and done.stdout == "", args
        assert done.stderr == (f"error: {args[1]} is question 1 of mock #{open_mock.number}, which is still open: "
                               f"{dict(explain='its worked solution is shown', ask='its answer is shown', check='answers to it are checked')[args[0]]}"
                               f" once it is submitted (quiz practice --resume {open_mock.number})\n"), args
    # The same question drawn by its template and seed.
    done = run_quiz_process(tmp_path, "ask", template, "--seed", str(int(seed, 16)), "--with-answer")
    assert done.returncode == 2 and done.stderr.startswith(f"error: {first} is question 1 of mock #{open_mock.number}")
    # Without the key, the question itself may be shown.
    assert run_quiz_process(tmp_path, "ask", first).returncode == 0
    # Submitted: the key is shown.
    run_quiz_process(tmp_path, "practice", "--resume", input="submit\nsubmit\n")
    with History(tmp_path / "history.db") as history:
        assert history.paused_mocks() == []
    done = run_quiz_process(tmp_path, "explain", first, "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["id"] == first
