"""Problem-set speed: a set for 300 students x 20 questions, with every export.

    python bench/bench_problemsets.py [--students 300]

Times the whole `make_set` first, in this fresh process (typst's caches cold, as for a user),
then each step on its own (the same functions; typst's caches now warm, so its figure is
lower than in the first run). Each figure is wall seconds beside CPU seconds (this process
and its typst helpers together). The whole run's CPU is then split between this process
(drawing the questions, Markdown, keys, LMS exports) and the typst helpers (laying out,
cutting and joining the PDFs), with the pages typst laid out per CPU second: on 2 cores the
wall time can be no lower than half the CPU seconds, which says where the time goes.

These machines' speed drifts 2-3x from hour to hour, so the target is a ratio: the whole
set in at most 8 times the wall time of `python -c "import torch"`, timed in the same run;
the machine's load average is printed beside it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 8   # the whole set in at most this many torch imports of wall time

SPEC = """
title = "Bench set"
duration = 120
seed = 7

[[sections]]
name = "By hand"
topics = ["attention", "softmax", "positional"]
count = 6

[[sections]]
name = "Counting"
topics = ["params", "memory", "flops", "dims"]
count = 10

[[sections]]
name = "Concepts"
topics = ["concepts"]
count = 4
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=300)
    args = parser.parse_args()

    from quizforge.problemsets import keys, lms, lmstext, papers, qti, typeset
    from quizforge.problemsets.make import make_set
    from quizforge.problemsets.roster import numbered_variants
    from quizforge.problemsets.spec import load_spec
    from quizforge.problemsets.variants import paper, plan

    with tempfile.TemporaryDirectory(prefix="quizforge-bench-set-") as tmp:
        spec_path = Path(tmp) / "spec.toml"
        spec_path.write_text(SPEC)
        timings = {}

        def timed(label, fn):
            start, cpu = time.perf_counter(), _cpu_seconds()
            value = fn()
            timings[label] = (time.perf_counter() - start, _cpu_seconds() - cpu)
            return value

        own_before, helpers_before = _own_seconds(), _helper_seconds()
        total = timed("make_set, everything written (cold)", lambda: make_set(spec_path, Path(tmp) / "out",
                                                                              variants=args.students))
        own, helpers = _own_seconds() - own_before, _helper_seconds() - helpers_before
        typeset_pages = {name: _pages(Path(tmp) / "out" / name) for name in ("all_papers.pdf", "all_keys.pdf")}
        spec = load_spec(spec_path)
        slots = plan(spec)
        students = numbered_variants(args.students)
        made = timed("variants (questions generated)", lambda: [paper(spec, slots, s) for s in students])
        timed("Markdown papers and keys", lambda: [(papers.paper_markdown(spec, slots, p),
                                                    papers.key_markdown(spec, slots, p)) for p in made])
        pdfs = Path(tmp) / "pdfs"
        (pdfs / "papers").mkdir(parents=True)
        (pdfs / "keys").mkdir()

        def typeset_pdfs():
            typesetting = typeset.Typesetting(spec, slots, pdfs)
            for share in typeset.Typesetting.shares(made):
                typesetting.add(share)
            typesetting.wait()

        timed("PDF papers and keys (typst)", typeset_pdfs)
        rows = keys.key_rows(made)
        timed("keys.csv and keys.json", lambda: (keys.keys_csv(rows), keys.keys_json(rows)))
        groups = timed("LMS questions as HTML, by slot", lambda: lmstext.by_slot(slots, made))
        timed("Moodle XML", lambda: lms.moodle_xml(spec.title, groups))
        timed("GIFT", lambda: lms.gift(spec.title, groups))
        timed("QTI 2.1 zip", lambda: qti.qti21_zip(spec.title, spec.duration, groups))
        timed("Canvas QTI 1.2 zip", lambda: qti.canvas_zip(spec.title, spec.duration, groups))
        torch_import, torch_import_cpu = _torch_import_seconds()
        print(f"{args.students} students x {len(slots)} questions ({total['marks']} marks each); "
              f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        print(f"  {'step':<38} {'wall s':>7} {'CPU s':>7}")
        for label, (wall, cpu) in timings.items():
            print(f"  {label:<38} {wall:7.2f} {cpu:7.2f}")
        yardstick = 'python -c "import torch"'
        print(f"  {yardstick:<38} {torch_import:7.2f} {torch_import_cpu:7.2f}")
        wall, cpu = timings["make_set, everything written (cold)"]
        ratio = wall / torch_import
        print(f"  everything / torch import: {ratio:.1f} (target at most {TARGET}: "
              f"{'met' if ratio <= TARGET else 'missed'})")
        pages = sum(typeset_pages.values())
        print(f"where the cold run's {cpu:.1f} CPU s went:")
        print(f"  {own:.1f} in this process (drawing the questions, Markdown, keys, LMS exports)")
        print(f"  {helpers:.1f} in the typst helpers: {typeset_pages['all_papers.pdf']} paper and "
              f"{typeset_pages['all_keys.pdf']} key pages, {pages / max(helpers, 0.01):.0f} pages per CPU s")
        # CPU seconds hardly depend on what else the machine runs; wall seconds do
        cores = os.cpu_count() or 1
        print(f"  on {cores} idle cores that CPU takes at least {cpu / cores:.1f} s wall, "
              f"{cpu / cores / torch_import_cpu:.1f} times the import's {torch_import_cpu:.2f} CPU s")


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have finished (the typst helpers)."""
    return _own_seconds() + _helper_seconds()


def _own_seconds() -> float:
    times = os.times()
    return times.user + times.system


def _helper_seconds() -> float:
    """CPU seconds of the finished children: the typst helpers (and the torch import, timed last)."""
    times = os.times()
    return times.children_user + times.children_system


def _pages(pdf: Path) -> int:
    import pikepdf

    with pikepdf.open(pdf) as document:
        return len(document.pages)


def _torch_import_seconds() -> tuple[float, float]:
    """Wall and CPU seconds of `python -c "import torch"`: the yardstick the target is a multiple of."""
    start, cpu = time.perf_counter(), _helper_seconds()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.perf_counter() - start, _helper_seconds() - cpu

if __name__ == "__main__":
    main()
