"""The local web server of the browser mock: the exam page, its JSON actions, the report.

Only this machine's browser may use it: it listens on 127.0.0.1, every page and action sits
under a random token in the path (so another local user cannot guess it), and a request whose
Host header is not 127.0.0.1:PORT or localhost:PORT is refused (so a web page cannot reach it
by rebinding its own name to 127.0.0.1). Handlers are plain functions: Starlette runs them on
worker threads, and the engine's lock keeps them in order.
"""

from __future__ import annotations

import json
import math
import secrets
import sqlite3
import sys
from pathlib import Path
from typing import Callable

from jinja2 import Environment, PackageLoader, select_autoescape
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from quizforge.errors import InputError
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


class HostAndToken:
    """ASGI middleware: 403 for a foreign Host header, 404 for a path without the token."""

    def __init__(self, app, token: str, port: int):
        self.app = app
        self.token = token
        self.hosts = {f"127.0.0.1:{port}".encode(), f"localhost:{port}".encode()}

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        host = dict(scope["headers"]).get(b"host", b"")
        if host not in self.hosts:
            return await PlainTextResponse("forbidden: unexpected Host header", 403)(scope, receive, send)
        path = scope["path"]
        first, _, _ = path.lstrip("/").partition("/")
        if not (path.startswith("/static/") or secrets.compare_digest(first.encode(), self.token.encode())):
            return await PlainTextResponse("not found", 404)(scope, receive, send)
        return await without_tracebacks(self.app, scope, receive, send)


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
               on_request: Callable[[], None] | None = None) -> HostAndToken:
    """The app for one sitting at http://127.0.0.1:PORT/TOKEN/. `on_request` is told of each
    request (the launcher stops the server a while after the report has been read)."""
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
        from quizforge.web.report import report_context

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
    return HostAndToken(Starlette(routes=routes), token, port)


def _hms(seconds: float) -> str:
    """The countdown as GATE shows it: hh:mm:ss."""
    s = max(0, math.ceil(seconds))
    return f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"


def _marks_total(sitting: WebSitting) -> int:
    from quizforge.practice.mock_sections import question_marks

    return sum(question_marks(qid) for qid in sitting.state.paper)

