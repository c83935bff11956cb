"""Batch grading: every submission in a folder against one challenge, for a whole class.

A submission is either DIR/<student>.py or a folder DIR/<student>/ holding it (its only
.py file, or one named <challenge>.py, submission.py or starter.py). `grade_batch` hands
them to `jobs` judge processes (batch_job.py), each with its own zygote, so no submission
pays for a torch import; each worker is still forked into namespaces, folders and limits
of its own. Results land in OUT as they come:

    OUT/results/<student>.json   Gradescope results.json fields, plus the source's hash
    OUT/gradebook.csv            student, score, max, points per test
    OUT/item_analysis.json/.md   pass rate per test, common failures and named bugs
    OUT/similarity.json/.md      near-duplicate pairs with their matching regions
    OUT/problems.csv             submissions that could not be graded, and why

A re-run skips every student whose results are there for the same source, unless
`force`. One bad or hostile submission never stops the batch; a sandbox that cannot be
built does (nothing is graded with less isolation).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from quizforge.challenges import Challenge
from quizforge.errors import InputError
from quizforge.grading.gradebook import write_atomically
from quizforge.grading.judge import SuiteResult
from quizforge.grading.results_io import result_from_dict, result_to_dict

NAMED_FILES = ("submission.py", "starter.py")


@dataclass(frozen=True)
class Entry:
    student: str
    path: Path | None      # None: the folder holds no single submission file
    problem: str = ""


@dataclass
class BatchReport:
    challenge: str
    out: Path
    graded: dict[str, SuiteResult] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)      # already graded, same source
    problems: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0


def check_student_id(name: str) -> str:
    """A student id taken from a file or folder name: safe to use as a file name and a CSV cell."""
    if not name or name.startswith(".") or any(c in name for c in "/\\\0") or not name.isprintable():
        raise InputError(f"{name!r} cannot be a student id (rename the file or folder)")
    return name


def find_submissions(folder: Path, challenge: Challenge) -> list[Entry]:
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of submissions")
    entries: list[Entry] = []
    for item in sorted(folder.iterdir()):
        if item.name.startswith(".") or item.name == "__pycache__":
            continue
        if item.is_file() and item.suffix == ".py":
            entries.append(Entry(check_student_id(item.stem), item))
        elif item.is_dir():
            student = check_student_id(item.name)
            files = sorted(p for p in item.iterdir() if p.is_file() and p.suffix == ".py")
            named = [item / f"{challenge.id}.py", *(item / n for n in NAMED_FILES)]
            chosen = files[0] if len(files) == 1 else next((p for p in named if p.is_file()), None)
            if chosen is None:
                what = "no .py file" if not files else f"{len(files)} .py files and none named {challenge.id}.py"
                entries.append(Entry(student, None, f"{what} in {item.name}/"))
            else:
                entries.append(Entry(student, chosen))
    students = [e.student for e in entries]
    duplicates = sorted({s for s in students if students.count(s) > 1})
    if duplicates:
        raise InputError(f"two submissions for {', '.join(duplicates)} (a file and a folder of the same name)")
    return entries


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stored(out: Path, student: str, digest: str) -> SuiteResult | None:
    """A previous run's result for this exact source, if there is a readable one."""
    try:
        data = json.loads((out / "results" / f"{student}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    block = data.get("quizforge") if isinstance(data, dict) else None
    if not isinstance(block, dict) or block.get("source_sha256") != digest:
        return None
    return result_from_dict(block.get("result"))


def _save(out: Path, student: str, digest: str, result: SuiteResult, visibility: str) -> None:
    from quizforge.grading import results

    data = results.gradescope(result, visibility)
    data["quizforge"] = {"student": student, "source_sha256": digest, "result": result_to_dict(result)}
    write_atomically(out / "results" / f"{student}.json", json.dumps(data, indent=2, ensure_ascii=False))


class _Job:
    """One judge process and the task it is working on."""

    def __init__(self, challenge: Challenge, memory: int, time_limit: float | None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "quizforge.grading.batch_job", challenge.id, str(memory),
             "none" if time_limit is None else str(time_limit)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.task: str | None = None

    def give(self, student: str, path: Path) -> None:
        self.task = student
        self.proc.stdin.write(json.dumps({"student": student, "path": str(path)}) + "\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            try:
                stream.close()
            except OSError:
                pass


def grade_batch(folder: Path, challenge: Challenge, out: Path, *, jobs: int = 1, force: bool = False,
                memory: int = 2 * 2**30, time_limit: float | None = None, visibility: str = "after_due_date",
                progress: Callable[[int, int, str], None] | None = None) -> BatchReport:
    """Grade every submission in `folder`; see the module's docstring for what lands in `out`.
    `progress(done, total, student)` is called as each one is finished."""
    import selectors

    from quizforge.grading.sandbox import SandboxError

    started = time.perf_counter()
    entries = find_submissions(folder, challenge)
    report = BatchReport(challenge.id, out)
    todo: list[tuple[str, Path, str]] = []
    for entry in entries:
        if entry.path is None:
            report.problems[entry.student] = entry.problem
            continue
        digest = source_hash(entry.path)
        previous = None if force else _stored(out, entry.student, digest)
        if previous is not None:
            report.graded[entry.student] = previous
            report.skipped.append(entry.student)
        else:
            todo.append((entry.student, entry.path, digest))
    total, done = len(entries), len(entries) - len(todo)
    if progress:
        progress(done, total, "")
    hashes = {student: digest for student, _, digest in todo}
    pending = list(reversed(todo))
    workers = [_Job(challenge, memory, time_limit) for _ in range(max(1, min(jobs, len(todo))))] if todo else []
    selector = selectors.DefaultSelector()
    fatal: str | None = None
    try:
        for job in workers:
            selector.register(job.proc.stdout, selectors.EVENT_READ, job)
            if pending:
                student, path, _ = pending.pop()
                job.give(student, path)
        busy = sum(job.task is not None for job in workers)
        while busy and fatal is None:
            for key, _ in selector.select():
                job: _Job = key.data
                line = job.proc.stdout.readline()
                if not line:  # the job died: its task counts as a problem, a fresh job takes over
                    selector.unregister(job.proc.stdout)
                    if job.task is not None:
                        report.problems[job.task] = "the grading job died while grading it"
                        done += 1
                        busy -= 1
                    job.stop()
                    continue
                message = json.loads(line)
                if "fatal" in message:
                    fatal = message["fatal"]
                    break
                student = message.get("student")
                if "result" in message:
                    result = result_from_dict(message["result"])
                    report.graded[student] = result
                    _save(out, student, hashes[student], result, visibility)
                else:
                    report.problems[student] = str(message.get("error", "not graded"))
                job.task = None
                busy -= 1
                done += 1
                if progress:
                    progress(done, total, student)
                if pending:
                    student, path, _ = pending.pop()
                    job.give(student, path)
                    busy += 1
    finally:
        for job in workers:
            job.stop()
    if fatal is not None:
        raise SandboxError(fatal)
    report.seconds = time.perf_counter() - started
    write_reports(report, folder, challenge)
    return report


def write_reports(report: BatchReport, folder: Path, challenge: Challenge) -> None:
    """The gradebook, the item analysis, the similarity hints and the problems, from what was graded."""
    from quizforge.grading import gradebook, item_analysis, similarity

    graded = sorted(report.graded.items())
    gradebook.write_gradebook(report.out / "gradebook.csv", graded)
    item_analysis.write_item_analysis(report.out, graded)
    sources = {student: path for student, path in ((e.student, e.path) for e in find_submissions(folder, challenge))
               if path is not None}
    similarity.write_similarity(report.out, sources, challenge)
    lines = ["student,problem"] + [f"{gradebook.csv_cell(s)},{gradebook.csv_cell(p)}"
                                   for s, p in sorted(report.problems.items())]
    write_atomically(report.out / "problems.csv", "\n".join(lines) + "\n")
