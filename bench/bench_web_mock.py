"""How fast the GATE mock is in a browser: in Chromium as a candidate sees it, and over HTTP
against the same paper in the terminal.

In Chromium (issue #31), each beside a plain `python -c "import torch"` timed in the same run:
the command's start to the first question visible (the page opened from the file the command
hands the browser, the instructions clicked through), a click to the redrawn palette, and
Submit → Yes to the report on screen, both after the paper was read a while and right after
the start (the rest of the paper, torch among it, still being made). Targets: the first
question within 1.5 torch imports, a click within 50 ms at the median, submit to report
within 1 torch import for 20 questions.

Over HTTP (issue #24): each action's round trip (save, palette update) at most 50 ms at the
median; the page at most 1 MB, math included. One paper is made first (a terminal mock paused
at once), then sat twice, both resumed at question 1 after the same reading time: in the
terminal through a pipe (the baseline) and in the browser's server, as exam.js calls it.

    python bench/bench_web_mock.py [--runs 3] [--questions 20] [--actions 30] [--read 4] [--chromium-only]
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


def _env(home: str, browser: str = "true") -> dict:
    env = {**os.environ, "QUIZFORGE_HOME": home, "COLUMNS": "100", "PYTHONUNBUFFERED": "1", "BROWSER": browser}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.1f} ms (max {max(values) * 1000:.1f})"


LINK = re.compile(r"http://127\.0\.0\.1:\d+/[^/\s]+/\?key=\S+")


class BrowserServer:
    """`quiz practice ... --browser`, started and timed from the command to its link, which is
    opened here as a browser opens it (the session cookie then rides on every request)."""

    def __init__(self, args: list[str], home: str, browser: str = "true"):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(QUIZ + ["practice", *args, "--browser"], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env=_env(home, browser), text=True)
        line = self.proc.stdout.readline()
        found = LINK.search(line)
        if not found:
            raise RuntimeError(f"no link from quiz practice --browser: {line!r}{self.proc.stdout.read()[:400]!r}")
        self.link = found.group(0)
        self.url = self.link.partition("?")[0]
        self.client = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())

    def get(self, url: str) -> bytes:
        with self.client.open(url, timeout=30) as response:
            return response.read()

    def post(self, url: str, data: dict) -> dict:
        request = urllib.request.Request(url, data=json.dumps(data).encode(),
                                         headers={"Content-Type": "application/json"})
        with self.client.open(request, timeout=30) as response:
            return json.loads(response.read())

    def page_and_assets(self) -> int:
        """What a browser loads before it paints the page (not the fonts); returns the bytes."""
        page = self.get(self.link)
        origin = self.url.rsplit("/", 2)[0]
        total = len(page)
        for asset in re.findall(r'(?:href|src)="(/static/[^"]+)"', page.decode()):
            if (STATIC / asset[len("/static/"):]).exists():   # the calculator may not be merged yet
                total += len(self.get(origin + asset))
        return total

    def begin(self) -> dict:
        return self.post(self.url + "api/begin", {})

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
        view = server.post(server.url + f"api/{path}", data)
        trips.append(time.perf_counter() - t)
        assert view["status"] == "running", view
        state_bytes = max(state_bytes, len(json.dumps(view)))
    server.post(server.url + "api/goto", {"number": 1})
    server.stop()
    return first, trips, state_bytes


def font_weight() -> tuple[int, int]:
    """Every KaTeX font (an upper bound: a browser fetches only the fonts a page uses)."""
    fonts = list((STATIC / "katex" / "fonts").glob("*.woff2"))
    return sum(p.stat().st_size for p in fonts), len(fonts)


# --- in Chromium ------------------------------------------------------------------------------

def torch_import() -> float:
    """The baseline: a plain `python -c "import torch"`, as any torch command pays it."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.perf_counter() - started


# Resolves once the palette has been redrawn after the click, and the frame with it painted.
CLICK_TO_PALETTE = """selector => new Promise(resolve => {
    const palette = document.getElementById('palette');
    const started = performance.now();
    const watch = new MutationObserver(() => {
        watch.disconnect();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - started), 0));
    });
    watch.observe(palette, {childList: true, subtree: true, attributes: true, characterData: true});
    document.querySelector(selector).click();
})"""


class ChromiumSitting:
    """A new browser mock from the command, its page opened in Chromium from the opening file."""

    def __init__(self, context, questions: int, home: str):
        self.opened = Path(home) / "opened"
        self.opened.unlink(missing_ok=True)
        note = f"{sys.executable} -c \"import sys; open({str(self.opened)!r}, 'w').write(sys.argv[1])\" %s"
        self.server = BrowserServer(["--mock", "gate", "--questions", str(questions)], home, browser=note)
        while not (self.opened.exists() and self.opened.read_text()):
            time.sleep(0.005)
        self.page = context.new_page()
        self.page.goto(self.opened.read_text())
        self.page.click("#instructions-next")
        self.page.check("#declaration")
        self.page.click("#begin")
        self.page.wait_for_function("document.getElementById('question-number').textContent === 'Question No. 1'"
                                    " && document.getElementById('question-body').children.length > 0")
        self.first = time.perf_counter() - self.server.started

    def clicks(self, n: int) -> list[float]:
        """Save & Next and palette jumps, alternately: seconds from the click to the redrawn palette."""
        out = []
        for i in range(n):
            selector = "#save-next" if i % 2 == 0 else f'#palette [data-goto]:nth-child({1 + (i * 3) % 5})'
            out.append(self.page.evaluate(CLICK_TO_PALETTE, selector) / 1000)
        return out

    def submit(self) -> float:
        """Submit → Submit (the summary) → Yes: seconds from Yes to the report loaded."""
        self.page.click("#submit-button")
        self.page.click("#summary-submit")
        self.page.wait_for_selector("#confirm-yes")
        started = time.perf_counter()
        self.page.click("#confirm-yes")
        self.page.wait_for_url("**/report", wait_until="load", timeout=120_000)
        took = time.perf_counter() - started
        self.page.close()
        self.server.proc.wait(timeout=60)   # the server stops once the report is out
        return took


def chromium_runs(runs: int, questions: int, actions: int, read: float) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from browser_support import CHROMIUM, CHROMIUM_ARGS

    got: dict[str, list[float]] = {"torch": [], "first": [], "clicks": [], "submit read": [], "submit early": []}
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as p:
        context = p.chromium.launch_persistent_context(profile, executable_path=CHROMIUM, args=CHROMIUM_ARGS,
                                                       headless=True, viewport={"width": 1366, "height": 768})
        try:
            for _ in range(runs):
                got["torch"].append(torch_import())
                with tempfile.TemporaryDirectory() as home:
                    sitting = ChromiumSitting(context, questions, home)
                    got["first"].append(sitting.first)
                    time.sleep(read)   # the candidate reads: the rest of the paper is made meanwhile
                    got["clicks"] += sitting.clicks(actions)
                    got["submit read"].append(sitting.submit())
                with tempfile.TemporaryDirectory() as home:
                    sitting = ChromiumSitting(context, questions, home)
                    got["submit early"].append(sitting.submit())   # at once: torch is still loading
        finally:
            context.close()
    return got


def print_chromium(got: dict[str, list[float]], questions: int) -> None:
    torch_s = statistics.median(got["torch"])

    def ratio(key: str) -> str:
        return f"{statistics.median(got[key]) / torch_s:4.2f} torch imports"

    print(f"In Chromium, {questions} questions, median of {len(got['torch'])} runs; "
          f"python -c 'import torch' {_ms(got['torch'])}")
    print(f"  command → first question visible  {_ms(got['first'])} = {ratio('first')}   target ≤ 1.5")
    clicks = sorted(got["clicks"])
    print(f"  click → palette redrawn ({len(clicks)} clicks) {_ms(clicks)}, p90 "
          f"{clicks[int(len(clicks) * 0.9)] * 1000:.1f} ms   target ≤ 50 ms median")
    print(f"  Yes → report, paper read first    {_ms(got['submit read'])} = {ratio('submit read')}   target ≤ 1")
    print(f"  Yes → report, submitted at once   {_ms(got['submit early'])} = {ratio('submit early')}"
          "   (progress shown meanwhile)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--questions", type=int, default=20)
    parser.add_argument("--actions", type=int, default=30)
    parser.add_argument("--read", type=float, default=4.0, help="seconds the learner reads the first question")
    parser.add_argument("--chromium-only", action="store_true", help="only the measurements in Chromium")
    args = parser.parse_args()

    print_chromium(chromium_runs(args.runs, args.questions, args.actions, args.read), args.questions)
    if args.chromium_only:
        return

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
