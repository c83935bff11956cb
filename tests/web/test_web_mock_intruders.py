"""What another local user, and a hostile client, can do to a browser mock: find no link in `ps`,
read no history, and break nothing with oversized, deeply nested or abandoned request bodies."""

from __future__ import annotations

import http.cookiejar
import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("uvicorn")
from practice_helpers import quiz_cmd, quiz_env  # noqa: E402
from quizforge.practice.mock import MockEngine  # noqa: E402
from quizforge.practice.store import History, MockState  # noqa: E402
from quizforge.web.launch import BackgroundServer  # noqa: E402
from quizforge.web.server import MAX_BODY  # noqa: E402
from quizforge.web.sitting import WebSitting  # noqa: E402
from test_web_mock_http import exam_opener  # noqa: E402

OTHER_USER = "quizforge-other"

# Run as the other user, with the system's Python: what can be learnt and done from there.
SNOOP = r"""
import json, os, re, sqlite3, subprocess, sys, urllib.error, urllib.request
folder, opener = sys.argv[1:3]
page_url = sys.stdin.read()   # not on a command line: ps would show it
found = {"ps": subprocess.run(["ps", "-ww", "-eo", "args"], capture_output=True, text=True).stdout}

def attempt(name, action):
    try:
        found[name] = action()
    except urllib.error.HTTPError as exc:
        found[name] = f"HTTP {exc.code}"
    except Exception as exc:
        found[name] = type(exc).__name__

attempt("list folder", lambda: os.listdir(folder))
attempt("read opener", lambda: open(opener).read())
attempt("read history", lambda: open(os.path.join(folder, "history.db"), "rb").read(16).decode())
attempt("query history", lambda: sqlite3.connect(f"file:{folder}/history.db?mode=ro", uri=True)
        .execute("select paper, answers from mocks").fetchall())
post = lambda path: urllib.request.urlopen(urllib.request.Request(page_url + path, data=b"{}",
                                           headers={"Content-Type": "application/json"}), timeout=10).read()
attempt("begin", lambda: post("api/begin").decode())
attempt("save-next", lambda: post("api/save-next").decode())
attempt("page", lambda: urllib.request.urlopen(page_url, timeout=10).read().decode())
print(json.dumps(found))
"""


def other_user() -> str:
    if os.geteuid() != 0:
        pytest.skip(f"creating a second Unix user needs root; these tests run as uid {os.geteuid()}")
    if shutil.which("useradd") is None:
        pytest.skip("useradd is not installed, so no second Unix user can be made")
    try:
        pwd.getpwnam(OTHER_USER)
    except KeyError:
        subprocess.run(["useradd", "--no-create-home", "--shell", "/usr/sbin/nologin", OTHER_USER], check=True)
    return OTHER_USER


def test_another_local_user_finds_no_link_in_ps_and_reads_no_history(tmp_path):
    user = other_user()
    home = Path(tempfile.mkdtemp(prefix="quizforge-home-", dir="/tmp"))   # a home others may pass through
    os.chmod(home, 0o755)
    env = {k: v for k, v in quiz_env(home).items() if k not in ("QUIZFORGE_HOME", "XDG_DATA_HOME")}
    env["HOME"] = str(home)
    # The browser: a process that keeps what it was asked to open on its command line, as a real one does.
    opened = tmp_path / "opened"
    env["BROWSER"] = (f"/usr/bin/python3 -c \"import sys, time; open({str(opened)!r}, 'w').write(sys.argv[1]); "
                      f"time.sleep(60)\" %s")
    proc = subprocess.Popen(quiz_cmd("practice", "--mock", "gate", "--questions", "3", "--browser"),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        line = proc.stdout.readline()
        for _ in range(200):
            if opened.exists() and opened.read_text():
                break
            time.sleep(0.05)
        opener = urllib.parse.urlparse(opened.read_text()).path
        url, candidate = exam_opener(line)   # the candidate's browser: it holds the cookie
        with candidate.open(urllib.request.Request(url + "api/begin", data=b"{}"), timeout=10) as response:
            assert json.loads(response.read())["status"] == "running"
        folder = home / ".local" / "share" / "quizforge"
        snoop = subprocess.run(["/usr/bin/python3", "-c", SNOOP, str(folder), opener], input=url, user=user,
                               capture_output=True, text=True, timeout=60, cwd="/")
        assert snoop.returncode == 0, snoop.stderr
        found = json.loads(snoop.stdout)
        token = url.rstrip("/").rsplit("/", 1)[1]
        assert opener in found["ps"]   # the browser's command line names the file ...
        assert token not in found["ps"] and "key=" not in found["ps"]   # ... and no link
        assert found["list folder"] == "PermissionError" and found["read opener"] == "PermissionError"
        assert found["read history"] == "PermissionError" and found["query history"] == "OperationalError"
        # Even with the page's address (an old screenshot, a shell history): nothing without the cookie.
        assert found["begin"] == found["save-next"] == found["page"] == "HTTP 403"
        with History(folder / "history.db") as history:
            assert history.paused_mocks()[-1].answers == {}
        modes = {p.name: p.stat().st_mode & 0o777 for p in [folder, *folder.iterdir()]}
        assert modes.pop("quizforge") == 0o700 and set(modes.values()) == {0o600}, modes
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(home, ignore_errors=True)


# --- hostile request bodies --------------------------------------------------------------------


class Live(BackgroundServer):
    """An exam server on a thread, begun, and a client holding its cookie."""

    def __init__(self, tmp_path: Path):
        self.history = History(tmp_path / "history.db")
        session = self.history.start_session("mock", {}, time.time())
        state = MockState(session, "gate", ["dims.shapes-0000", "dims.d_k-0001"], 30)
        self.history.create_mock(state)
        super().__init__(WebSitting(MockEngine(self.history, state)))
        self.cookies = http.cookiejar.CookieJar()
        self.client = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies))
        self.port = urllib.parse.urlparse(self.page_url).port

    def __enter__(self) -> "Live":
        super().__enter__()
        self.client.open(self.url, timeout=20).read()
        self.post("api/begin", b"{}")
        return self

    def __exit__(self, *exc) -> None:
        super().__exit__(*exc)
        self.history.close()

    def post(self, path: str, body: bytes) -> dict:
        request = urllib.request.Request(self.page_url + path, data=body, headers={"Content-Type": "application/json"})
        with self.client.open(request, timeout=20) as response:
            return json.loads(response.read())

    def raw(self, head: str, body: bytes = b"", hang_up: bool = False) -> bytes:
        """One request on a socket of its own (with the cookie); what came back, b'' when we hung up."""
        cookie = "; ".join(f"{c.name}={c.value}" for c in self.cookies)
        path = urllib.parse.urlparse(self.page_url).path
        start = head.format(path=path, host=f"127.0.0.1:{self.port}", cookie=cookie)
        with socket.create_connection(("127.0.0.1", self.port), timeout=20) as sock:
            sock.sendall(start.encode() + body)
            if hang_up:
                return b""
            received = b""
            try:
                while chunk := sock.recv(65536):
                    received += chunk
            except (ConnectionResetError, TimeoutError):
                pass
            return received


POST = ("POST {path}api/save-next HTTP/1.1\r\nHost: {host}\r\nCookie: {cookie}\r\n"
        "Content-Type: application/json\r\nConnection: close\r\n")


def test_a_deeply_nested_body_is_a_400_and_no_traceback(tmp_path, capfd):
    with Live(tmp_path) as live:
        deep = b'{"answer": ' + b"[" * 1900 + b"]" * 1900 + b"}"   # 3.8 KB, under the size limit
        assert len(deep) < MAX_BODY
        with pytest.raises(urllib.error.HTTPError) as refused:
            live.post("api/save-next", deep)
        assert refused.value.code == 400
        assert json.loads(refused.value.read()) == {"error": "request body is nested too deeply"}
        assert live.post("api/save-next", b'{"answer": "a"}')["current"] == 2   # the server goes on
    err = capfd.readouterr().err
    assert "Traceback" not in err and "RecursionError" not in err


def test_an_oversized_body_is_refused_by_its_length_before_it_is_read(tmp_path, capfd):
    with Live(tmp_path) as live:
        # 400 MB announced, 64 KB sent: the 413 comes at once, nothing waits for the rest.
        started = time.monotonic()
        answer = live.raw(POST + "Content-Length: 400000000\r\n\r\n", b"x" * 65536)
        assert time.monotonic() - started < 2
        assert answer.startswith(b"HTTP/1.1 413") and b"request body over 4096 bytes" in answer
        assert live.sitting.state.answers == {}
    assert "Traceback" not in capfd.readouterr().err


def test_a_chunked_body_is_cut_off_once_it_passes_the_limit(tmp_path, capfd):
    with Live(tmp_path) as live:
        chunk = b"x" * 1024
        chunks = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(8)) + b"0\r\n\r\n"
        answer = live.raw(POST + "Transfer-Encoding: chunked\r\n\r\n", chunks)
        assert answer.startswith(b"HTTP/1.1 413") and b"request body over 4096 bytes" in answer
        assert live.sitting.state.answers == {}
    assert "Traceback" not in capfd.readouterr().err


def test_a_client_that_hangs_up_mid_body_leaves_no_traceback(tmp_path, capfd):
    with Live(tmp_path) as live:
        live.raw(POST + "Content-Length: 1000\r\n\r\n", b'{"answer": "a', hang_up=True)
        time.sleep(0.5)
        assert live.post("api/save-next", b'{"answer": "a"}')["current"] == 2
        assert live.sitting.state.answers == {0: "a"}
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ClientDisconnect" not in err


def test_a_failure_inside_the_server_is_one_line_on_each_side_and_no_traceback(tmp_path, capfd, monkeypatch):
    with Live(tmp_path) as live:
        def broken(*args, **kwargs):
            raise RuntimeError("the palette could not be drawn")

        monkeypatch.setattr(live.sitting, "summary", broken)
        with pytest.raises(urllib.error.HTTPError) as failed:
            live.client.open(live.page_url + "api/summary", timeout=20)
        assert failed.value.code == 500
        monkeypatch.undo()
        assert live.post("api/save-next", b'{"answer": "a"}')["current"] == 2   # the server goes on
    err = capfd.readouterr().err
    assert "Traceback" not in err
    assert err.strip().splitlines() == [
        "quizforge: the exam server could not answer GET summary: RuntimeError: the palette could not be drawn"]
