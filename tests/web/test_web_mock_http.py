"""The browser mock over HTTP (Starlette's test client): GATE's buttons, the palette after each
kind of move, the server's clock, resume across front ends, the token and Host checks, and no
key or worked solution in any response before the paper is handed in."""

from __future__ import annotations

import html
import io
import json
import re
import signal
import stat
import sys
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from rich.console import Console

pytest.importorskip("starlette")
from starlette.testclient import TestClient  # noqa: E402

from practice_helpers import expected_marks, quiz_cmd, quiz_env, right_answer, wrong_answer
from practice_helpers import run_quiz as run_quiz_process  # noqa: E402
from signal_support import sigint_as_usual  # noqa: E402
from clock_support import SteppedClock  # noqa: E402
from quizforge.bank.registry import question  # noqa: E402
from quizforge.practice.mock import MockEngine, new_mock  # noqa: E402
from quizforge.practice.store import History, MockState  # noqa: E402
from quizforge.web.launch import open_sitting  # noqa: E402
from quizforge.web.question_html import solution_html  # noqa: E402
from quizforge.web.server import PageKey, create_app  # noqa: E402
from quizforge.web.sitting import WebSitting  # noqa: E402

START = 1_800_000_000.0
PORT = 8123
TOKEN = "t0ken-for-tests"
# Two one-mark questions (MCQ, NAT), then two two-mark ones (MSQ, NAT): two sections by marks.
MCQ = next(question(f"dims.shapes-{s:04x}") for s in range(10))
NAT = question("dims.d_k-0001")
MSQ = question("concepts.complexity-0001")
NAT2 = question("norms.layernorm-0001")
PAPER = [MCQ.id, NAT.id, MSQ.id, NAT2.id]


def sitting_for(history: History, paper=PAPER, minutes: float = 10, clock=None) -> WebSitting:
    clock = clock or SteppedClock(START)
    session = history.start_session("mock", {}, START)
    state = MockState(session, "gate", list(paper), minutes)
    history.create_mock(state)
    return WebSitting(MockEngine(history, state, clock))


def client_for(sitting: WebSitting) -> TestClient:
    """A client that has opened the one-time link, as the browser does first: it holds the cookie."""
    access = PageKey()
    client = TestClient(create_app(sitting, TOKEN, PORT, access=access), base_url=f"http://127.0.0.1:{PORT}")
    assert client.get(f"/{TOKEN}/?key={access.key}").status_code == 200
    return client


def exam_opener(line: str):
    """The link `quiz practice --browser` printed, opened as a browser opens it: (the page's URL,
    an opener that holds the session cookie)."""
    link = re.search(r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{20,}/\?key=[A-Za-z0-9_-]+", line).group(0)
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(link, timeout=20) as response:
        assert "GATE Data Science" in response.read().decode()
    return link.partition("?")[0], opener


class Exam:
    """The page's requests, as exam.js sends them."""

    def __init__(self, client: TestClient):
        self.client = client
        self.bodies: list[str] = []

    def get(self, path: str):
        response = self.client.get(f"/{TOKEN}{path}")
        self.bodies.append(response.text)
        return response

    def post(self, path: str, data: dict | None = None, expect: int = 200) -> dict:
        response = self.client.post(f"/{TOKEN}/api/{path}", json={} if data is None else data)
        self.bodies.append(response.text)
        assert response.status_code == expect, response.text
        return response.json()

    def save_next(self, answer):
        return self.post("save-next", {"answer": answer})

    def mark_next(self, answer):
        return self.post("mark-next", {"answer": answer})


def states(view: dict) -> list[str]:
    return [cell["state"] for cell in view["palette"]]


@pytest.fixture
def exam(history):
    sitting = sitting_for(history)
    exam = Exam(client_for(sitting))
    exam.sitting = sitting
    exam.history = history
    return exam


def saved_state(history: History, session_id: int) -> MockState:
    return next(m for _, m in history.mocks() if m.session_id == session_id)


# --- the token and the Host header ----------------------------------------------------------

def test_only_the_token_and_a_local_host_reach_the_mock(exam):
    client = exam.client
    assert client.get(f"/{TOKEN}/").status_code == 200
    for path in ("/", "/api/state", f"/{TOKEN}x/", f"/x{TOKEN}/api/state", "/wrong/api/state", "/static/../history.db"):
        assert client.get(path).status_code == 404, path
    assert client.post("/wrong/api/begin", json={}).status_code == 404
    assert not exam.sitting.started
    for host in ("evil.example", f"evil.example:{PORT}", "127.0.0.1", f"127.0.0.1:{PORT + 1}", f"0.0.0.0:{PORT}"):
        response = client.get(f"/{TOKEN}/api/state", headers={"Host": host})
        assert response.status_code == 403 and "Host" in response.text, host
        assert client.post(f"/{TOKEN}/api/begin", json={}, headers={"Host": host}).status_code == 403
    assert not exam.sitting.started
    assert client.get(f"/{TOKEN}/api/state", headers={"Host": f"localhost:{PORT}"}).status_code == 200
    assert client.get("/static/keypad.js").status_code == 200


def test_the_page_links_its_assets_and_the_calculator_contract(exam):
    page = exam.get("/").text
    for asset in ("katex/katex.min.js", "katex/katex.min.css", "katex/auto-render.min.js", "gate.css", "exam.js",
                  "keypad.js"):
        assert f'/static/{asset}"' in page
        assert exam.client.get(f"/static/{asset}").status_code == 200, asset
    assert '<link rel="stylesheet" href="/static/calculator.css">' in page
    assert '<script src="/static/calculator.js"></script>' in page
    assert 'id="calculator-button"' in page
    assert "I have read and understood the instructions" in page
    assert "10 minutes" in page and "6 marks" in page   # paper-specific instructions from the paper


# --- before the start ---------------------------------------------------------------------------

def test_the_clock_starts_only_when_the_candidate_begins(exam):
    clock = exam.sitting.engine.clock
    view = exam.get("/api/state").json()
    assert view["status"] == "instructions" and "question" not in view and view["seconds_left"] == 600
    error = exam.post("save-next", {"answer": "a"}, expect=400)
    assert error == {"error": "the exam has not begun: tick the declaration and press I am ready to begin"}
    clock.now += 120   # reading the instructions costs nothing
    view = exam.post("begin")
    assert view["status"] == "running" and view["seconds_left"] == 600
    assert view["current"] == 1 and view["question"]["kind"] == "MCQ"
    assert view["question"]["negative"] == "−1/3 for a wrong answer"
    assert states(view) == ["not answered", "not visited", "not visited", "not visited"]
    assert [s["name"] for s in view["sections"]] == ["1-mark questions", "2-mark questions"]
    assert [s["questions"] for s in view["sections"]] == [[1, 2], [3, 4]]
    clock.now += 30
    assert exam.post("begin")["seconds_left"] == 570   # a second begin (a reload) restarts nothing


# --- GATE's buttons ---------------------------------------------------------------------------

def test_save_and_next_saves_and_moves_on_and_is_in_the_history_at_once(exam):
    exam.post("begin")
    view = exam.save_next(right_answer(MCQ.id))
    assert view["current"] == 2 and view["question"]["kind"] == "NAT"
    assert states(view) == ["answered", "not answered", "not visited", "not visited"]
    assert view["sections"][0]["counts"]["answered"] == 1 and view["counts"]["not visited"] == 2
    on_disk = saved_state(exam.history, exam.sitting.state.session_id)
    assert on_disk.answers == {0: right_answer(MCQ.id)} and on_disk.current == 1


def test_save_and_next_on_a_sections_last_question_opens_the_next_section(exam):
    exam.post("begin")
    exam.save_next(None)
    view = exam.save_next(right_answer(NAT.id))
    assert view["current"] == 3 and view["section"] == 1 and view["question"]["marks_text"] == "2 marks"
    assert states(view) == ["not answered", "answered", "not answered", "not visited"]
    view = exam.save_next(None)
    view = exam.save_next(None)   # the paper's last question: back to the first
    assert view["current"] == 1 and view["section"] == 0


def test_a_palette_jump_does_not_save_and_marks_the_question_left_not_answered(exam):
    exam.post("begin")
    view = exam.post("goto", {"number": 3})
    assert view["current"] == 3
    assert states(view) == ["not answered", "not visited", "not answered", "not visited"]
    assert exam.sitting.state.answers == {}
    view = exam.post("goto", {"number": 2})   # a section tab sends the same jump
    assert states(view) == ["not answered", "not answered", "not answered", "not visited"]


def test_mark_for_review_and_next_with_and_without_an_answer(exam):
    exam.post("begin")
    view = exam.mark_next(None)
    assert states(view)[0] == "marked for review" and view["current"] == 2
    view = exam.mark_next(right_answer(NAT.id))
    assert states(view)[:2] == ["marked for review", "answered and marked"] and view["current"] == 3
    view = exam.post("goto", {"number": 2})
    assert view["marked"] and view["answer"] == right_answer(NAT.id)
    view = exam.save_next(right_answer(NAT.id))   # Save & Next takes the review mark off
    assert states(view)[1] == "answered"
    view = exam.post("goto", {"number": 1})
    view = exam.save_next(wrong_answer(MCQ.id))
    assert states(view)[0] == "answered"


def test_clear_response_removes_the_answer_and_stays(exam):
    exam.post("begin")
    exam.mark_next(right_answer(MCQ.id))
    view = exam.post("goto", {"number": 1})
    assert states(view)[0] == "answered and marked"
    view = exam.post("clear")
    assert view["current"] == 1 and view["answer"] is None and states(view)[0] == "marked for review"
    view = exam.mark_next(None)   # still marked: Mark for Review & Next does not toggle it off
    assert states(view)[0] == "marked for review"
    assert saved_state(exam.history, exam.sitting.state.session_id).answers == {}


def test_save_and_next_with_nothing_on_screen_clears_a_saved_answer(exam):
    exam.post("begin")
    exam.save_next(right_answer(MCQ.id))
    exam.post("goto", {"number": 1})
    view = exam.save_next(None)
    assert states(view)[0] == "not answered" and exam.sitting.state.answers == {}


def test_an_unreadable_answer_is_refused_in_one_line_and_nothing_moves(exam):
    exam.post("begin")
    exam.save_next(None)
    view = exam.save_next("12..5")
    assert view["current"] == 2 and "error" in view and "\n" not in view["error"]
    assert states(view)[1] == "not answered"
    view = exam.post("goto", {"number": 3})
    view = exam.save_next("z")   # not an option letter
    assert view["current"] == 3 and view["error"]


@pytest.mark.parametrize("path, body, message", [
    ("save-next", b"not json", "request body is not JSON"),
    ("save-next", b"[1, 2]", "request body must be a JSON object"),
    ("save-next", b'{"answer": 7}', "answer: expected text or null"),
    ("save-next", json.dumps({"answer": "1" * 201}).encode(), "answer: at most 200 characters"),
    ("goto", b'{"number": 0}', "number: a question from 1 to 4"),
    ("goto", b'{"number": "2"}', "number: a question from 1 to 4"),
    ("goto", b'{"number": true}', "number: a question from 1 to 4"),
    ("goto", b"{}", "number: a question from 1 to 4"),
    ("goto", b"\xff\xfe", "request body is not JSON"),
    ("save-next", b"{" + b" " * 5000 + b"}", "request body over 4096 bytes"),
])
def test_hostile_requests_get_one_line_and_change_nothing(exam, path, body, message):
    exam.post("begin")
    response = exam.client.post(f"/{TOKEN}/api/{path}", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code in (400, 413)
    assert response.json() == {"error": message}
    assert exam.sitting.state.answers == {} and exam.sitting.state.current == 0


# --- submission ---------------------------------------------------------------------------------

def test_submit_summary_per_section_then_the_report_scores_as_the_engine(exam):
    exam.post("begin")
    answers = {MCQ.id: wrong_answer(MCQ.id), NAT.id: right_answer(NAT.id), MSQ.id: right_answer(MSQ.id)}
    exam.save_next(answers[MCQ.id])
    exam.mark_next(answers[NAT.id])
    exam.save_next(answers[MSQ.id])
    summary = exam.get("/api/summary").json()["sections"]
    # The palette's five states, none counted twice: each row adds up to its questions.
    assert summary == [
        {"section": "1-mark questions", "questions": 2, "answered": 1, "not answered": 0, "not visited": 0,
         "marked for review": 0, "answered and marked": 1},
        {"section": "2-mark questions", "questions": 2, "answered": 1, "not answered": 1, "not visited": 0,
         "marked for review": 0, "answered and marked": 0}]
    assert exam.get("/report").status_code == 409
    view = exam.post("submit")
    assert view["status"] == "submitted"
    expected = sum(expected_marks(qid, answers.get(qid)) for qid in PAPER)
    result = exam.sitting.result
    assert result["score"] == round(expected, 2)
    assert result["negative"] == round(1 / 3, 2)
    report = exam.get("/report").text
    assert f'id="score">{result["score"]:g} / 6<' in report
    assert '<dd id="negative">−0.33</dd>' in report
    for q in (MCQ, NAT, MSQ, NAT2):
        assert solution_html(q) in report
        from quizforge.bank.syllabus import syllabus_text

        assert f"{q.id} · {syllabus_text(q.template)} · time" in report      # the GATE DA tag (issue 33)
    [miss] = result["misconceptions"]   # the wrong MCQ option is a named mistake
    assert f"<b>{miss['label']}</b> ×1" in report
    assert "Your first mock: the next report will compare with this one." in report
    row = next(row for row, m in exam.history.mocks() if m.session_id == exam.sitting.state.session_id)
    assert row["status"] == "submitted" and json.loads(row["result"])["score"] == result["score"]
    assert len(exam.history.attempts(mode="mock")) == 4   # quiz stats counts the browser's mock
    after = exam.post("save-next", {"answer": "a"})
    assert after["status"] == "submitted" and exam.sitting.state.answers.get(3) is None


def test_no_key_and_no_worked_solution_reaches_the_page_before_submission(exam):
    exam.get("/")
    exam.get("/api/state")
    exam.post("begin")
    exam.save_next(wrong_answer(MCQ.id))
    exam.mark_next("12..5")
    exam.mark_next(right_answer(NAT.id))
    exam.save_next(None)
    exam.post("goto", {"number": 2})
    exam.post("clear")
    exam.get("/api/paper")
    exam.get("/api/summary")
    exam.get("/api/clock")
    exam.get("/report")
    before = "\n".join(exam.bodies)
    for field in ('"correct"', '"why"', '"solution"', '"answer_md"', '"misconception', '"hints"', '"key"', "feedback"):
        assert field not in before, field
    for q in (MCQ, NAT, MSQ, NAT2):
        assert solution_html(q) not in before
        for step in q.solution:
            if step.md and len(step.md) > 12:
                assert step.md not in before
        for option in q.options:
            if option.why:
                assert option.why not in before
    for q in (NAT, NAT2):
        key = right_answer(q.id)
        assert key not in q.prompt   # (else the scan below proves nothing)
        assert key not in before.replace(f'"answer": "{key}"', "").replace(f'"answer":"{key}"', "")
    exam.post("submit")
    report = exam.get("/report").text   # the scan sees a key once it is there
    assert solution_html(NAT) in report and right_answer(NAT2.id) in report


# --- the server's clock --------------------------------------------------------------------------

def test_at_zero_the_server_hands_the_paper_in_as_it_stands(exam):
    clock = exam.sitting.engine.clock
    exam.post("begin")
    exam.save_next(right_answer(MCQ.id))
    clock.now += 599
    assert exam.get("/api/clock").json() == {"status": "running", "seconds_left": 1.0}
    clock.now += 1.5
    assert exam.get("/api/clock").json()["status"] == "timed_out"
    view = exam.save_next(right_answer(NAT.id))   # too late: not applied
    assert view["status"] == "timed_out"
    result = exam.sitting.finish()   # marked behind the request that found time up
    assert result["status"] == "timed_out" and result["answered"] == 1 and result["seconds"] == 600
    assert "Time ran out" in exam.get("/report").text
    row = next(row for row, m in exam.history.mocks() if m.session_id == exam.sitting.state.session_id)
    assert row["status"] == "timed_out"


def test_the_server_times_out_without_any_request(exam):
    """The launcher's watcher polls the sitting; no page needs to be open."""
    clock = exam.sitting.engine.clock
    exam.post("begin")
    clock.now += 601
    assert exam.sitting.expire_if_due() and exam.sitting.result["status"] == "timed_out"


# --- one history, two front ends -------------------------------------------------------------------

def test_a_mock_paused_in_the_browser_resumes_in_the_terminal_and_back(tmp_path):
    home = tmp_path   # QUIZFORGE_HOME: the history file sits right in it
    with History(home / "history.db") as history:
        state = new_mock(history, 4, 10)
        sitting = WebSitting(MockEngine(history, state))
        exam = Exam(client_for(sitting))
        exam.post("begin")
        first = state.paper[0]
        exam.save_next(right_answer(first))
        exam.mark_next(None)
        sitting.engine.checkpoint()   # what Ctrl-C does in the launcher; the session stays open
        sitting.engine.close()
        number = state.number
    # In the terminal: the answer and the mark given in the browser are there.
    out = run_quiz_process(home, "practice", "--resume", str(number), input="l\nq\n").stdout
    assert f"Resuming mock #{number}: 1/4 answered" in out
    assert "›" in out and "◆" in out and "●" in out   # answered, marked for review
    with History(home / "history.db") as history:
        sitting = open_sitting(history, Console(file=io.StringIO()), questions=None, minutes=None,
                               resume=str(number))
        exam = Exam(client_for(sitting))
        view = exam.post("begin")
        assert sitting.resumed and view["number"] == number
        assert states(view)[:2] == ["answered", "marked for review"]
        assert view["current"] == 3   # where the terminal left it (the palette does not move)
        exam.post("submit")
    stats = run_quiz_process(home, "stats", "--json").stdout
    assert json.loads(stats)["mocks"]["history"][-1]["score"] == expected_marks(first, right_answer(first))


@pytest.mark.parametrize("stop, status", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_browser_mock_from_the_command_opens_and_prints_its_url_and_pauses_on_ctrl_c(tmp_path, stop, status):
    home = tmp_path / "home"
    opened = tmp_path / "opened"
    # $BROWSER, as Python's webbrowser reads it: a command that notes the address it is given.
    browser = f"{sys.executable} -c \"import sys; open({str(opened)!r}, 'w').write(sys.argv[1])\" %s"
    proc = subprocess.Popen(quiz_cmd("practice", "--mock", "gate", "--browser", "--questions", "3"),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=quiz_env(home, BROWSER=browser), preexec_fn=sigint_as_usual)
    try:
        line = proc.stdout.readline()
        link = re.search(r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{20,}/\?key=[A-Za-z0-9_-]+", line).group(0)
        for _ in range(100):
            if opened.exists() and opened.read_text():
                break
            time.sleep(0.05)
        # The browser is given a file readable only by the candidate, which sends it on to the link.
        given = opened.read_text()
        assert given.startswith("file:///") and "key=" not in given and "127.0.0.1" not in given
        opener_page = Path(urllib.parse.urlparse(given).path)
        assert stat.S_IMODE(opener_page.stat().st_mode) == 0o600
        assert f'content="0;url={html.escape(link)}"' in opener_page.read_text()
        url, opener = exam_opener(line)
        begin = urllib.request.Request(url + "api/begin", data=b"{}", headers={"Content-Type": "application/json"})
        with opener.open(begin, timeout=10) as response:
            view = json.loads(response.read())
        # Seen later, the link opens nothing: its key has been used, and no request works without the cookie.
        for target in (link, url, url + "api/state"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(target, timeout=10)
            assert refused.value.code == 403 and "link has been used" in refused.value.read().decode()
        assert view["status"] == "running" and view["total"] == 3
        proc.send_signal(stop)
        out = proc.communicate(timeout=20)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == status and "Traceback" not in out
    assert f"Mock paused: #{view['number']}" in out and "quiz practice --resume" in out
    assert not opener_page.exists()
    stats = json.loads(run_quiz_process(home, "stats", "--json").stdout)
    assert [m["number"] for m in stats["mocks"]["paused"]] == [view["number"]]


def test_browser_options_are_checked_and_a_missing_extra_says_how_to_install(tmp_path, monkeypatch, run_quiz):
    code, _, err = run_quiz("practice", "--browser", "--data-dir", str(tmp_path))
    assert code == 2 and "--browser belongs to --mock gate or --resume" in err
    code, _, err = run_quiz("practice", "--mock", "gate", "--keyboard", "--data-dir", str(tmp_path))
    assert code == 2 and "--keyboard belongs to --browser" in err
    code, _, err = run_quiz("practice", "--resume", "7", "--browser", "--data-dir", str(tmp_path))
    assert code == 2 and err == ("error: there is no paused mock 7: no mock is paused; start one with "
                                 "quiz practice --mock gate\n")
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a))
    code, out, err = run_quiz("practice", "--mock", "gate", "--browser", "--data-dir", str(tmp_path))
    assert code == 2 and out == ""
    assert err == 'error: the browser mock needs the web extra: pip install -e ".[web]" (missing: uvicorn)\n'


def test_a_browser_mock_from_the_command_ends_with_the_report_and_stops(tmp_path):
    proc = subprocess.Popen(quiz_cmd("practice", "--mock", "gate", "--browser", "--questions", "2"),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=quiz_env(tmp_path, BROWSER="true"))
    try:
        url, opener = exam_opener(proc.stdout.readline())

        def post(path: str) -> dict:
            request = urllib.request.Request(url + path, data=b"{}", headers={"Content-Type": "application/json"})
            with opener.open(request, timeout=20) as response:
                return json.loads(response.read())

        assert post("api/begin")["status"] == "running"
        assert post("api/submit")["status"] == "submitted"
        with opener.open(url + "report", timeout=20) as response:
            assert "Question by question" in response.read().decode()
        started = time.monotonic()
        out = proc.communicate(timeout=30)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and time.monotonic() - started < 15
    assert "Score" in out and "0 / " in out   # the terminal's report too
    stats = json.loads(run_quiz_process(tmp_path, "stats", "--json").stdout)
    assert stats["mocks"]["history"][-1]["status"] == "submitted"


def test_the_page_and_its_assets_ship_as_package_data_and_weigh_under_a_megabyte(exam):
    import fnmatch
    import tomllib
    from pathlib import Path

    package = Path(__file__).parents[2] / "quizforge"
    globs = tomllib.loads((package.parent / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    shipped = [f for f in (package / "web").rglob("*") if f.is_file() and "__pycache__" not in f.parts
               and f.suffix != ".py"]
    for f in shipped:
        relative = f.relative_to(package).as_posix()
        assert any(fnmatch.fnmatch(relative, g) for g in globs["quizforge"]), relative
    assert (package / "web/static/katex/LICENSE").read_text().startswith("The MIT License")

    page = exam.get("/").text
    weight = len(page.encode())
    for asset in re.findall(r'(?:href|src)="(/static/[^"]+)"', page):
        response = exam.client.get(asset)
        assert response.status_code == 200 or asset.startswith("/static/calculator."), asset
        weight += len(response.content) if response.status_code == 200 else 0
    weight += sum(f.stat().st_size for f in (package / "web/static/katex/fonts").glob("*.woff2"))
    assert weight <= 1024 * 1024, weight


def test_the_report_compares_with_earlier_mocks(history):
    for answer in (None, right_answer(MCQ.id)):
        sitting = sitting_for(history)
        exam = Exam(client_for(sitting))
        exam.post("begin")
        if answer:
            exam.save_next(answer)
        exam.post("submit")
    report = exam.get("/report").text
    percent = 100 * sitting.result["score"] / 6
    assert f"▲ +{percent:.1f} points" in report and "on the last mock (0.0%)" in report
    assert "a personal best" in report and report.count('class="bar') == 2


def test_a_failed_write_is_one_line_and_the_next_try_saves(exam, monkeypatch):
    import sqlite3

    exam.post("begin")

    def locked(*args, **kwargs):
        raise sqlite3.OperationalError("database is locked")

    monkeypatch.setattr(exam.history, "save_mock", locked)
    response = exam.client.post(f"/{TOKEN}/api/save-next", json={"answer": right_answer(MCQ.id)})
    assert response.status_code == 503
    assert response.json() == {"error": "could not save to the history: database is locked"}
    monkeypatch.setattr(exam.sitting.engine.clock, "now", START + 601)   # time up: handing in needs a write
    response = exam.client.get(f"/{TOKEN}/api/state")
    assert response.status_code == 503 and response.json()["error"].startswith("could not save")
    monkeypatch.undo()
    assert exam.save_next(right_answer(MCQ.id))["current"] == 2   # the next try saves
    assert saved_state(exam.history, exam.sitting.state.session_id).answers == {0: right_answer(MCQ.id)}


def test_the_server_and_the_first_question_load_neither_torch_nor_sympy(tmp_path):
    """As in the terminal: the first question is light, and torch loads behind it."""
    script = f"""
import io, sys
from rich.console import Console
from starlette.testclient import TestClient
import quizforge.cli.practice, quizforge.web.launch
from quizforge.practice.store import History
from quizforge.web.launch import open_sitting
from quizforge.web.question_html import question_view
from quizforge.web.server import PageKey, create_app
history = History({str(tmp_path / "history.db")!r})
sitting = open_sitting(history, Console(file=io.StringIO()), questions=20, minutes=None, resume=False)
access = PageKey()
client = TestClient(create_app(sitting, "t", 1, access=access), base_url="http://127.0.0.1:1")
assert client.get(f"/t/?key={{access.key}}").status_code == 200
assert client.get("/t/api/state").json()["status"] == "instructions"
question_view(sitting.engine.question(0))
print(sorted(name for name in ("torch", "sympy") if name in sys.modules))
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_every_button_is_saved_at_once_so_kill_9_loses_nothing(tmp_path):
    proc = subprocess.Popen(quiz_cmd("practice", "--mock", "gate", "--browser", "--questions", "3"),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=quiz_env(tmp_path, BROWSER="true"))
    try:
        url, opener = exam_opener(proc.stdout.readline())

        def post(path: str, data: dict) -> dict:
            request = urllib.request.Request(url + path, data=json.dumps(data).encode(),
                                             headers={"Content-Type": "application/json"})
            with opener.open(request, timeout=20) as response:
                return json.loads(response.read())

        view = post("api/begin", {})
        with History(tmp_path / "history.db") as history:
            paper = history.paused_mocks()[-1].paper
        post("api/save-next", {"answer": right_answer(paper[0])})
        post("api/mark-next", {"answer": None})
        proc.kill()
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
    with History(tmp_path / "history.db") as history:
        [state] = history.paused_mocks()
    assert state.number == view["number"]
    assert state.answers == {0: right_answer(paper[0])} and state.marked == {1} and state.current == 2


def test_attention_weights_are_a_heatmap_and_other_matrices_plain_tables():
    from quizforge.bank.steps import matrix
    from quizforge.text.html import matrix_html

    weights = matrix("Weights softmax(·)", [["0.2500", "0.7500"], ["1.0000", "0.0000"]], row_labels=["q1", "q2"],
                     col_labels=["k1", "k2"])
    table = matrix_html(weights)
    assert table.startswith('<table class="matrix heatmap"><caption>Weights softmax(·)</caption>')
    assert '<tr><th></th><th>k1</th><th>k2</th></tr>' in table
    assert '<td style="--w:0.750" class="dark">0.7500</td>' in table and '<td style="--w:0.250">0.2500</td>' in table
    assert "<caption>" not in matrix_html(weights, caption=False)
    for plain in (matrix("Q", [[1, 0], [0, 1]]),                       # one-hot inputs: not weights
                  matrix("Weights softmax(·)", [["0.5", "0.6"]]),      # a row that does not sum to 1
                  matrix("Weights", [["0.5", "x <b>"], ["0.5", "0.5"]])):
        html = matrix_html(plain)
        assert html.startswith('<table class="matrix">') and "--w" not in html
    assert "x &lt;b&gt;" in matrix_html(matrix("Weights", [["x <b>"]]))   # cells are escaped


def test_a_new_browser_mock_leaves_a_paused_one_and_says_how_to_go_back(history):
    paused = new_mock(history, 3, 10)
    out = io.StringIO()
    sitting = open_sitting(history, Console(file=out, width=200), questions=2, minutes=5, resume=False)
    assert sitting.state.number == paused.number + 1 and len(sitting.state.paper) == 2 and not sitting.resumed
    assert out.getvalue() == (f"mock #{paused.number} (0 of 3 answered, 10:00 left) stays paused: "
                              f"quiz practice --resume {paused.number} --browser continues it\n")
    assert [m.number for m in history.paused_mocks()] == [paused.number, sitting.state.number]


# --- matrix answers: a grid of cells ----------------------------------------------------------

MASK_ADDITIVE = question("matrices.causal_mask-0002")   # 2×3, 0 and −∞
MASK_BINARY = question("matrices.causal_mask-000a")     # 3×3, 1 and 0: no −∞ key


def test_a_matrix_answer_is_saved_from_its_cells_as_the_grader_reads_it_and_restored_into_them(history):
    sitting = sitting_for(history, paper=[MASK_ADDITIVE.id, MASK_BINARY.id, MCQ.id])
    exam = Exam(client_for(sitting))
    view = exam.post("begin")
    assert view["question"]["matrix"] == {"rows": 2, "cols": 3, "minus_infinity": True}
    assert view["answer_cells"] is None and "click a cell" in view["question"]["instruction"]
    cells = [["0", "0", "-inf"], ["0", "0", "0"]]
    view = exam.save_next(cells)
    assert view["current"] == 2 and view["question"]["matrix"] == {"rows": 3, "cols": 3, "minus_infinity": False}
    assert sitting.state.answers == {0: "0 0 -inf; 0 0 0"}
    assert saved_state(history, sitting.state.session_id).answers == {0: "0 0 -inf; 0 0 0"}
    view = exam.post("goto", {"number": 1})
    assert view["answer_cells"] == cells and view["answer"] == "0 0 -inf; 0 0 0"

    # An incomplete or mistyped grid is named in one line; nothing is saved and nothing moves.
    view = exam.post("goto", {"number": 2})
    for grid, said in (([["1", "0", "0"], ["1", "", "0"], ["1", "1", "1"]], "row 2, column 2 is empty"),
                       ([["1", "0", "0"], ["1", "1", "0"], ["1", "1", "1;2"]], "row 3, column 3 is not a number")):
        view = exam.save_next(grid)
        assert said in view["error"] and "\n" not in view["error"] and view["current"] == 2
        assert 1 not in sitting.state.answers
    # A grid the page would never send is refused whole.
    for grid in ([["1", "0"], ["1", "1"]], [["1", "0", "0"]] * 2 + [["1", 1, "1"]], "x" * 300, [["1" * 21] * 3] * 3):
        response = exam.client.post(f"/{TOKEN}/api/save-next", json={"answer": grid})
        assert response.status_code == 400 and "\n" not in response.json()["error"]
    # Every cell empty is nothing on screen: Save & Next clears a saved answer.
    exam.post("goto", {"number": 1})
    view = exam.save_next([[""] * 3, [" "] * 3])
    assert sitting.state.answers == {} and view["current"] == 2


def test_a_matrix_typed_in_the_terminal_comes_back_into_the_cells(history):
    sitting = sitting_for(history, paper=[MASK_BINARY.id, MASK_ADDITIVE.id, MCQ.id])
    sitting.state.answers[0] = "[[1, 0, 0],\n [1, 1, 0],\n [1, 1, 1]]"   # as the terminal mock keeps it
    sitting.state.answers[1] = "0 0 −∞\n0 0 0"
    exam = Exam(client_for(sitting))
    view = exam.post("begin")
    assert view["answer_cells"] == [["1", "0", "0"], ["1", "1", "0"], ["1", "1", "1"]]
    view = exam.save_next(view["answer_cells"])   # saved back unchanged, in the grid's text form
    assert view["answer_cells"] == [["0", "0", "-inf"], ["0", "0", "0"]]
    exam.save_next(view["answer_cells"])
    assert sitting.state.answers == {0: "1 0 0; 1 1 0; 1 1 1", 1: "0 0 -inf; 0 0 0"}
    # Past the separators, an entry is the grader's to judge, as a typed matrix is.
    exam.post("goto", {"number": 2})
    view = exam.save_next([["0", "0", "1.2.3"], ["0", "0", "0"]])
    assert view["current"] == 2 and view["error"] and "\n" not in view["error"]
    assert sitting.state.answers[1] == "0 0 -inf; 0 0 0"


def test_a_matrix_answer_is_a_table_in_the_question_paper_and_the_report(history):
    sitting = sitting_for(history, paper=[MASK_ADDITIVE.id, MASK_BINARY.id])
    exam = Exam(client_for(sitting))
    exam.post("begin")
    exam.save_next([["0", "-inf", "-inf"], ["0", "0", "0"]])   # one entry wrong
    paper = exam.get("/api/paper").json()["questions"]
    assert paper[0]["answer_table"] == ('<table class="matrix answer-matrix"><tr><td>0</td><td>−∞</td><td>−∞</td>'
                                        '</tr><tr><td>0</td><td>0</td><td>0</td></tr></table>')
    assert paper[1]["answer_table"].count("<td></td>") == 9   # unanswered: the empty 3×3 grid
    exam.post("submit")
    assert sitting.result["items"][0]["correct"] is False
    report = exam.get("/report").text
    assert ('<table class="matrix answer-matrix key-matrix"><tr><td>0</td><td>0</td><td>−∞</td></tr>'
            '<tr><td>0</td><td>0</td><td>0</td></tr></table>') in report
    # The candidate's matrix, its one wrong entry (row 1, column 2) marked.
    assert ('<table class="matrix answer-matrix your-matrix"><tr><td>0</td><td class="wrong-entry">−∞</td>'
            '<td>−∞</td></tr>') in report


def test_no_key_of_a_matrix_question_reaches_the_page_before_submission(history):
    from quizforge.answers.matrix_questions import matrix_text
    from quizforge.web.question_html import answer_table, key_cells

    sitting = sitting_for(history, paper=[MASK_ADDITIVE.id, MASK_BINARY.id, MCQ.id])
    exam = Exam(client_for(sitting))
    exam.get("/")
    exam.post("begin")
    exam.save_next([["0", "-inf", "-inf"], ["0", "0", "0"]])
    exam.mark_next([["9", "9", "9"]] * 3)
    exam.post("goto", {"number": 1})
    exam.get("/api/paper")
    exam.get("/api/summary")
    exam.get("/report")
    before = "\n".join(exam.bodies)
    for q in (MASK_ADDITIVE, MASK_BINARY):
        cells = key_cells(q)
        for form in (matrix_text(q.answer, q.decimals), "; ".join(" ".join(row) for row in cells),
                     json.dumps(cells), answer_table(cells), solution_html(q)):
            assert form not in before, form
        assert q.answer_md not in before
    for field in ('"key"', '"solution"', '"correct"', "feedback", '"misconception'):
        assert field not in before, field
