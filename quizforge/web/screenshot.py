"""Refreshes the README's picture of the browser mock's exam screen (docs/gate-mock.png).

    python -m quizforge.web.screenshot [--out docs/gate-mock.png] [--width 1366] [--height 768]

A demo paper on a throwaway history, a few questions answered and marked so that the palette
shows GATE's states, photographed in Debian's headless Chromium through Playwright (both
come with the test extra and `apt-get install chromium`).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
# Light templates only (no torch): MCQ, NAT and MSQ, one-mark questions first as in a paper.
DEMO_PAPER = ["dims.shapes-0000", "softmax.scaling_effect-0003", "dims.d_k-0001", "concepts.path_length-0002",
              "sampling.temperature-0004", "concepts.complexity-0002", "norms.layernorm-0001", "sampling.top_k-0002",
              "concepts.mqa_gqa-0001", "positional.relative_shift-0001"]


def take(out: Path, width: int, height: int) -> None:
    from playwright.sync_api import sync_playwright

    from quizforge.practice.mock import MockEngine
    from quizforge.practice.store import History, MockState
    from quizforge.web.launch import BackgroundServer
    from quizforge.web.sitting import WebSitting

    with tempfile.TemporaryDirectory(prefix="quizforge-shot-") as home, History(Path(home) / "h.db") as history:
        session = history.start_session("mock", {"sections": "subject"}, time.time())
        state = MockState(session, "gate", list(DEMO_PAPER), 28, sections="subject")   # as a new mock has it
        history.create_mock(state)
        sitting = WebSitting(MockEngine(history, state), name="Candidate")
        with BackgroundServer(sitting) as server, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            page = browser.new_page(viewport={"width": width, "height": height})
            page.goto(server.url)
            page.click("#instructions-next")
            page.check("#declaration")
            page.click("#begin")
            # The page asks the server to begin; the answers below go straight to the sitting.
            page.wait_for_function("document.getElementById('question-number').textContent === 'Question No. 1'")
            # Some of each state: answered, marked, answered and marked, visited only.
            sitting.save_and_next("b")
            sitting.mark_and_next(None)
            sitting.mark_and_next("64")
            sitting.save_and_next(None)
            page.reload()
            page.wait_for_function("document.getElementById('question-number').textContent === 'Question No. 5'")
            page.wait_for_selector("#question-body .katex")
            for key in "0.4":
                page.click(f'#response [data-keypad="{key}"]')
            page.mouse.move(0, 0)
            page.screenshot(path=str(out))
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Screenshot of the browser mock's exam screen")
    parser.add_argument("--out", type=Path, default=Path("docs/gate-mock.png"))
    parser.add_argument("--width", type=int, default=1366)
    parser.add_argument("--height", type=int, default=768)
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print(f"error: no Chromium at {CHROMIUM} (apt-get install chromium)", file=sys.stderr)
        return 2
    import importlib.util

    if importlib.util.find_spec("playwright") is None:
        print("error: Playwright is not installed (pip install -e '.[test]')", file=sys.stderr)
        return 2
    args.out.parent.mkdir(parents=True, exist_ok=True)
    take(args.out, args.width, args.height)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
