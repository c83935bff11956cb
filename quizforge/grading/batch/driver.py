"""Batch grading: every submission in a folder against one challenge, for a whole class.

A submission is either DIR/<student>.py or a folder DIR/<student>/ holding it (its only
.py file, or one named <challenge>.py, submission.py or starter.py). `grade_batch` hands
them to `jobs` judge processes (job.py), each with its own zygote, so no submission
pays for a torch import; each worker is still forked into namespaces, folders and limits
of its own. Results land in OUT as they come:

    OUT/results/<student>.json   Gradescope results.json fields, plus the source's hash (a name
                                 that is long or not plain ASCII: a prefix of it, ~ and a hash)
    OUT/gradebook.csv            student, score, max, points per test
    OUT/item_analysis.json/.md   pass rate per test, common failures and named bugs
    OUT/similarity.json/.md      near-duplicate pairs with their matching regions
    OUT/problems.csv             submissions that could not be graded, and why

The folder is hostile input (intake/class_folder.py): links are refused, each file is read once,
and a bad name, an oversize or binary file is one row of problems.csv, never read again.
A re-run skips every student whose results are there for the same source, unless
`force`. One bad or hostile submission never stops the batch; a sandbox that cannot be
built does (nothing is graded with less isolation).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import selectors
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from quizforge.challenges import Challenge
from quizforge.errors import InputError
from quizforge.grading.batch import gradebook, item_analysis, similarity
from quizforge.grading.batch.gradebook import write_atomically
from quizforge.grading.batch.results_io import result_from_dict, result_to_dict
from quizforge.grading.exports import results
from quizforge.grading.intake.class_folder import (Refused, decode_source, name_problem, read_submission_file,
                                                   result_file_name)
from quizforge.grading.intake.text_safety import visible_name
from quizforge.grading.judge.hidden_suite import SuiteResult
from quizforge.grading.sandbox_host.sandbox import SandboxError

NAMED_FILES = ("submission.py", "starter.py")


@dataclass(frozen=True)
class Entry:
    student: str           # the gradebook's name for them: the file's stem or the folder's name
    path: Path | None      # None: nothing is graded, and `problem` says why
    problem: str = ""
    source: bytes = b""    # the file, read once through class_folder (never read again)

    @property
    def digest(self) -> str:
        return hashlib.sha256(self.source).hexdigest()


@dataclass
class BatchReport:
    challenge: str
    out: Path
    graded: dict[str, SuiteResult] = field(default_factory=dict)
    skipped: list[str] = field(default_factory=list)      # already graded, same source
    problems: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)        # what was passed over, and why
    seconds: float = 0.0


def _read(folder: Path, student: str, parts: tuple[str, ...]) -> Entry:
    try:
        return Entry(student, folder.joinpath(*parts), source=read_submission_file(folder, parts))
    except Refused as exc:
        return Entry(student, None, str(exc))


def _entry(folder: Path, item: os.DirEntry, challenge: Challenge) -> Entry | None:
    """The submission `item` stands for, or None when it is not one (a note, a hidden file)."""
    name = item.name
    is_link = item.is_symlink()
    is_dir = not is_link and item.is_dir(follow_symlinks=False)
    if not is_dir and not name.endswith(".py") and not (is_link and Path(name).suffix == ""):
        return None
    student = name[:-3] if name.endswith(".py") and not is_dir else name
    if name_problem(name):
        return Entry(visible_name(student), None, name_problem(name))
    if is_link:
        return Entry(student, None, f"{name} is a symbolic link: hand in the file or folder itself")
    if not is_dir:
        return _read(folder, student, (name,))
    candidates, links = [], []
    with os.scandir(item.path) as inner:
        for sub in inner:
            if sub.name.endswith(".py") and not sub.name.startswith("."):
                if sub.is_symlink():
                    links.append(sub.name)
                elif not sub.is_dir(follow_symlinks=False):
                    candidates.append(sub.name)
    if links:
        return Entry(student, None, f"{name}/{visible_name(sorted(links)[0])} is a symbolic link: "
                                    "hand in the file itself")
    candidates.sort()
    named = [n for n in (f"{challenge.id}.py", *NAMED_FILES) if n in candidates]
    chosen = candidates[0] if len(candidates) == 1 else (named[0] if named else None)
    if chosen is None:
        what = "no .py file" if not candidates else f"{len(candidates)} .py files and none named {challenge.id}.py"
        return Entry(student, None, f"{what} in {name}/")
    return _read(folder, student, (name, chosen))


def find_submissions(folder: Path, challenge: Challenge, skip: set[str] = frozenset()) -> list[Entry]:
    """Every student in `folder`, each with their file's bytes or the reason it is not graded.
    Names in `skip` (the output folder, when it is inside `folder`) are passed over."""
    if not folder.is_dir():
        raise InputError(f"{folder}: not a folder of submissions")
    entries: list[Entry] = []
    with os.scandir(folder) as listing:
        items = sorted(listing, key=lambda i: os.fsencode(i.name))
    for item in items:
        if item.name.startswith(".") or item.name == "__pycache__" or item.name in skip:
            continue
        entry = _entry(folder, item, challenge)
        if entry is not None:
            entries.append(entry)
    counts = Counter(e.student for e in entries)
    return [e if counts[e.student] == 1 else
            Entry(e.student, None, "two submissions under this name (a file and a folder): keep one")
            for e in entries]


def check_output_folder(out: Path, folder: Path) -> set[str]:
    """Refuse an output folder that cannot be one, before anything is graded; return the names
    in `folder` to pass over because the output folder is, or is inside, one of them."""
    if out.exists() and not out.is_dir():
        raise InputError(f"{out} exists and is not a folder", param="output")
    if not out.exists() and not out.parent.is_dir():
        raise InputError(f"{out.parent} does not exist: create it first, or choose another output folder",
                         param="output")
    inside, submissions = out.resolve(), folder.resolve()
    if inside == submissions:
        raise InputError(f"{out} is the submissions folder itself: choose another output folder", param="output")
    if submissions in inside.parents:
        parts = inside.relative_to(submissions).parts
        if len(parts) > 1 and (submissions / parts[0]).exists():  # passing it over would drop a student
            raise InputError(f"{out} is inside {submissions / parts[0]}, which could be a student's: "
                             "choose another output folder", param="output")
        return {parts[0]}
    return set()


def _result_path(out: Path, student: str) -> Path:
    return out / "results" / f"{result_file_name(student)}.json"


def _stored(out: Path, student: str, digest: str) -> SuiteResult | None:
    """A previous run's result for this student and this exact source, if there is a readable one."""
    try:
        data = json.loads(_result_path(out, student).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    block = data.get("quizforge") if isinstance(data, dict) else None
    if not isinstance(block, dict) or block.get("source_sha256") != digest or block.get("student") != student:
        return None
    return result_from_dict(block.get("result"))


def _save(out: Path, student: str, digest: str, result: SuiteResult, visibility: str) -> str:
    """Write the student's results file; '' or, when it cannot be written, why."""
    data = results.gradescope(result, visibility)
    data["quizforge"] = {"student": student, "source_sha256": digest, "result": result_to_dict(result)}
    try:
        write_atomically(_result_path(out, student), json.dumps(data, indent=2, ensure_ascii=False))
    except OSError as exc:
        return f"graded, but its results file could not be written ({exc.strerror})"
    return ""


class _Job:
    """One judge process and the task it is working on."""

    def __init__(self, challenge: Challenge, memory: int, time_limit: float | None):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "quizforge.grading.batch.job", challenge.id, str(memory),
             "none" if time_limit is None else str(time_limit)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.task: str | None = None

    def give(self, entry: Entry) -> None:
        self.task = entry.student
        task = {"student": entry.student, "path": str(entry.path), "source": base64.b64encode(entry.source).decode()}
        self.proc.stdin.write(json.dumps(task) + "\n")
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
    started = time.perf_counter()
    skip = check_output_folder(out, folder)
    entries = find_submissions(folder, challenge, skip)
    report = BatchReport(challenge.id, out, notes=[f"{visible_name(name)}: the output folder, not a student"
                                                   for name in sorted(skip)])
    out.mkdir(exist_ok=True)
    todo: list[Entry] = []
    for entry in entries:
        if entry.path is None:
            report.problems[entry.student] = entry.problem
            continue
        previous = None if force else _stored(out, entry.student, entry.digest)
        if previous is not None:
            report.graded[entry.student] = previous
            report.skipped.append(entry.student)
        else:
            todo.append(entry)
    total, done = len(entries), len(entries) - len(todo)
    if progress:
        progress(done, total, "")
    by_student = {entry.student: entry for entry in todo}
    pending = list(reversed(todo))
    workers = [_Job(challenge, memory, time_limit) for _ in range(max(1, min(jobs, len(todo))))] if todo else []
    selector = selectors.DefaultSelector()
    fatal: str | None = None
    try:
        for job in workers:
            selector.register(job.proc.stdout, selectors.EVENT_READ, job)
            if pending:
                job.give(pending.pop())
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
                    problem = _save(out, student, by_student[student].digest, result, visibility)
                    if problem:
                        report.problems[student] = problem
                else:
                    report.problems[student] = str(message.get("error", "not graded"))
                job.task = None
                busy -= 1
                done += 1
                if progress:
                    progress(done, total, student)
                if pending:
                    job.give(pending.pop())
                    busy += 1
    finally:
        for job in workers:
            job.stop()
    report.seconds = time.perf_counter() - started
    write_reports(report, entries, challenge)  # graded as far as it got, even when the sandbox failed
    if fatal is not None:
        raise SandboxError(fatal)
    return report


def write_reports(report: BatchReport, entries: list[Entry], challenge: Challenge) -> None:
    """The gradebook, the item analysis, the similarity hints and the problems, from what was graded
    (and, for similarity, from the bytes read when the folder was listed: no file is read again)."""
    graded = sorted(report.graded.items())
    gradebook.write_gradebook(report.out / "gradebook.csv", graded)
    item_analysis.write_item_analysis(report.out, graded, report.challenge)
    texts = {e.student: decode_source(e.source) for e in entries if e.path is not None}
    similarity.write_similarity(report.out, texts, challenge)
    lines = ["student,problem"] + [f"{gradebook.csv_cell(s)},{gradebook.csv_cell(p)}"
                                   for s, p in sorted(report.problems.items())]
    write_atomically(report.out / "problems.csv", "\n".join(lines) + "\n")
