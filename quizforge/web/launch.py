"""`quiz practice --mock gate --browser`: serve one sitting on 127.0.0.1 until it is over.

The server listens on a random port with a random token in the URL, opens the page with
Python's webbrowser and prints the URL for machines where none opens. It stops a little
after the report has been read (the page and its fonts load first), or on Ctrl-C, which
keeps the mock paused for --resume in either front end.
"""

from __future__ import annotations

import socket
import sqlite3
import threading
import time
import webbrowser
from typing import Callable

from quizforge.errors import InputError
from quizforge.practice.mock import Heartbeat, MockEngine, mock_summary, new_mock, paused_mock
from quizforge.practice.store import History
from quizforge.practice.timefmt import clock_text
from quizforge.web.sitting import DEFAULT_CANDIDATE, WebSitting

# After the report has gone out: how long the server waits with no request before it stops.
REPORT_GRACE_SECONDS = 3.0


def _open_quietly(open_browser: Callable[[str], object], url: str) -> None:
    """Open the page if a browser can be started; the URL is printed either way."""
    try:
        open_browser(url)
    except Exception:   # webbrowser.Error, or a broken $BROWSER: the printed URL still works
        pass


def _listening_socket() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
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
                 resume: bool | int | str | None, clock: Callable[[], float] = time.time,
                 sections: str = "marks", name: str = DEFAULT_CANDIDATE) -> WebSitting:
    """The sitting to serve: mock `resume` (True: the last paused one), or a new paper.
    A new paper leaves paused mocks alone, and says how to go back to the last of them."""
    if resume:
        state = paused_mock(history, None if resume is True else resume)
    else:
        for paused in history.paused_mocks()[-1:]:
            console.print(f"mock {mock_summary(paused)} stays paused: quiz practice --resume {paused.number} "
                          "--browser continues it", style="dim")
        state = new_mock(history, questions, minutes, clock, sections)
    return WebSitting(MockEngine(history, state, clock), name=name, resumed=bool(resume))


def run_browser_mock(history: History, console, *, questions: int | None, minutes: float | None,
                     resume: bool | int | str | None, keyboard: bool = False,
                     clock: Callable[[], float] = time.time, open_browser: Callable[[str], object] = webbrowser.open,
                     sections: str = "marks", name: str = DEFAULT_CANDIDATE) -> str:
    """Serve one sitting; returns 'submitted' or 'timed_out'. Ctrl-C (or SIGTERM) leaves the mock
    paused, says how to resume it and raises KeyboardInterrupt."""
    import uvicorn

    from quizforge.web.server import create_app, new_token

    sitting = open_sitting(history, console, questions=questions, minutes=minutes, resume=resume, clock=clock,
                           sections=sections, name=name)
    engine, state = sitting.engine, sitting.state
    activity = _Activity()
    sock = _listening_socket()
    port = sock.getsockname()[1]
    token = new_token()
    app = create_app(sitting, token, port, keyboard=keyboard, on_request=activity.touch)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
    url = f"http://127.0.0.1:{port}/{token}/"

    def watch() -> None:
        """Hands the paper in at zero on the server's clock, and stops the server after the report."""
        while not server.should_exit:
            time.sleep(0.2)
            try:
                sitting.expire_if_due()
            except (sqlite3.Error, InputError):   # a failed write: the next request reports it
                continue
            if sitting.result is not None and time.monotonic() - activity.last >= REPORT_GRACE_SECONDS:
                server.should_exit = True

    console.print(f"GATE mock #{state.number} in your browser: {url}", style="bold", soft_wrap=True)
    console.print("(open that address if no browser opens · Ctrl-C pauses the mock)", style="dim")
    threading.Thread(target=_open_quietly, args=(open_browser, url), name="quizforge-open-browser", daemon=True).start()
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
    if sitting.result is None:
        engine.checkpoint()   # the clock so far; the session stays open, so the mock is paused
        console.print(f"\nMock paused: #{state.number}, {clock_text(state.remaining)} left · continue with: "
                      f"quiz practice --resume {state.number} (add --browser for the browser)", style="bold yellow")
        raise KeyboardInterrupt   # the command exits as interrupted (130, or 143 for SIGTERM)
    from quizforge.practice.mock_report import mock_report_view

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

        from quizforge.web.server import create_app, new_token

        self.sitting = sitting
        self.sock = _listening_socket()
        port = self.sock.getsockname()[1]
        token = new_token()
        app = create_app(sitting, token, port, keyboard=keyboard)
        self.server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]},
                                       name="quizforge-exam-server", daemon=True)
        self.url = f"http://127.0.0.1:{port}/{token}/"

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
