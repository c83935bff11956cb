"""Problem-set speed: a set for 300 students x 20 questions made with every output, then
graded with a return sheet per student.

    python bench/bench_problemsets.py [--students 300]

Times, in this fresh process (typst's caches cold, as for a user):
  1. `make_set`: papers (Markdown and PDF), all_papers.pdf, the Markdown keys, keys.csv/json,
     the four LMS exports and answer_book.pdf;
  2. `grade_responses` of a responses file answering every question (a fifth of them wrong),
     with the return sheets (one PDF per student);
then the pieces of 1 on their own (typst's caches now warm). Each figure is wall seconds beside
CPU seconds (this process and its helpers together); the CPU of each run is split between this
process and its helper processes (the typst helpers, and for `make_set` the forked copy that
writes the LMS exports).

These machines' speed drifts 2-3x from hour to hour, so the targets are ratios to the wall
time of `python -c "import torch"`, timed in the same run (before and after, the mean): the
set within 8 imports, grading with return sheets within 12. torch is imported once untimed
first, so that a cold disk cache does not lengthen the yardstick. The load average is printed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TARGET = 8          # the whole set in at most this many torch imports of wall time
GRADE_TARGET = 12   # grading with return sheets, likewise

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
    from quizforge.problemsets.responses import grade_responses
    from quizforge.problemsets.roster import numbered_variants
    from quizforge.problemsets.spec import load_spec
    from quizforge.problemsets.variants import paper, plan

    _torch_import_seconds()   # warm: the yardstick is an import from a warm disk cache, as the set's own is
    torch_before = _torch_import_seconds()
    with tempfile.TemporaryDirectory(prefix="quizforge-bench-set-") as tmp:
        spec_path = Path(tmp) / "spec.toml"
        spec_path.write_text(SPEC)
        timings, split = {}, {}

        def timed(label, fn):
            start, cpu = time.perf_counter(), _cpu_seconds()
            own, helpers = _own_seconds(), _helper_seconds()
            value = fn()
            timings[label] = (time.perf_counter() - start, _cpu_seconds() - cpu)
            split[label] = (_own_seconds() - own, _helper_seconds() - helpers)
            return value

        out = Path(tmp) / "out"
        made = "make_set, everything written (cold)"
        graded = "grade_responses with return sheets"
        total = timed(made, lambda: make_set(spec_path, out, variants=args.students))
        responses = Path(tmp) / "responses.csv"
        responses.write_text(_responses(out), "utf-8")
        timed(graded, lambda: grade_responses(out, responses, Path(tmp) / "graded"))
        pages = {name: _pages(path) for name, path in (("paper", out / "all_papers.pdf"),
                                                        ("answer book", out / "answer_book.pdf"))}
        pages["return sheet"] = sum(_pages(p) for p in (Path(tmp) / "graded" / "returns").glob("*.pdf"))

        spec = load_spec(spec_path)
        slots = plan(spec)
        students = numbered_variants(args.students)
        drawn = timed("variants (questions generated)", lambda: [paper(spec, slots, s) for s in students])
        timed("Markdown papers and keys", lambda: [(papers.paper_markdown(spec, slots, p),
                                                    papers.key_markdown(spec, slots, p)) for p in drawn])
        pdfs = Path(tmp) / "pdfs"
        (pdfs / "papers").mkdir(parents=True)

        def typeset_papers():
            typesetting = typeset.Typesetting(pdfs)
            source = lambda chunk, plain: typeset.class_source(spec, slots, chunk, "paper", plain)  # noqa: E731
            for share in typeset.Typesetting.shares(drawn):
                typesetting.add("all_papers.pdf", share, pdfs / "papers", source)
            typesetting.add_whole(pdfs / "answer_book.pdf", lambda plain: typeset.answer_book_source(spec, drawn))
            typesetting.wait()

        timed("PDF papers and answer book (typst)", typeset_papers)
        rows = keys.key_rows(drawn)
        timed("keys.csv and keys.json", lambda: (keys.keys_csv(rows), keys.keys_json(rows)))
        groups = timed("LMS questions as HTML, by slot", lambda: lmstext.by_slot(slots, drawn))
        timed("Moodle XML", lambda: lms.moodle_xml(spec.title, groups))
        timed("GIFT", lambda: lms.gift(spec.title, groups))
        timed("QTI 2.1 zip", lambda: qti.qti21_zip(spec.title, spec.duration, groups))
        timed("Canvas QTI 1.2 zip", lambda: qti.canvas_zip(spec.title, spec.duration, groups))
    torch_after = _torch_import_seconds()
    torch_import = (torch_before[0] + torch_after[0]) / 2
    torch_import_cpu = (torch_before[1] + torch_after[1]) / 2
    print(f"{args.students} students x {len(slots)} questions ({total['marks']} marks each); "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores")
    print(f"  {'step':<38} {'wall s':>7} {'CPU s':>7}")
    for label, (wall, cpu) in timings.items():
        print(f"  {label:<38} {wall:7.2f} {cpu:7.2f}")
    yardstick = 'python -c "import torch"'
    print(f"  {yardstick:<38} {torch_import:7.2f} {torch_import_cpu:7.2f}   "
          f"(before {torch_before[0]:.2f}, after {torch_after[0]:.2f})")
    for label, target in ((made, TARGET), (graded, GRADE_TARGET)):
        ratio = timings[label][0] / torch_import
        print(f"  {label} / torch import: {ratio:.1f} (target at most {target}: "
              f"{'met' if ratio <= target else 'missed'})")
    for label, what in ((made, f"the LMS writer and the typst helpers: {pages['paper']} paper and "
                               f"{pages['answer book']} answer-book pages"),
                        (graded, f"the typst helpers: {pages['return sheet']} return-sheet pages")):
        own, helpers = split[label]
        print(f"where {label}'s {timings[label][1]:.1f} CPU s went: {own:.1f} in this process, "
              f"{helpers:.1f} in its helper processes ({what})")


def _responses(folder: Path) -> str:
    """Every student's answer to every question: the key, except every fifth answer wrong."""
    import json

    from quizforge.answers import format_number
    from quizforge.bank.registry import question as regenerate

    lines = ["student,question,answer"]
    record = json.loads((folder / "set.json").read_text("utf-8"))
    for k, student in enumerate(record["students"]):
        for n, qid in enumerate(student["questions"], 1):
            q = regenerate(qid)
            wrong = (k + n) % 5 == 0
            if q.is_matrix:
                continue
            if q.kind == "NAT":
                answer = format_number(q.answer * (2 if wrong else 1), q.decimals).replace(",", "")
            else:
                letters = "abcdefgh"[:len(q.options)]
                answer = next((x for i, x in enumerate(letters) if i not in q.correct), "a") if wrong else q.correct_letters
            lines.append(f'{student["id"]},{n},"{answer}"')
    return "\n".join(lines) + "\n"


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children that have finished (the typst helpers)."""
    return _own_seconds() + _helper_seconds()


def _own_seconds() -> float:
    times = os.times()
    return times.user + times.system


def _helper_seconds() -> float:
    """CPU seconds of the finished children: the typst helpers (and the torch imports)."""
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
