"""Grading speed: one scaled_dot_product_attention submission, isolated against unisolated.

    python bench/bench_grade.py [--repeat N] [--challenge ID] [--submission PATH]

Each round runs, one after the other (so a busy machine slows all three alike):
  run_suite(Loopback)          the hidden tests in this process, through the worker's own request
                               handling and the wire protocol, no isolation
  grade()                      the whole sandboxed grading: checks of the source, a worker in its
                               namespaces, the hidden suite over the pipe, the teardown
  import torch                 in a fresh `python -I`, for reference
and grade() reports the torch import of its own worker, timed inside the worker. The
target is grade() <= 1.5 x unisolated + that torch import. Then, paired back to back,
`quiz grade --format json` as a whole process against `python -c "import torch"`: at most
2.2x. Medians over the rounds.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def fresh_torch_import() -> float:
    """Seconds `import torch` takes in a fresh `python -I` with the worker's environment."""
    from quizforge.grading.sandbox_host.sandbox import WORKER_ENV

    probe = "import time; t = time.perf_counter(); import torch; print(time.perf_counter() - t)"
    out = subprocess.run([sys.executable, "-I", "-c", probe], env=WORKER_ENV, check=True,
                         capture_output=True, text=True)
    return float(out.stdout)


def whole_process(argv: list[str]) -> float:
    """Wall seconds of one command, start to exit, as a user waits for it."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return time.perf_counter() - start


def timed(run):
    start = time.perf_counter()
    value = run()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--challenge", default="scaled_dot_product_attention")
    parser.add_argument("--submission", type=Path, help="default: solutions/<challenge>.py")
    args = parser.parse_args()

    from quizforge.challenges import load_challenge
    from quizforge.grading.grade import grade
    from quizforge.grading.judge.hidden_suite import run_suite
    from quizforge.grading.judge.loopback_submission import LoopbackSubmission

    challenge = load_challenge(args.challenge)
    path = (args.submission or ROOT / "solutions" / f"{args.challenge}.py").resolve()

    def unisolated():
        submission = LoopbackSubmission(path)
        try:
            return run_suite(challenge, submission)
        finally:
            submission.close()

    def isolated():
        return grade(path, challenge)

    unisolated(), isolated()  # warm this process's imports and caches
    local, sandboxed, worker_import, fresh_import, slack, paired = [], [], [], [], [], []
    quiz = [sys.executable, "-m", "quizforge", "grade", str(path), "--challenge", args.challenge, "--format", "json"]
    plain_import = [sys.executable, "-c", "import torch"]
    for _ in range(args.repeat):
        seconds, result = timed(unisolated)
        assert result.score == result.max_score
        local.append(seconds)
        seconds, result = timed(isolated)
        assert result.score == result.max_score, [(t.name, t.message) for t in result.tests if t.status != "passed"]
        assert result.sandbox["workers"] == 1
        sandboxed.append(seconds)
        worker_import.append(result.sandbox["torch_import_seconds"][0])
        fresh_import.append(fresh_torch_import())
        slack.append(1.5 * local[-1] + worker_import[-1] - sandboxed[-1])
        # Paired, back to back: `quiz grade` as a whole process against a plain torch import.
        paired.append(whole_process(quiz) / whole_process(plain_import))

    med = statistics.median
    load = os.getloadavg()[0]
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    print(f"{args.challenge}: {len(result.tests)} hidden tests, {shown}, median of {args.repeat} rounds, "
          f"load {load:.1f} on {os.cpu_count()} cores")
    rows = [
        ("unisolated: run_suite(Loopback)    ", f"{med(local) * 1000:8.0f} ms"),
        ("isolated: grade()", f"{med(sandboxed) * 1000:8.0f} ms"),
        ("  its worker's torch import (in the worker)", f"{med(worker_import) * 1000:8.0f} ms"),
        ("  import torch in a fresh python -I", f"{med(fresh_import) * 1000:8.0f} ms"),
        ("isolated / unisolated", f"{med(sandboxed) / med(local):8.2f}×"),
        ("(isolated - its torch import) / unisolated",
         f"{med(s - w for s, w in zip(sandboxed, worker_import)) / med(local):8.2f}×   target ≤ 1.5×"),
        ("1.5 × unisolated + torch import - isolated",
         f"{med(slack) * 1000:8.0f} ms   ({'meets' if med(slack) >= 0 else 'misses'} the target)"),
        ("quiz grade / python -c 'import torch' (processes)",
         f"{med(paired):8.2f}×   target ≤ 2.2×: {'met' if med(paired) <= 2.2 else 'missed'}"),
    ]
    for label, value in rows:
        print(f"  {label:<44} {value}")

if __name__ == "__main__":
    main()
