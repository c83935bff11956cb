"""How fast `quiz practice` puts questions on screen.

Targets (issue #4): the first question within 0.5 s of starting `quiz practice`, each next
question within 50 ms of the answer. Sessions are driven through a pipe, as a script would,
and through a pseudo-terminal (pexpect), as a learner would; the learner "reads" each
question for a few seconds, which is when the background thread loads torch and sympy.

    python bench/bench_practice.py [--runs 5] [--questions 8] [--read 4]
"""

from __future__ import annotations

import argparse
import os
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUIZ = [sys.executable, "-m", "quizforge"]


def _env(home: str) -> dict:
    env = {**os.environ, "QUIZFORGE_HOME": home, "COLUMNS": "100", "PYTHONUNBUFFERED": "1"}
    # As installed for a learner: bytecode is cached after the first run (some sandboxes turn that off).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


class Piped:
    """A session on pipes; `wait_for` returns the seconds until a marker appears on stdout."""

    def __init__(self, args: list[str], home: str, **env: str):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(QUIZ + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, env={**_env(home), **env})
        self.buffer = b""

    def wait_for(self, marker: bytes, since: float, timeout: float = 30) -> float:
        fd = self.proc.stdout.fileno()
        end = time.perf_counter() + timeout
        while marker not in self.buffer:
            ready, _, _ = select.select([fd], [], [], max(0.0, end - time.perf_counter()))
            if not ready:
                raise TimeoutError(f"no {marker!r} after {timeout} s; got {self.buffer[-400:]!r}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError(self.buffer[-400:])
            self.buffer += chunk
        at = time.perf_counter()
        self.buffer = self.buffer[self.buffer.index(marker) + len(marker):]
        return at - since

    def send(self, line: str) -> float:
        self.proc.stdin.write(line.encode() + b"\n")
        self.proc.stdin.flush()
        return time.perf_counter()

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


def _median_ms(values: list[float]) -> str:
    return f"{statistics.median(values) * 1000:7.1f} ms"


def baseline(runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run([sys.executable, "-c", "import click, rich.console"], check=True, env=_env(""))
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def first_question_piped(runs: int, args: list[str], returning: bool) -> list[float]:
    times = []
    for _ in range(runs):
        home = tempfile.mkdtemp(prefix="qf-bench-")
        try:
            if returning:   # a learner with history: every template answered once, reviews due
                _seed_history(home)
            session = Piped(args, home)
            times.append(session.wait_for("╭─".encode(), session.started))
            session.close()
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return times


def first_question_cold(runs: int) -> list[float]:
    """A learner's very first `quiz practice` after `pip install -e .`: no bytecode is cached yet
    (an editable install compiles none), so every quizforge module is compiled as it is imported."""
    times = []
    for _ in range(runs):
        home = tempfile.mkdtemp(prefix="qf-bench-")
        try:
            session = Piped(["practice"], home, PYTHONPYCACHEPREFIX=os.path.join(home, "pycache"))
            times.append(session.wait_for("╭─".encode(), session.started))
            session.close()
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return times


def _seed_history(home: str) -> None:
    """Every template reviewed once, a week ago: all are due now, heavy ones included."""
    from quizforge.bank.registry import all_templates
    from quizforge.practice.scheduler import Planner
    from quizforge.practice.store import Attempt, History
    from fsrs import Rating

    history = History(Path(home) / "history.db")
    week_ago = time.time() - 7 * 86400
    planner = Planner(history, [t.id for t in all_templates()])
    sid = history.start_session("drill", {}, week_ago)
    for t in all_templates():
        with history.transaction() as db:
            aid = history.record_attempt(sid, "drill", Attempt(f"{t.id}-0000", t.id, t.topic, t.kind, "wrong"),
                                         week_ago, db=db)
            planner.review(t.id, Rating.Again, week_ago, aid, db)
    history.close()


def first_question_tty(runs: int) -> tuple[list[float], list[float]]:
    import pexpect

    panel, prompt = [], []
    for _ in range(runs):
        home = tempfile.mkdtemp(prefix="qf-bench-")
        try:
            t = time.perf_counter()
            child = pexpect.spawn(QUIZ[0], QUIZ[1:] + ["practice"], env=_env(home), dimensions=(40, 100), encoding="utf-8",
                                  timeout=30)
            child.expect("╭─")
            panel.append(time.perf_counter() - t)
            child.expect("answer ›")
            prompt.append(time.perf_counter() - t)
            child.sendline("q")
            child.expect(pexpect.EOF)
        finally:
            shutil.rmtree(home, ignore_errors=True)
    return panel, prompt


def next_questions(questions: int, read: float, mode: str) -> list[float]:
    """Seconds from the learner's last key to the next question's prompt."""
    home = tempfile.mkdtemp(prefix="qf-bench-")
    latencies = []
    try:
        if mode == "drill":
            session = Piped(["practice", "--count", str(questions)], home)
            prompt = "answer ›".encode()
        else:
            session = Piped(["practice", "--mock", "gate", "--questions", str(questions)], home)
            prompt = "answer or command ›".encode()
        session.wait_for(prompt, session.started)
        for _ in range(questions - 1):
            time.sleep(read)
            if mode == "drill":
                session.wait_for(b"", session.send("s"))     # skip: the key is shown
                session.wait_for("Enter next".encode(), time.perf_counter())
                time.sleep(0.2)
                sent = session.send("")                      # Enter: the next question
            else:
                sent = session.send("n")                     # mock: the next question
            latencies.append(session.wait_for(prompt, sent))
        session.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--questions", type=int, default=8)
    parser.add_argument("--read", type=float, default=4.0, help="seconds the learner reads each question")
    opts = parser.parse_args()

    first_question_piped(1, ["practice"], False)   # warm-up: writes the bytecode caches
    base = baseline(opts.runs)
    print(f"baseline: python -c 'import click, rich.console'      {base * 1000:7.1f} ms")
    rows = [
        ("drill, new learner (pipe)", first_question_piped(opts.runs, ["practice"], False)),
        ("drill, 41 reviews due (pipe)", first_question_piped(opts.runs, ["practice"], True)),
        ("mock, 20 questions (pipe)", first_question_piped(opts.runs, ["practice", "--mock", "gate"], False)),
        ("interview (pipe)", first_question_piped(opts.runs, ["practice", "--interview"], False)),
        ("drill, first run: no bytecode yet", first_question_cold(opts.runs)),
    ]
    print("\nfirst question on screen (median of %d fresh processes; target 500 ms)" % opts.runs)
    for label, times in rows:
        med = statistics.median(times)
        print(f"  {label:34s} {_median_ms(times)}  ({med / base:.2f}× baseline) "
              f"{'ok' if med <= 0.5 else 'OVER'}")
    panel, prompt = first_question_tty(opts.runs)
    print(f"  {'drill in a terminal: panel':34s} {_median_ms(panel)}  {'ok' if statistics.median(panel) <= 0.5 else 'OVER'}")
    print(f"  {'drill in a terminal: prompt ready':34s} {_median_ms(prompt)}")

    print(f"\nnext question after the answer ({opts.questions - 1} questions, {opts.read} s reading each; "
          "target 50 ms)")
    for label in ("drill", "mock"):
        lat = next_questions(opts.questions, opts.read, label)
        worst = max(lat)
        print(f"  {label:34s} median {_median_ms(lat)}  worst {worst * 1000:6.1f} ms  "
              f"{'ok' if worst <= 0.05 else 'OVER'}")


if __name__ == "__main__":
    main()
