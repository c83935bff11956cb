"""What planning toward an exam date costs, and how long `quiz stats --fit` takes.

Figures, each as a ratio to a baseline timed in the same run:
- one review (Planner.review) with an exam date, against one without (the bring-forward check);
- `quiz stats` with an exam date set, against `quiz stats` without (the per-topic recall);
- `quiz stats --fit` on a history past py-fsrs's threshold, against `python -c "import torch"`.

    python bench/bench_exam.py [--runs 3] [--cards 60] [--days 60]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

DAY = 86400.0


def _seed(home: Path, cards: int, days: int, exam: date | None) -> None:
    """A learner who reviews what is due every day for `days` days, one slip in five."""
    from fsrs import Rating

    from quizforge.practice.exam import ExamPlan, remember_exam
    from quizforge.practice.scheduler import Planner
    from quizforge.practice.store import History

    rng = random.Random(5)
    start = time.time() - days * DAY
    with History(home / "history.db") as history:
        plan = remember_exam(history, exam.isoformat(), None, start) if exam else None
        planner = Planner(history, [f"bench.t{n:03d}" for n in range(cards)], new_per_day=cards,
                          exam=plan)
        for day in range(days):
            now = start + day * DAY
            asked: list[str] = []
            while (pick := planner.next(now, exclude=asked)) is not None and pick.reason != "ahead":
                with history.transaction() as db:
                    planner.review(pick.item, Rating.Again if rng.random() < 0.2 else Rating.Good, now, None, db)
                asked.append(pick.item)
                now += 60


def review_seconds(exam: bool, reviews: int = 300) -> float:
    """Mean seconds per review over `reviews` reviews of 30 templates."""
    from fsrs import Rating

    from quizforge.practice.exam import ExamPlan
    from quizforge.practice.scheduler import Planner
    from quizforge.practice.store import History

    home = Path(tempfile.mkdtemp(prefix="qf-bench-exam-"))
    try:
        with History(home / "history.db") as history:
            plan = ExamPlan(date.today() + timedelta(days=400)) if exam else None
            planner = Planner(history, [f"bench.t{n:02d}" for n in range(30)], new_per_day=None, exam=plan)
            now = time.time()
            t = time.perf_counter()
            for n in range(reviews):
                with history.transaction() as db:
                    planner.review(f"bench.t{n % 30:02d}", Rating.Good, now + (n // 30) * 5 * DAY, None, db)
            return (time.perf_counter() - t) / reviews
    finally:
        shutil.rmtree(home, ignore_errors=True)


def _timed(args: list[str], home: Path | None = None) -> float:
    env = dict(os.environ, QUIZFORGE_HOME=str(home)) if home else None
    t = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True, env=env)
    return time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cards", type=int, default=60)
    parser.add_argument("--days", type=int, default=60)
    opts = parser.parse_args()
    quiz = [sys.executable, "-m", "quizforge"]

    plain, planned = review_seconds(False), review_seconds(True)
    print(f"one review: {plain * 1000:.2f} ms without an exam date, {planned * 1000:.2f} ms with one "
          f"({planned / plain:.2f}x)")

    homes = {name: Path(tempfile.mkdtemp(prefix=f"qf-bench-{name}-")) for name in ("plain", "exam")}
    try:
        _seed(homes["plain"], opts.cards, opts.days, None)
        _seed(homes["exam"], opts.cards, opts.days, date.today() + timedelta(days=60))
        torch = statistics.median(_timed([sys.executable, "-c", "import torch"]) for _ in range(opts.runs))
        without = statistics.median(_timed(quiz + ["stats"], homes["plain"]) for _ in range(opts.runs))
        with_exam = statistics.median(_timed(quiz + ["stats"], homes["exam"]) for _ in range(opts.runs))
        print(f'python -c "import torch": {torch:.2f} s (baseline)')
        print(f"quiz stats: {without:.2f} s without an exam date ({without / torch:.2f}x torch), "
              f"{with_exam:.2f} s with one ({with_exam / torch:.2f}x torch, {with_exam / without:.2f}x without)")
        fit = _timed(quiz + ["stats", "--fit"], homes["plain"])
        print(f"quiz stats --fit ({opts.cards} cards, {opts.days} days): {fit:.1f} s ({fit / torch:.1f}x torch)")
    finally:
        for home in homes.values():
            shutil.rmtree(home, ignore_errors=True)
    print(f"load: {os.getloadavg()[0]:.1f} (1 min), {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
