"""Work in a forked copy of the process (the LMS exports of `set make`): its progress comes
back in order, its error is raised in the caller with its own type, and a caller that fails
stops it."""

import os
import time

import pytest

from quizforge.errors import InputError
from quizforge.problemsets.forked import Forked

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="no os.fork here")


def test_progress_comes_back_in_order_and_the_files_are_the_childs(tmp_path):
    told = []

    def work(tell):
        for n in range(1, 4):
            (tmp_path / f"{n}.txt").write_text(str(os.getpid()))
            tell(n)

    child = Forked(work, told.append)
    child.finish()
    assert told == [1, 2, 3]
    assert {(tmp_path / f"{n}.txt").read_text() for n in range(1, 4)} != {str(os.getpid())}   # another process


def test_the_childs_error_is_raised_here_with_its_type():
    def work(tell):
        tell(1)
        raise InputError("the range end 'x' is not a number an LMS can read")

    told = []
    child = Forked(work, told.append)
    with pytest.raises(InputError, match="not a number an LMS can read"):
        child.finish()
    assert told == [1]


def test_an_error_that_cannot_be_pickled_is_told_in_words():
    class Odd(Exception):
        def __reduce__(self):
            raise TypeError("no")

    def work(tell):
        raise Odd("kept")

    with pytest.raises(RuntimeError, match="Odd: kept"):
        Forked(work, lambda n: None).finish()


def test_a_child_that_dies_is_an_error():
    with pytest.raises(RuntimeError, match="status"):
        Forked(lambda tell: os.kill(os.getpid(), 9), lambda n: None).finish()


def test_close_stops_a_child_that_still_runs():
    child = Forked(lambda tell: time.sleep(60), lambda n: None)
    pid = child.pid
    started = time.monotonic()
    child.close()
    assert time.monotonic() - started < 5
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)   # reaped: no such child any more


def test_without_fork_the_work_runs_here_when_first_asked(monkeypatch):
    monkeypatch.delattr(os, "fork")
    ran, told = [], []
    child = Forked(lambda tell: (ran.append(os.getpid()), tell(7)), told.append)
    assert ran == []   # not before the caller asks: its progress would come before the caller's own
    assert child.poll() is False
    assert ran == [os.getpid()] and told == [7]
    child.finish()
