"""How fast the GATE mock is in a browser, against the same paper in the terminal.

Targets (issue #24): the first question within 1 s of the command; each action's round trip
(save, palette update) at most 50 ms at the median; the page at most 1 MB, math included.

One paper is made first (a terminal mock paused at once), then sat twice, both resumed at
question 1 after the same reading time: in the terminal through a pipe (the baseline) and in
the browser's server over HTTP, as exam.js calls it. A new browser mock is also timed from
the command. `BROWSER=true` keeps a real browser from opening.

    python bench/bench_web_mock.py [--runs 3] [--questions 20] [--actions 30] [--read 4]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from bench_practice import Piped  # noqa: E402  (a piped `quiz` session, timed by markers)

QUIZ = [sys.executable, "-m", "quizforge"]
PROMPT = b"answer or command \xe2\x80\xba "
STATIC = Path(__file__).resolve().parent.parent / "quizforge" / "web" / "static"


def _env(home: str) -> dict:
    env = {**os.environ, "QUIZFORGE_HOME": home, "COLUMNS": "100", "PYTHONUNBUFFERED": "1", "BROWSER": "true"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.1f} ms (max {max(values) * 1000:.1f})"


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as response:
        return response.read()


def _post(url: str, data: dict) -> dict:
    request = urllib.request.Request(url, data=json.dumps(data).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


class BrowserServer:
    """`quiz practice ... --browser`, started and timed from the command to its URL."""

    def __init__(self, args: list[str], home: str):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(QUIZ + ["practice", *args, "--browser"], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=_env(home), text=True)
        line = self.proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/[^/\s]+/", line)
        if not found:
            raise RuntimeError(f"no URL from quiz practice --browser: {line!r}{self.proc.stdout.read()[:400]!r}")
        self.url = found.group(0)

    def page_and_assets(self) -> int:
        """What a browser loads before it paints the page (not the fonts); returns the bytes."""
        page = _get(self.url)
        origin = self.url.rsplit("/", 2)[0]
        total = len(page)
        for asset in re.findall(r'(?:href|src)="(/static/[^"]+)"', page.decode()):
            if (STATIC / asset[len("/static/"):]).exists():   # the calculator may not be merged yet
                total += len(_get(origin + asset))
        return total

    def begin(self) -> dict:
        return _post(self.url + "api/begin", {})

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)   # Ctrl-C: the mock stays paused
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def browser_first_question(questions: int) -> tuple[float, float, int]:
    """A new browser mock: seconds from the command to the instructions page (with its scripts
    and styles), and to the first question on 'I am ready to begin'; and the page's bytes."""
    with tempfile.TemporaryDirectory() as home:
        server = BrowserServer(["--mock", "gate", "--questions", str(questions)], home)
        size = server.page_and_assets()
        page_at = time.perf_counter() - server.started
        view = server.begin()
        first_at = time.perf_counter() - server.started
        assert view["status"] == "running" and view["current"] == 1, view
        server.stop()
    return page_at, first_at, size + len(json.dumps(view))


def make_paper(home: str, questions: int) -> None:
    subprocess.run(QUIZ + ["practice", "--mock", "gate", "--questions", str(questions)], input=b"q\n",
                   env=_env(home), check=True, capture_output=True)


def terminal_sitting(home: str, actions: int, read: float) -> tuple[float, list[float]]:
    """The paper resumed in the terminal: first question, then `n` round trips; paused at Q1."""
    session = Piped(["practice", "--resume", "1"], home)
    first = session.wait_for(PROMPT, session.started)
    time.sleep(read)
    trips = []
    for _ in range(actions):
        trips.append(session.wait_for(PROMPT, session.send("n")))
    session.wait_for(PROMPT, session.send("g 1"))
    session.send("q")
    session.proc.wait(timeout=20)
    return first, trips


def browser_sitting(home: str, actions: int, read: float) -> tuple[float, list[float], int]:
    """The same paper resumed in the browser: first question, then button round trips."""
    server = BrowserServer(["--resume", "1"], home)
    server.page_and_assets()
    view = server.begin()
    first = time.perf_counter() - server.started
    time.sleep(read)
    total = view["total"]
    trips = []
    moves = [("save-next", {"answer": None}), ("mark-next", {"answer": None}), ("clear", {}),
             ("goto", {"number": 1}), ("save-next", {"answer": None})]
    state_bytes = 0
    for n in range(actions):
        path, data = moves[n % len(moves)]
        if path == "goto":
            data = {"number": 1 + (n * 7) % total}
        t = time.perf_counter()
        view = _post(server.url + f"api/{path}", data)
        trips.append(time.perf_counter() - t)
        assert view["status"] == "running", view
        state_bytes = max(state_bytes, len(json.dumps(view)))
    _post(server.url + "api/goto", {"number": 1})
    server.stop()
    return first, trips, state_bytes


def font_weight() -> tuple[int, int]:
    """Every KaTeX font (an upper bound: a browser fetches only the fonts a page uses)."""
    fonts = list((STATIC / "katex" / "fonts").glob("*.woff2"))
    return sum(p.stat().st_size for p in fonts), len(fonts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--actions", type=int, default=30)
    parser.add_argument("--read", type=float, default=4.0, help="seconds the learner reads the first question")
    args = parser.parse_args()

    page_at, first_at, page_bytes = zip(*(browser_first_question(args.questions) for _ in range(args.runs)))
    term_first, term_trips, web_first, web_trips, state_bytes = [], [], [], [], 0
    with tempfile.TemporaryDirectory() as home:
        make_paper(home, args.questions)
        for _ in range(args.runs):
            first, trips = terminal_sitting(home, args.actions, args.read)
            term_first.append(first)
            term_trips += trips
            first, trips, size = browser_sitting(home, args.actions, args.read)
            web_first.append(first)
            web_trips += trips
            state_bytes = max(state_bytes, size)
    font_bytes, fonts = font_weight()
    weight = max(page_bytes) + font_bytes

    print(f"GATE mock, {args.questions} questions, median of {args.runs} runs")
    print(f"  new browser mock: instructions page (HTML, CSS, JS) {_ms(list(page_at))}")
    print(f"  new browser mock: first question from the command   {_ms(list(first_at))}   target ≤ 1000 ms")
    print(f"  same paper resumed, first question: terminal {_ms(term_first)} · browser {_ms(web_first)}")
    print(f"  action round trip ({len(web_trips)} actions): browser {_ms(web_trips)}   target ≤ 50 ms")
    print(f"                                 terminal next question {_ms(term_trips)}")
    print(f"  page weight: {weight / 1024:.0f} KiB = page, scripts, styles and first view "
          f"{max(page_bytes) / 1024:.0f} KiB + all {fonts} KaTeX fonts {font_bytes / 1024:.0f} KiB   target ≤ 1024 KiB")
    print(f"  largest state sent after an action: {state_bytes / 1024:.1f} KiB")


if __name__ == "__main__":
    main()
