"""`quiz practice --mock gate --browser`: serve one sitting on 127.0.0.1 until it is over.

The server listens on a random port with a random token in its paths. The browser is sent to a
one-time link through a file readable only by the candidate (webbrowser would put a URL on the
browser's command line, where `ps` shows it to every local user); that first load sets the
session cookie every later request needs. The link is printed too, for machines where no
browser opens. When the paper is in, the server stays up until the page has shown the report,
or the page has gone quiet (closed), or REPORT_WAIT_SECONDS have passed; Ctrl-C keeps the mock
paused for --resume in either front end, and the open page says so at its next clock check.
"""

from __future__ import annotations

import html
import os
import secrets
import socket
import sqlite3
import threading
import time
import webbrowser
from pathlib import Path
from typing import Callable

from quizforge.errors import InputError
from quizforge.practice.mock import Heartbeat, MockEngine, mock_summary, new_mock, paused_mock
from quizforge.practice.store import History
from quizforge.practice.timefmt import clock_text
from quizforge.web.sitting import DEFAULT_CANDIDATE, WebSitting

# After the report has gone out: how long the server waits with no request (its images and
# fonts load) before it stops.
REPORT_GRACE_SECONDS = 3.0
# The open page asks for the clock every second, but a browser asks only once a minute from a tab
# hidden for a while: this long without a request, the page is closed.
PAGE_GONE_SECONDS = 90.0
# The most a handed-in paper's server waits for a page to show the report. The README quotes it.
REPORT_WAIT_SECONDS = 600.0


def _open_quietly(open_browser: Callable[[str], object], url: str) -> None:
    """Open the page if a browser can be started; the URL is printed either way."""
    try:
        open_browser(url)
    except Exception:   # webbrowser.Error, or a broken $BROWSER: the printed URL still works
        pass


def _listening_socket() -> socket.socket:
    # IPPROTO_TCP named: asyncio turns Nagle off only on sockets that say they are TCP, and with it
    # on, a response's body waits on the browser's delayed ACK of its headers (40 ms a request).
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    return sock


class _Activity:
    """When the page last asked the server for anything."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def touch(self) -> None:
        self.last = time.monotonic()


def open_sitting(history: History, console, *, questions: int | None, minutes: float | None,
                 resume: bool | int | str | None, clock: Callable[[], float] | None = None,
                 sections: str = "marks", name: str = DEFAULT_CANDIDATE) -> WebSitting:
    """The sitting to serve: mock `resume` (True: the last paused one), or a new paper.
    A new paper leaves paused mocks alone, and says how to go back to the last of them."""
    if resume:
        state = paused_mock(history, None if resume is True else resume)
    else:
        for paused in history.paused_mocks()[-1:]:
            console.print(f"mock {mock_summary(paused)} stays paused: quiz practice --resume {paused.number} "
                          "--browser continues it", style="dim")
        state = new_mock(history, questions, minutes, clock or time.time, sections)
    return WebSitting(MockEngine(history, state, clock), name=name, resumed=bool(resume))


def server_should_stop(sitting: WebSitting, quiet_for: float, over_for: float) -> bool:
    """Whether a sitting's server has done its work: the paper is marked, and the page has
    shown the report (then gone quiet while it loads), or has gone quiet for good (closed),
    or has had REPORT_WAIT_SECONDS. `quiet_for`: seconds since the last request; `over_for`:
    since the result was ready."""
    if sitting.result is None:
        return False
    return ((sitting.report_served and quiet_for >= REPORT_GRACE_SECONDS) or quiet_for >= PAGE_GONE_SECONDS
            or over_for >= REPORT_WAIT_SECONDS)


def write_opener(folder: Path, url: str) -> Path:
    """A page that sends the browser on to `url`, readable only by the candidate (as Jupyter
    opens its notebooks): the browser is started with this file's name, not with the link."""
    path = folder / f".quizforge-open-{secrets.token_hex(8)}.html"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    link = html.escape(url, quote=True)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        fh.write(f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={link}">'
                 f'<title>GATE mock</title><p>Opening the GATE mock: <a href="{link}">continue</a></p>\n')
    return path


def run_browser_mock(history: History, console, *, questions: int | None, minutes: float | None,
                     resume: bool | int | str | None, keyboard: bool = False,
                     clock: Callable[[], float] | None = None, open_browser: Callable[[str], object] = webbrowser.open,
                     sections: str = "marks", name: str = DEFAULT_CANDIDATE) -> str:
    """Serve one sitting; returns 'submitted' or 'timed_out'. Ctrl-C (or SIGTERM) leaves the mock
    paused, says how to resume it and raises KeyboardInterrupt."""
    import uvicorn

    from quizforge.web.server import PageKey, create_app, new_token, opening_url

    sitting = open_sitting(history, console, questions=questions, minutes=minutes, resume=resume, clock=clock,
                           sections=sections, name=name)
    engine, state = sitting.engine, sitting.state
    activity = _Activity()
    sock = _listening_socket()
    port = sock.getsockname()[1]
    token = new_token()
    access = PageKey()
    app = create_app(sitting, token, port, keyboard=keyboard, on_request=activity.touch, access=access)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    url = opening_url(port, token, access)

    def watch() -> None:
        """Hands the paper in at zero on the server's clock, and stops the server after the report."""
        over_since = None
        while not server.should_exit:
            time.sleep(0.2)
            try:
                sitting.expire_if_due()
            except (sqlite3.Error, InputError):   # a failed write: the next request reports it
                continue
            if sitting.result is not None:
                now = time.monotonic()
                over_since = over_since or now
                if server_should_stop(sitting, now - activity.last, now - over_since):
                    server.should_exit = True

    console.print(f"GATE mock #{state.number} in your browser: {url}", style="bold", soft_wrap=True)
    console.print("(the link opens the mock once, in the browser that opens it first · open it yourself if no "
                  "browser opens · Ctrl-C pauses the mock)", style="dim")
    try:
        opener = write_opener(history.path.parent, url)
    except OSError as exc:   # a read-only data folder: the printed link still works
        opener = None
        console.print(f"(no browser opened: cannot write its opening page in {history.path.parent}: "
                      f"{exc.strerror or exc})", style="dim")
    if opener is not None:
        threading.Thread(target=_open_quietly, args=(open_browser, opener.as_uri()), name="quizforge-open-browser",
                         daemon=True).start()
    threading.Thread(target=watch, name="quizforge-mock-watch", daemon=True).start()
    try:
        with Heartbeat(engine):
            server.run(sockets=[sock])
    except KeyboardInterrupt:   # uvicorn stops on Ctrl-C, then raises it again
        pass
    finally:
        server.should_exit = True
        engine.close()
        sock.close()
        if opener is not None:
            opener.unlink(missing_ok=True)
    if sitting.result is None and sitting.ended in ("submitted", "timed_out"):
        sitting.finish()   # handed in just before the server stopped: marked here
    if sitting.result is None:
        engine.checkpoint()   # the clock so far; the session stays open, so the mock is paused
        console.print(f"\nMock paused: #{state.number}, {clock_text(state.remaining)} left · continue with: "
                      f"quiz practice --resume {state.number} (add --browser for the browser)", style="bold yellow")
        raise KeyboardInterrupt   # the command exits as interrupted (130, or 143 for SIGTERM)
    from quizforge.tui.mock_report import mock_report_view

    console.print(mock_report_view(sitting.result, sitting.earlier))
    return sitting.ended or "submitted"


def browser_practice(*, data_dir=None, questions=None, minutes=None, resume=False, keyboard=False,
                     console=None, open_browser: Callable[[str], object] = webbrowser.open,
                     sections: str = "marks", name: str = DEFAULT_CANDIDATE) -> int:
    """What `quiz practice --browser` runs: the exit status, 0 once the paper is in."""
    from quizforge.practice.paths import history_path
    from quizforge.render import console as make_console

    console = console or make_console()
    history = History(history_path(data_dir))
    try:
        run_browser_mock(history, console, questions=questions, minutes=minutes, resume=resume,
                         keyboard=keyboard, open_browser=open_browser, sections=sections, name=name)
    finally:
        history.close()
    return 0


class BackgroundServer:
    """The exam server on a thread, for scripts and tests that drive a browser themselves
    (the command runs it on the main thread, where Ctrl-C reaches it)."""

    def __init__(self, sitting: WebSitting, *, keyboard: bool = False):
        import uvicorn

        from quizforge.web.server import PageKey, create_app, new_token, opening_url, page_url

        self.sitting = sitting
        self.sock = _listening_socket()
        port = self.sock.getsockname()[1]
        token = new_token()
        self.access = PageKey()
        app = create_app(sitting, token, port, keyboard=keyboard, access=self.access)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       name="quizforge-exam-server", daemon=True)
        self.url = opening_url(port, token, self.access)   # the first load: it sets the session cookie
        self.page_url = page_url(port, token)

    def __enter__(self) -> "BackgroundServer":
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started and self.thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
        return self

    def __exit__(self, *exc) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sitting.engine.close()
        self.sock.close()
