"""The local web server of the browser mock: the exam page, its JSON actions, the report.

Only the candidate's browser may use it: it listens on 127.0.0.1, every page and action sits
under a random token in the path, a request whose Host header is not 127.0.0.1:PORT or
localhost:PORT is refused (so a web page cannot reach it by rebinding its own name to
127.0.0.1), and every request must carry the session cookie that the one-time link set in the
browser that opened it first (so an address seen in `ps` opens nothing). Handlers are plain
functions: Starlette runs them on worker threads, and the engine's lock keeps them in order.
"""

from __future__ import annotations

import json
import math
import secrets
import sqlite3
import sys
import threading
from pathlib import Path
from typing import Callable
from urllib.parse import parse_qs

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request, cookie_parser
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from quizforge.errors import InputError
from quizforge.practice.mock_sections import question_marks
from quizforge.web.report import report_context
from quizforge.web.sitting import BadRequest, WebSitting

STATIC = Path(__file__).parent / "static"
MAX_BODY = 4096


class BodyTooLarge(Exception):
    """Over MAX_BODY bytes, by its Content-Length or as it streamed in."""


async def read_small_body(request: Request) -> bytes:
    """The body, refused by its declared length before a byte is read, and while it streams
    in once it passes MAX_BODY (a chunked upload declares no length)."""
    declared = request.headers.get("content-length", "")
    if declared.strip().isdigit() and int(declared) > MAX_BODY:
        raise BodyTooLarge
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise BodyTooLarge
    return bytes(body)


def new_token() -> str:
    return secrets.token_urlsafe(18)


def _templates() -> Environment:
    env = Environment(loader=PackageLoader("quizforge.web", "templates"), autoescape=select_autoescape(["html"]))
    env.filters["html"] = Markup   # fragments built by question_html, already escaped there
    return env


def storage_safe(endpoint: Callable[[Request], Response]) -> Callable[[Request], Response]:
    """A history write that fails (the file busy for too long, a full disk) is one line, not a traceback."""
    def guarded(request: Request) -> Response:
        try:
            return endpoint(request)
        except (sqlite3.Error, InputError) as exc:
            return JSONResponse({"error": f"could not save to the history: {exc}"}, 503)
    return guarded


COOKIE = "quizforge_exam"
USED_LINK = ("this exam link has been used: the mock opens in the browser that opened it first. To sit it in "
             "another browser, press Ctrl-C in the terminal and run quiz practice --resume --browser")


class PageKey:
    """Who may use the exam: the browser that first opened the one-time link.

    The link's `key` works once; that first load sets an HttpOnly, SameSite=Strict cookie that
    every later request must carry. So the address, should another local user see it (in `ps`,
    where a browser's command line shows it, or in a shell history), opens nothing."""

    def __init__(self) -> None:
        self.key = secrets.token_urlsafe(18)
        self.session = secrets.token_urlsafe(32)
        self.used = False
        self._lock = threading.Lock()

    def take_key(self, offered: str) -> bool:
        """True once, for the right key."""
        with self._lock:
            if self.used or not secrets.compare_digest(offered.encode(), self.key.encode()):
                return False
            self.used = True
            return True

    def holds_session(self, cookie_header: str) -> bool:
        cookie = cookie_parser(cookie_header).get(COOKIE, "")
        return secrets.compare_digest(cookie.encode(), self.session.encode())


class HostAndToken:
    """ASGI middleware: 403 for a foreign Host header, 404 for a path without the token, and
    403 for a request without the session cookie, bar the one-time link that sets it."""

    def __init__(self, app, token: str, port: int, access: PageKey):
        self.app = app
        self.token = token
        self.access = access
        self.hosts = {f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = dict(scope["headers"])
        if headers.get(b"host", b"") not in self.hosts:
            return await PlainTextResponse("forbidden: unexpected Host header", 403)(scope, receive, send)
        path = scope["path"]
        first, _, _ = path.lstrip("/").partition("/")
        if path.startswith("/static/"):   # the page's scripts, styles and fonts: nothing of the sitting
            return await without_tracebacks(self.app, scope, receive, send)
        if not secrets.compare_digest(first.encode(), self.token.encode()):
            return await PlainTextResponse("not found", 404)(scope, receive, send)
        if self.access.holds_session(headers.get(b"cookie", b"").decode("latin-1")):
            return await without_tracebacks(self.app, scope, receive, send)
        offered = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("key", [""])[0]
        if scope["method"] == "GET" and path == f"/{self.token}/" and offered and self.access.take_key(offered):
            cookie = (f"{COOKIE}={self.access.session}; Path=/{self.token}/; HttpOnly; SameSite=Strict").encode()

            async def with_cookie(message) -> None:
                if message["type"] == "http.response.start":
                    message = {**message, "headers": [*message.get("headers", []), (b"set-cookie", cookie)]}
                await send(message)

            return await without_tracebacks(self.app, scope, receive, with_cookie)
        return await PlainTextResponse(USED_LINK, 403)(scope, receive, send)


async def without_tracebacks(app, scope, receive, send) -> None:
    """Run the app; what it fails on is one line to the page and one on stderr, never a traceback
    in the candidate's terminal (Starlette answers 500 and re-raises, and uvicorn prints it)."""
    started = False

    async def tracked(message) -> None:
        nonlocal started
        started = started or message["type"] == "http.response.start"
        await send(message)

    try:
        await app(scope, receive, tracked)
    except ClientDisconnect:
        pass   # the page went away: nobody is there to answer
    except Exception as exc:
        print(f"quizforge: the exam server could not answer {scope['method']} {scope['path'].rpartition('/')[2]}: "
              f"{type(exc).__name__}: {exc}", file=sys.stderr)
        if not started:
            await JSONResponse({"error": f"the exam server failed: {type(exc).__name__}"}, 500)(scope, receive, send)


def create_app(sitting: WebSitting, token: str, port: int, *, keyboard: bool = False,
               on_request: Callable[[], None] | None = None, access: PageKey | None = None) -> HostAndToken:
    """The app for one sitting at http://127.0.0.1:PORT/TOKEN/, first opened at
    opening_url(...) (`access.key` works once). `on_request` is told of each request (the
    launcher stops the server once the report has gone out and the page has gone quiet)."""
    templates = _templates()
    base = f"/{token}"

    def touched() -> None:
        if on_request is not None:
            on_request()

    def page(request: Request) -> Response:
        touched()
        sitting.expire_if_due(wait=False)
        s = sitting.state
        body = templates.get_template("exam.html").render(
            base=base, static="/static", name=sitting.name, number=s.number, total=len(s.paper),
            minutes=f"{s.minutes:g}", sections=sitting.sections, keyboard=keyboard, resumed=sitting.resumed,
            answered=len(s.answers), marks_total=_marks_total(sitting), time_left=_hms(sitting.engine.time_left()))
        return HTMLResponse(body, headers={"Cache-Control": "no-store"})

    def report(request: Request) -> Response:
        touched()
        sitting.expire_if_due()
        if sitting.result is None:
            return PlainTextResponse("the report is shown once the paper is submitted", 409)

        questions = [sitting.engine.question(i) for i in range(len(sitting.state.paper))]
        context = report_context(sitting.result, sitting.earlier, questions)
        body = templates.get_template("report.html").render(static="/static", name=sitting.name,
                                                             number=sitting.state.number, **context)
        sitting.report_served = True
        return HTMLResponse(body, headers={"Cache-Control": "no-store"})

    def action(handler: Callable[[WebSitting, dict], object]):
        async def endpoint(request: Request) -> Response:
            touched()
            try:
                raw = await read_small_body(request)
            except BodyTooLarge:
                return JSONResponse({"error": f"request body over {MAX_BODY} bytes"}, 413)
            except ClientDisconnect:   # the page went away mid-request: nobody reads an answer
                return Response(status_code=400)
            try:
                data = json.loads(raw or b"{}")
            except (ValueError, UnicodeDecodeError):
                return JSONResponse({"error": "request body is not JSON"}, 400)
            except RecursionError:
                return JSONResponse({"error": "request body is nested too deeply"}, 400)
            if not isinstance(data, dict):
                return JSONResponse({"error": "request body must be a JSON object"}, 400)
            try:
                return JSONResponse(await run_in_threadpool(handler, sitting, data))
            except BadRequest as exc:
                return JSONResponse({"error": str(exc)}, 400)
            except (sqlite3.Error, InputError) as exc:   # the history file: busy too long, or the disk
                return JSONResponse({"error": f"could not save to the history: {exc}"}, 503)
        return endpoint

    def state(request: Request) -> Response:
        touched()
        sitting.expire_if_due(wait=False)
        return JSONResponse(sitting.view())

    def clock(request: Request) -> Response:
        """The countdown as the server keeps it; the page only shows it. Asked every second, it
        also tells the launcher that the page is still open, and once the paper is in, how far
        its marking has got."""
        touched()
        sitting.expire_if_due(wait=False)
        out = {"status": sitting.status, "seconds_left": round(sitting.engine.time_left(), 1)}
        if sitting.ended in ("submitted", "timed_out"):
            out.update(report_ready=sitting.report_ready, marking=sitting.marking())
        return JSONResponse(out)

    def summary(request: Request) -> Response:
        touched()
        return JSONResponse({"sections": sitting.summary()})

    def paper(request: Request) -> Response:
        touched()
        try:
            return JSONResponse({"questions": sitting.paper()})
        except BadRequest as exc:
            return JSONResponse({"error": str(exc)}, 400)

    routes = [
        Route(f"{base}/", storage_safe(page)),
        Route(f"{base}/report", storage_safe(report)),
        Route(f"{base}/api/state", storage_safe(state)),
        Route(f"{base}/api/clock", storage_safe(clock)),
        Route(f"{base}/api/summary", storage_safe(summary)),
        Route(f"{base}/api/paper", storage_safe(paper)),
        Route(f"{base}/api/begin", action(lambda s, d: s.begin()), methods=["POST"]),
        Route(f"{base}/api/save-next", action(lambda s, d: s.save_and_next(d.get("answer"))), methods=["POST"]),
        Route(f"{base}/api/mark-next", action(lambda s, d: s.mark_and_next(d.get("answer"))), methods=["POST"]),
        Route(f"{base}/api/clear", action(lambda s, d: s.clear()), methods=["POST"]),
        Route(f"{base}/api/goto", action(lambda s, d: s.goto(d.get("number"))), methods=["POST"]),
        Route(f"{base}/api/submit", action(lambda s, d: s.submit()), methods=["POST"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    return HostAndToken(Starlette(routes=routes), token, port, access or PageKey())


def page_url(port: int, token: str) -> str:
    return f"http://127.0.0.1:{port}/{token}/"


def opening_url(port: int, token: str, access: PageKey) -> str:
    """The one-time link that lets a browser in (it then holds the session cookie)."""
    return f"{page_url(port, token)}?key={access.key}"


def _hms(seconds: float) -> str:
    """The countdown as GATE shows it: hh:mm:ss."""
    s = max(0, math.ceil(seconds))
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"


def _marks_total(sitting: WebSitting) -> int:
    return sum(question_marks(qid) for qid in sitting.state.paper)

