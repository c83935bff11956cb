"""`quiz calc` on the largest presets: measuring every layer against one layer extrapolated.

    python bench/bench_calc.py [--repeat R]

In process: FLOPs of GPT-3 175B at 2,048 tokens and the KV cache of Llama 2 70B at
4,096 tokens, measured on the meta device twice, once running every layer and once
running one- and two-layer models and multiplying (`measure.per_layer`). Prints both
medians, their ratio, and checks the two give the same integers.

End to end: `quiz calc flops gpt3-175b --seq-len 2048` and `quiz calc kv-cache
llama2-70b --seq-len 4096` in fresh processes, against `python -c "import torch"`
measured in the same run. Target: each within 1 s of the torch import.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from bench_cli import median_seconds as wall  # bench/ is on sys.path when run as a script
from quizforge.accounting import measure
from quizforge.reference.presets import get_preset


def median(fn, repeat: int):
    fn()  # warm-up: lazy imports, kernel registrations
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    gpt3, llama = get_preset("gpt3-175b"), get_preset("llama2-70b")
    cases = [
        ("flops gpt3-175b n=2048",
         lambda: measure.measure_flops(gpt3, 1, 2048, model=measure.instantiate(gpt3)),
         lambda: measure.measure_flops(gpt3, 1, 2048)),
        ("kv-cache llama2-70b n=4096",
         lambda: measure._filled_cache_bytes(llama, 1, 4096, measure.DTYPES["fp16"]),
         lambda: measure.measure_kv_cache_bytes(llama, 1, 4096, "fp16")),
    ]
    print(f"{'in process (meta device)':30} {'every layer':>12} {'extrapolated':>13} {'ratio':>7}  same")
    for name, whole, fast in cases:
        t_whole, r_whole = median(whole, args.repeat)
        t_fast, r_fast = median(fast, args.repeat)
        print(f"{name:30} {t_whole:11.3f}s {t_fast:12.3f}s {t_whole / t_fast:6.1f}x  {r_whole == r_fast}")

    torch_s = wall([sys.executable, "-c", "import torch"], args.repeat)
    print(f"\n{'end to end':52} {'wall':>7} {'- torch':>8}")
    print(f"{'python -c import torch':52} {torch_s:6.2f}s")
    for argv in (["calc", "flops", "gpt3-175b", "--seq-len", "2048"],
                 ["calc", "kv-cache", "llama2-70b", "--seq-len", "4096"]):
        t = wall([sys.executable, "-m", "quizforge", *argv], args.repeat)
        print(f"{'quiz ' + ' '.join(argv):52} {t:6.2f}s {t - torch_s:+7.2f}s")


if __name__ == "__main__":
    main()
