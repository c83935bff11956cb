"""`grade()`: one submission file against one challenge, start to finish.

In order, each step able to end the grading with every test failed and one line
saying why: the file (missing, unreadable or too large is the user's mistake:
InputError), parsing (a syntax error, with its line), the static forbidden-API
check, the names the challenge requires, importing the submission in a sandboxed
worker (an error, an exit or a hang at import), and finally the hidden suite. The
worker's whole process tree and its scratch folder are gone when this returns,
whatever happened, Ctrl-C included.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from quizforge.challenges import Challenge, load_challenge, seeds
from quizforge.grading.intake import forbidden
from quizforge.grading.intake.source_file import parse, read_submission
from quizforge.grading.judge.hidden_suite import SuiteResult, failed_suite, run_suite
from quizforge.grading.judge.limits import DEFAULT_MEMORY, Limits, parse_size
from quizforge.grading.judge.request_submission import SubmissionError
from quizforge.grading.judge.rules import GuardRules
from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission
from quizforge.grading.sandbox_host.sandbox import SandboxPolicy
from quizforge.threads import single_thread


def grade(path: str | Path, challenge: str | Challenge, *, memory_limit: int | str = DEFAULT_MEMORY,
          time_limit: float | None = None, policy: SandboxPolicy | None = None, zygote=None,
          progress: Callable[[int, int], None] | None = None, source: bytes | None = None,
          seed: int | str | None = None, static_check: bool = True, capability: bool | None = None) -> SuiteResult:
    """Grade the submission at `path`. Raises InputError for a bad path, challenge or limit;
    anything wrong with the submission itself is a result, never an exception. With a
    `zygote` (quizforge.grading.sandbox_host.zygote_control.Zygote, for batches), its workers are forked from it.
    `progress(n, total)` is called as each hidden test begins (not when the submission is
    rejected before it runs: then no test runs). `source`: the file's bytes, already read and
    checked (intake/class_folder.py, for a class's hostile folder), so `path` is not opened again.
    The suite's inputs are drawn from `seed`, a fresh secret one for each grading unless given
    (to reproduce one: the result carries its seed). `static_check=False` is for tests of the
    sandbox and the worker's guards on their own: code the static check would refuse is run
    anyway, and by default imported as plain Python, without the capability compile."""
    seed = seeds.fresh() if seed is None else seeds.parse(seed)
    challenge = challenge if isinstance(challenge, Challenge) else load_challenge(challenge)
    call_seconds = challenge.call_timeout if time_limit is None else min(challenge.call_timeout, time_limit)
    limits = Limits(memory=parse_size(memory_limit), call_seconds=call_seconds,
                    total_seconds=challenge.total_timeout if time_limit is None else time_limit)
    source = read_submission(path) if source is None else source
    started = time.perf_counter()
    # The suite's limit covers parsing and the static check too: a hostile file costs no more.
    deadline = time.monotonic() + limits.total_seconds

    tree, problem = parse(source)
    if tree is not None and static_check:
        violations = forbidden.check_source(tree, challenge.forbidden, challenge.imports)
        if violations:
            more = f" (and {len(violations) - 1} more)" if len(violations) > 1 else ""
            problem = violations[0].describe() + more
    if tree is not None and not problem:
        defined = forbidden.top_level_names(tree)
        missing = [n for n in challenge.names if defined is not None and n not in defined]
        if missing:
            problem = (f"the submission does not define {', '.join(missing)} at the top level "
                       f"(this challenge needs {', '.join(challenge.names)})")
    if not problem and time.monotonic() >= deadline:
        problem = f"reading the submission took longer than the {limits.total_seconds:g} s limit"
    if problem:
        return _finish(failed_suite(challenge, problem), started, seed)
    rules = GuardRules(challenge.id, tuple(challenge.forbidden), tuple(challenge.imports),
                       capability=static_check if capability is None else capability)
    submission = IsolatedSubmission(source, limits, rules, deadline=deadline, policy=policy, zygote=zygote)

    def import_submission() -> str | None:
        try:
            submission.start()
        except SubmissionError as exc:
            return str(exc)  # an error, exit or hang at import: every test fails with it
        return None

    try:
        submission.prelaunch()  # the worker imports torch while the judge collects the suite
        with single_thread():  # the judge's reference values are tiny tensors
            result = run_suite(challenge, submission, deadline=deadline, time_limit=limits.total_seconds,
                               prepare=import_submission, progress=progress, seed=seed)
    finally:
        submission.close()
    result.submission_output = submission.output.summary()
    result.sandbox = {
        **submission.info.as_dict(), "workers": submission.starts,
        "startup_seconds": [round(s, 3) for s in submission.startup_seconds],
        "torch_import_seconds": [round(s, 3) for s in submission.torch_import_seconds],
    }
    return _finish(result, started, seed)


def _finish(result: SuiteResult, started: float, seed: int) -> SuiteResult:
    result.duration = time.perf_counter() - started
    result.seed = seed  # also when the submission was rejected: --seed then gives the same result
    return result
