"""Question generation speed, per template, and `quiz ask` end to end.

    python bench/bench_bank.py [--questions N] [--repeat R]

For every template: after a warm-up over 50 seeds, the median time to build one
question with its answer, options and worked solution (rendered to Markdown, so
the solution's text is really produced), and questions per second. Target: a
median of at most 5 ms for every template.

Then `quiz ask TEMPLATE --seed S` end to end in a fresh process, against
`python -c "import torch"` measured in the same run (the torch import is most of
a torch-backed template's wall time), and against `import click` for a template
that needs neither torch nor sympy.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench_cli import median_seconds as wall  # bench/ is on sys.path when run as a script
from quizforge.bank import registry
from quizforge.bank.export import question_markdown

TARGET_MS = 5.0


def per_template(n: int) -> list[tuple[str, float, float]]:
    rows = []
    for template in registry.all_templates():
        for seed in range(50):                                   # warm-up: imports, sympy printers, caches
            question_markdown(template.question(seed))
        times = []
        for seed in range(1000, 1000 + n):
            start = time.perf_counter()
            question_markdown(template.question(seed))
            times.append(time.perf_counter() - start)
        rows.append((template.id, statistics.median(times) * 1000, n / sum(times)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--questions", type=int, default=300, help="questions timed per template")
    parser.add_argument("--repeat", type=int, default=5, help="runs of each end-to-end command")
    args = parser.parse_args()

    rows = per_template(args.questions)
    print(f"one question with answer and solution, median of {args.questions} seeds after warm-up")
    for tid, ms, qps in rows:
        flag = "" if ms <= TARGET_MS else "   OVER TARGET"
        print(f"  {tid:<28} {ms:7.3f} ms   {qps:9,.0f} questions/s{flag}")
    worst = max(rows, key=lambda r: r[1])
    print(f"  slowest median: {worst[0]} at {worst[1]:.3f} ms (target ≤ {TARGET_MS} ms); "
          f"all within target: {all(r[1] <= TARGET_MS for r in rows)}")

    quiz = [sys.executable, "-m", "quizforge"]
    ends = [  # label, command, baseline it is compared with
        ("python -c 'import click'", [sys.executable, "-c", "import click"], None),
        ("python -c 'import torch'", [sys.executable, "-c", "import torch"], None),
        ("quiz ask dims.d_k --seed 1", quiz + ["ask", "dims.d_k", "--seed", "1"], "click"),
        ("quiz ask concepts.mqa_gqa --seed 1", quiz + ["ask", "concepts.mqa_gqa", "--seed", "1"], "click"),
        ("quiz ask params.encoder_layer --seed 1", quiz + ["ask", "params.encoder_layer", "--seed", "1"], "torch"),
        ("quiz ask attention.weight --seed 1", quiz + ["ask", "attention.weight", "--seed", "1"], "torch"),
        ("quiz explain attention.output-0001", quiz + ["explain", "attention.output-0001"], "torch"),
    ]
    results = {label: wall(cmd, args.repeat) for label, cmd, _ in ends}
    base = {"click": results["python -c 'import click'"], "torch": results["python -c 'import torch'"]}
    print(f"\nend to end, median of {args.repeat} runs (torch-free templates against import click,"
          " the others against import torch)")
    for label, _, against in ends:
        seconds = results[label]
        line = f"  {label:<42} {seconds * 1000:7.0f} ms"
        if against:
            line += f"   {seconds / base[against]:5.2f}× import {against}"
            if against == "torch":
                line += f"   ({(seconds - base['torch']) * 1000:+.0f} ms beside the torch import)"
        print(line)


if __name__ == "__main__":
    main()
