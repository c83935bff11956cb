"""The end of a browser paper in Debian's Chromium, started as the candidate starts it (the command,
its browser pointed at the opening file): time running out while nobody clicks, an early submit,
a pause in the terminal seen in the page, and a step of the wall clock. Skips with the reason
where Chromium or Playwright is missing."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
from browser_support import chromium_browser  # noqa: E402
from practice_helpers import quiz_cmd, quiz_env, run_quiz  # noqa: E402
from quizforge.practice.mock import MockEngine, new_mock  # noqa: E402
from quizforge.practice.store import History, MockState  # noqa: E402
from quizforge.web.launch import (  # noqa: E402
    PAGE_GONE_SECONDS, REPORT_GRACE_SECONDS, REPORT_WAIT_SECONDS, BackgroundServer, open_sitting, server_should_stop)
from quizforge.web.sitting import WebSitting  # noqa: E402

MCQ = "dims.shapes-0000"
NAT = "dims.d_k-0001"
MSQ = "concepts.complexity-0002"
LINK = re.compile(r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{20,}/\?key=[A-Za-z0-9_-]+")


@pytest.fixture(scope="module")
def browser():
    with chromium_browser() as context:
        yield context


class Command:
    """`quiz practice ... --browser` with $BROWSER noting what it was asked to open."""

    def __init__(self, tmp_path: Path, *args: str):
        self.opened = tmp_path / "opened"
        note = f"{sys.executable} -c \"import sys; open({str(self.opened)!r}, 'w').write(sys.argv[1])\" %s"
        self.proc = subprocess.Popen(quiz_cmd("practice", *args, "--browser"), stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=quiz_env(tmp_path, BROWSER=note))
        self.first_line = self.proc.stdout.readline()
        self.link = LINK.search(self.first_line).group(0)
        self.number = int(re.search(r"mock #(\d+)", self.first_line).group(1))

    def opener(self) -> str:
        """The file:// page the browser was given (it sends the browser on to the one-time link)."""
        for _ in range(200):
            if self.opened.exists() and self.opened.read_text():
                return self.opened.read_text()
            time.sleep(0.05)
        raise AssertionError(f"no browser was opened: {self.first_line!r}")

    def finish(self, timeout: float = 60) -> str:
        try:
            return self.first_line + self.proc.communicate(timeout=timeout)[0]
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def begin(page) -> None:
    page.click("#instructions-next")
    page.check("#declaration")
    page.click("#begin")
    page.wait_for_function("document.getElementById('question-number').textContent === 'Question No. 1'")


def test_sitting_still_at_zero_the_page_shows_the_report_and_the_command_ends(browser, tmp_path):
    command = Command(tmp_path, "--mock", "gate", "--questions", "2", "--minutes", "0.1")   # 6 seconds
    try:
        page = browser.new_page()
        page.goto(command.opener())   # as the candidate's browser does: the file, then the link
        begin(page)
        assert "key=" not in page.url   # the one-time key is out of the address bar
        # Nobody clicks: the page's clock polls alone must reach the report.
        page.wait_for_url("**/report", timeout=30_000)
        assert "Time ran out" in page.inner_text(".notice")
        assert page.locator(".review").count() == 2
        started = time.monotonic()
        out = command.finish()
    finally:
        if command.proc.poll() is None:
            command.proc.kill()
    assert command.proc.returncode == 0 and "Traceback" not in out
    assert time.monotonic() - started < 15   # it stops once the report has been shown
    assert "Score" in out


def test_an_early_submit_shows_progress_at_once_and_reaches_the_report(browser, tmp_path):
    command = Command(tmp_path, "--mock", "gate", "--questions", "20")
    try:
        page = browser.new_page()
        page.goto(command.opener())
        begin(page)   # the rest of the paper (torch among it) is still being made
        page.click("#submit-button")
        page.click("#summary-submit")
        page.click("#confirm-yes")
        assert page.inner_text("#dialog-title") in ("Submitting your paper", "Marking your paper")
        assert page.is_hidden("#dialog-close")   # nothing to click while it is handed in
        page.wait_for_url("**/report", timeout=60_000)
        assert page.locator(".review").count() == 20
        out = command.finish()
    finally:
        if command.proc.poll() is None:
            command.proc.kill()
    assert command.proc.returncode == 0 and "Traceback" not in out
    stats = run_quiz(tmp_path, "stats", "--json").stdout
    assert '"status": "submitted"' in stats


def test_the_page_shows_how_far_the_marking_has_got(browser, tmp_path):
    """Questions still to be made when Yes is clicked: the dialog counts them as they come."""
    history = History(tmp_path / "history.db")
    session = history.start_session("mock", {}, time.time())
    state = MockState(session, "gate", [MCQ, NAT, MSQ], 30)
    history.create_mock(state)
    engine = MockEngine(history, state)
    made = engine.question

    def slow_question(i):   # as a torch import would hold up the questions after the first
        if i > 0 and i not in engine._questions:
            time.sleep(1.0)
        return made(i)

    engine.question = slow_question
    with BackgroundServer(WebSitting(engine)) as live:
        page = browser.new_page()
        page.goto(live.url)
        page.click("#instructions-next")
        page.check("#declaration")
        page.click("#begin")
        page.wait_for_selector("#question-number:has-text('Question No. 1')")
        # Every dialog title shown from here on, kept across the move to the report.
        page.evaluate("""() => new MutationObserver(() => sessionStorage.titles =
            (sessionStorage.titles || '') + '|' + document.getElementById('dialog-title').textContent)
            .observe(document.getElementById('dialog-title'), {childList: true, characterData: true, subtree: true})""")
        page.click("#submit-button")
        page.click("#summary-submit")
        page.click("#confirm-yes")
        page.wait_for_selector("#marking-progress", timeout=10_000)
        assert re.fullmatch(r"[0-3] of 3", page.inner_text("#marking-progress"))
        page.wait_for_url("**/report", timeout=20_000)
        assert live.sitting.result["status"] == "submitted"
        titles = page.evaluate("sessionStorage.titles").split("|")[1:]
        assert titles[:3] == ["Exam Summary", "Submit the paper?", "Submitting your paper"]
        assert set(titles[3:]) == {"Marking your paper"}   # never "the server has stopped" on the way out
    history.close()


def test_a_pause_in_the_terminal_is_seen_in_the_page_at_once(browser, tmp_path):
    command = Command(tmp_path, "--mock", "gate", "--questions", "3")
    try:
        page = browser.new_page()
        page.goto(command.opener())
        begin(page)
        command.proc.send_signal(signal.SIGINT)   # Ctrl-C in the terminal
        out = command.finish()
        stopped = time.monotonic()
        page.wait_for_selector("#dialog-title:has-text('The exam server has stopped')", timeout=5_000)
        assert time.monotonic() - stopped < 3
    finally:
        if command.proc.poll() is None:
            command.proc.kill()
    assert command.proc.returncode == 130 and f"Mock paused: #{command.number}" in out
    body = page.inner_text("#dialog-body")
    assert f"quiz practice --resume {command.number} --browser" in body
    assert page.is_visible("#overlay") and page.is_hidden("#dialog-close")   # the dead buttons are covered
    before = page.inner_text("#time-left")
    time.sleep(2.2)
    assert page.inner_text("#time-left") == before   # the clock stopped with the server


def test_a_wall_clock_step_neither_ends_nor_stretches_a_browser_sitting(browser, tmp_path):
    time_machine = pytest.importorskip("time_machine")
    from rich.console import Console

    with time_machine.travel(time.time(), tick=True) as traveller:   # the wall clock, as NTP steps it
        history = History(tmp_path / "history.db")
        sitting = open_sitting(history, Console(file=io.StringIO()), questions=2, minutes=30, resume=False)
        with BackgroundServer(sitting) as live:
            page = browser.new_page()
            page.goto(live.url)
            begin(page)
            traveller.shift(3600)   # a laptop resumes: the wall clock jumps an hour
            time.sleep(2.5)         # the page asks the clock twice meanwhile
            assert sitting.status == "running" and sitting.result is None
            assert 29 * 60 < sitting.engine.time_left() <= 30 * 60
            assert page.inner_text("#time-left").startswith("00:29:")
            assert "/report" not in page.url
            traveller.shift(-7200)  # and back: no time is given either
            time.sleep(1.2)
            assert 29 * 60 < sitting.engine.time_left() < 30 * 60 - 3
            sitting.engine.checkpoint()
        resumed = history.paused_mocks()[-1]
        assert resumed.session_id == sitting.state.session_id and 3 < resumed.elapsed < 60   # a resume goes on from it
        history.close()


def test_a_wall_clock_step_neither_ends_nor_stretches_a_terminal_sitting(tmp_path):
    time_machine = pytest.importorskip("time_machine")
    with time_machine.travel(time.time(), tick=True) as traveller, History(tmp_path / "history.db") as history:
        engine = MockEngine(history, new_mock(history, 2, 10))   # as the terminal makes it
        engine.question(0)
        engine.start()
        traveller.shift(3600)
        assert engine.poll() == [] and engine.time_left() > 599
        traveller.shift(-7200)
        assert engine.time_left() <= 600
        engine.close()


def test_the_server_stays_up_until_the_report_is_shown_or_the_page_is_gone(tmp_path):
    """As the README says: the report shown (then a few quiet seconds for its fonts), or the page
    closed for 90 seconds, or 10 minutes."""
    assert (REPORT_GRACE_SECONDS, PAGE_GONE_SECONDS, REPORT_WAIT_SECONDS) == (3.0, 90.0, 600.0)
    with History(tmp_path / "history.db") as history:
        session = history.start_session("mock", {}, time.time())
        state = MockState(session, "gate", [MCQ], 30)
        history.create_mock(state)
        sitting = WebSitting(MockEngine(history, state))
        sitting.begin()
        assert not server_should_stop(sitting, quiet_for=3600, over_for=3600)   # not handed in: never
        sitting.submit()
        assert sitting.result is not None
        assert not server_should_stop(sitting, quiet_for=89, over_for=599)      # a hidden tab asks once a minute
        assert server_should_stop(sitting, quiet_for=90, over_for=90)           # the page has gone
        assert server_should_stop(sitting, quiet_for=0, over_for=600)           # the most it waits
        sitting.report_served = True
        assert not server_should_stop(sitting, quiet_for=2.9, over_for=5)       # its fonts still loading
        assert server_should_stop(sitting, quiet_for=3, over_for=5)
        sitting.engine.close()


def test_a_question_asked_for_jumps_the_queue_of_the_rest_of_the_paper(monkeypatch):
    """A palette jump during warm-up waits for its own question, not for every one before it."""
    import threading

    from quizforge.practice import prefetch

    made, first_running, release = [], threading.Event(), threading.Event()

    def generate(question_id):
        if question_id == "q1":   # the torch import, say: the worker is busy with it
            first_running.set()
            release.wait(10)
        made.append(question_id)
        return question_id

    monkeypatch.setattr(prefetch, "_generate", generate)
    monkeypatch.setattr(prefetch, "_is_light", lambda question_id: False)
    prefetcher = prefetch.Prefetcher()
    for question_id in ("q1", "q2", "q3", "q4"):
        prefetcher.prefetch(question_id)
    first_running.wait(10)
    threading.Timer(0.2, release.set).start()
    assert prefetcher.get("q4") == "q4"
    assert made[:2] == ["q1", "q4"]   # before q2 and q3, queued earlier
    assert prefetcher.get("q2") == "q2" and prefetcher.get("q3") == "q3"
    prefetcher.close()
