"""Problem-set speed: a set for 300 students x 20 questions, with every export.

    python bench/bench_problemsets.py [--students 300]

Times the whole `make_set` first, in this fresh process (typst's caches cold, as for a user),
then each step on its own (the same functions; typst's caches now warm, so its figure is
lower than in the first run). Target: at most 20 s for everything on a 2-core machine.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

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
            start = time.perf_counter()
            value = fn()
            timings[label] = time.perf_counter() - start
            return value

        total = timed("make_set, everything written (cold)", lambda: make_set(spec_path, Path(tmp) / "out",
                                                                              variants=args.students))
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
        print(f"{args.students} students x {len(slots)} questions ({total['marks']} marks each)")
        for label, seconds in timings.items():
            print(f"  {label:<34} {seconds:6.2f} s")
        verdict = "met" if timings["make_set, everything written (cold)"] <= 20 else "missed"
        print(f"  target: everything in at most 20 s: {verdict}")


if __name__ == "__main__":
    main()
