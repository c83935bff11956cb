"""Start-up figures for the `quiz` command, each against a baseline measured in the same run.

    python bench/bench_cli.py [--repeat N]

Prints the median wall time of:
  python -c "import click"           baseline: the interpreter plus click
  quiz --help                        must stay close to the baseline (no torch, no sympy)
  python -c "import torch"           baseline: what any torch command pays first
  quiz calc params gpt3-175b         a 175B-parameter model instantiated on meta and counted
  quiz calc flops / kv-cache         a forward (and backward) pass on meta tensors
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

QUIZ = [sys.executable, "-m", "quizforge"]


def median_seconds(cmd: list[str], repeat: int) -> float:
    subprocess.run(cmd, capture_output=True, check=True)  # warm the file cache
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = [
        ("python -c 'import click'", [sys.executable, "-c", "import click"]),
        ("quiz --help", QUIZ + ["--help"]),
        ("quiz calc --help", QUIZ + ["calc", "--help"]),
        ("python -c 'import torch'", [sys.executable, "-c", "import torch"]),
        ("quiz calc params gpt3-175b", QUIZ + ["calc", "params", "gpt3-175b"]),
        ("quiz calc flops gpt2 --seq-len 1024", QUIZ + ["calc", "flops", "gpt2", "--seq-len", "1024"]),
        ("quiz calc kv-cache llama2-70b --seq-len 4096",
         QUIZ + ["calc", "kv-cache", "llama2-70b", "--seq-len", "4096", "--batch", "8"]),
    ]
    results = {label: median_seconds(cmd, args.repeat) for label, cmd in rows}
    click_s, torch_s = results["python -c 'import click'"], results["python -c 'import torch'"]
    print(f"median of {args.repeat} runs")
    for label, seconds in results.items():
        base = torch_s if label.startswith("quiz calc ") and "--help" not in label else click_s
        base_name = "import torch" if base is torch_s else "import click"
        print(f"  {label:<46} {seconds * 1000:8.0f} ms   {seconds / base:5.2f}× {base_name}")


if __name__ == "__main__":
    main()
