"""The typst helpers of `set make` and `set grade`: at most one per core, the caller's own work
counted out, a whole document (the answer book) started before shares still queued, and the
shares reported in order whatever order they finish in."""

import pytest

from quizforge.problemsets import typeset


class FakeHelper:
    """A helper process that finishes when the test says."""

    def __init__(self, jobs):
        self.jobs, self.returncode = jobs, None

    def poll(self):
        return self.returncode

    def wait(self):
        return self.returncode

    def kill(self):
        self.returncode = -9


@pytest.fixture
def helpers(monkeypatch, tmp_path):
    started = []

    def spawn(jobs, errors):
        started.append(FakeHelper(jobs))
        return started[-1]

    monkeypatch.setattr(typeset.Typesetting, "_spawn", staticmethod(spawn))
    monkeypatch.setattr(typeset, "cores", lambda: 2)
    return started


def _share(typesetting, tmp_path, n):
    typesetting.add(None, [n], tmp_path, lambda chunk, plain: f"share {chunk}")


def test_one_helper_while_the_caller_works_then_one_per_core(helpers, tmp_path):
    typesetting = typeset.Typesetting(tmp_path)
    for n in range(3):
        _share(typesetting, tmp_path, n)
    assert len(helpers) == 1                 # the caller keeps the other core
    typesetting.poll(busy=2)                 # the caller and its LMS writer: still one helper runs
    assert len(helpers) == 1
    helpers[0].returncode = 0
    typesetting.poll()
    assert len(helpers) == 2                 # the next starts when one ends
    typesetting.poll(busy=0)                 # the caller waits: both cores
    assert len(helpers) == 3
    typesetting.close()


def test_a_whole_document_starts_before_queued_shares(helpers, tmp_path):
    typesetting = typeset.Typesetting(tmp_path)
    for n in range(3):
        _share(typesetting, tmp_path, n)
    typesetting.add_whole(tmp_path / "book.pdf", lambda plain: "the book")
    helpers[0].returncode = 0
    typesetting.poll()
    assert helpers[1].jobs[1] == "-"          # the book (no folder to cut into), not share 1
    typesetting.close()


def test_wait_reports_the_shares_in_order_and_raises_a_helpers_error(helpers, tmp_path):
    typesetting = typeset.Typesetting(tmp_path)
    for n in range(2):
        _share(typesetting, tmp_path, n)
    typesetting.poll(busy=0)
    helpers[1].returncode = 0
    helpers[0].returncode = 1
    (typesetting.work / "helper-0.err").write_text("typst: something broke")
    told = []
    with pytest.raises(RuntimeError, match="typesetting failed: typst: something broke"):
        typesetting.wait(told.append)
    assert told == []


def test_close_kills_what_runs_and_starts_nothing_more(helpers, tmp_path):
    typesetting = typeset.Typesetting(tmp_path)
    for n in range(3):
        _share(typesetting, tmp_path, n)
    typesetting.close()
    assert [h.returncode for h in helpers] == [-9]
    typesetting.poll(busy=0)
    assert len(helpers) == 1


def test_an_error_while_queueing_stops_the_helpers_and_starts_no_more(helpers, tmp_path):
    with pytest.raises(ValueError, match="grading failed"):
        with typeset.Typesetting(tmp_path) as typesetting:
            for n in range(3):
                _share(typesetting, tmp_path, n)
            raise ValueError("grading failed")
    assert len(helpers) == 1 and helpers[0].returncode == -9     # killed
    typesetting.poll(busy=0)
    assert len(helpers) == 1 and not typesetting.work.exists()


def test_finish_tells_the_students_typeset_from_zero(helpers, tmp_path):
    told = []
    with typeset.Typesetting(tmp_path) as typesetting:
        for n in range(2):
            _share(typesetting, tmp_path, n)
        typesetting.poll(busy=0)
        for helper in helpers:
            helper.returncode = 0
        typesetting.finish(2, lambda done, total: told.append((done, total)))
    assert told == [(0, 2), (1, 2), (2, 2)]
