"""`quiz grade`: grade one submission file against a coding challenge, in a sandbox."""

from __future__ import annotations

from pathlib import Path

import click

from quizforge.cli.interrupts import stop_cleanly_on_sigterm, terminated
from quizforge.cli.output import emit_json
from quizforge.cli.params import FiniteFloatRange

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")

FORMATS = ("table", "json", "junit")


@click.command("grade")
@click.argument("submission", type=click.Path(path_type=Path), required=False)
@click.option("--challenge", "challenge_id", required=True, metavar="ID",
              help="The challenge to grade against (see `quiz challenges list`).")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table, Gradescope results.json fields (json), or JUnit XML (junit).")
@click.option("--memory-limit", default="2GiB", show_default=True, metavar="SIZE",
              help="Memory for the submission's whole process tree, e.g. 512MiB.")
@click.option("--time-limit", type=FiniteFloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Limit for the whole suite (default: the challenge's).")
@click.option("--visibility", type=click.Choice(VISIBILITIES), default=None,
              help="Gradescope visibility of the hidden tests in --format json (default: the challenge's, "
                   "usually after_due_date).")
@click.option("--unsafe-no-sandbox", "unsafe", is_flag=True,
              help="Grade without isolation, on a machine that cannot build the sandbox. Only for code you "
                   "trust: every format then carries a warning.")
@click.option("--batch", "batch_dir", type=click.Path(path_type=Path), metavar="DIR",
              help="Grade every submission in DIR (one .py file, or one folder, per student).")
@click.option("--jobs", type=click.IntRange(min=1, max=64), default=1, show_default=True,
              help="With --batch: submissions graded at once.")
@click.option("-o", "--output", "out_dir", type=click.Path(path_type=Path), metavar="OUT",
              help="With --batch: where results go (default: DIR-grades next to DIR).")
@click.option("--force", is_flag=True, help="With --batch: grade again what an earlier run already graded.")
@click.option("--seed", metavar="N",
              help="Draw the hidden inputs from seed N, to grade exactly as an earlier grading did (its result "
                   "names its seed). Default: a fresh secret seed for each grading. Not with --batch.")
@click.option("--fail-under", type=FiniteFloatRange(0, 100), metavar="PERCENT",
              help="Exit 3 when the score is below PERCENT of the points (for a CI job of your own).")
def grade_command(submission: Path | None, challenge_id: str, output_format: str, memory_limit: str,
                  time_limit: float | None, visibility: str | None, unsafe: bool, batch_dir: Path | None,
                  jobs: int, out_dir: Path | None, force: bool, seed: str | None, fail_under: float | None) -> None:
    """Run a challenge's hidden tests against SUBMISSION.py in a sandboxed worker.

    The exit status is 0 whenever grading finished, whatever the score (3 with
    --fail-under when the score is below it); 1 when the sandbox cannot be built
    (nothing is graded; the message names the step); 2 for a usage error.

    \b
    Examples:
      quiz grade softmax.py --challenge softmax
      quiz grade attention.py --challenge scaled_dot_product_attention --format json
      quiz grade mha.py --challenge multi_head_attention --memory-limit 1GiB --time-limit 60
      quiz grade softmax.py --challenge softmax --seed 2718281828   (the same inputs again)
    """
    from quizforge.challenges import load_challenge

    challenge = load_challenge(challenge_id)   # an unknown one is named first, with a suggestion
    if submission is not None and batch_dir is None and output_format == "table":
        from quizforge.grading.intake.source_file import runnable_source

        # On the terminal, a file with nothing to run is one line before anything is loaded; json and
        # junit still carry every test as failed, which is what an autograder's platform shows a student.
        source = runnable_source(submission)
    else:
        source = None
    # Everything that reports the result is loaded before any submission code runs.
    from quizforge import render
    from quizforge.cli import grade_view
    from quizforge.grading.exports import results
    from quizforge.grading.grade import grade
    from quizforge.grading.sandbox_host.sandbox import SandboxError, SandboxPolicy
    from quizforge.render import Progress

    stop_cleanly_on_sigterm()
    if (submission is None) == (batch_dir is None):
        raise click.UsageError("give either a SUBMISSION file or --batch DIR")
    if batch_dir is not None:
        if seed is not None:
            raise click.UsageError("--seed regrades one submission: each student of a batch gets a fresh seed, "
                                   "written in results/<student>.json; give that file and its seed instead")
        if unsafe:
            raise click.UsageError("--batch always grades in the sandbox; --unsafe-no-sandbox is for one file")
        _grade_batch(batch_dir, challenge, out_dir, jobs, force, memory_limit, time_limit,
                     visibility or challenge.visibility)
        return
    from quizforge.challenges import seeds

    seed_value = None if seed is None else seeds.parse(seed)  # a bad one is one line before any grading
    if unsafe:
        click.echo(results.UNSAFE_WARNING, err=True)
    try:
        with Progress(quiet=output_format != "table") as progress:
            progress.step(f"grading {submission.name}: starting the sandbox and running the hidden suite "
                          f"of {challenge_id}")

            def on_test(n: int, total: int) -> None:   # a no-op when Progress is quiet (piped, json)
                progress.step(f"grading {submission.name}: running the hidden suite: test {n} of {total}")

            result = grade(submission, challenge, memory_limit=memory_limit, time_limit=time_limit,
                           policy=SandboxPolicy(isolated=not unsafe), progress=on_test, seed=seed_value,
                           source=source)
    except SandboxError as exc:
        raise click.ClickException(f"nothing was graded: {exc} (or, on a machine you trust, "
                                   "--unsafe-no-sandbox)") from None
    except KeyboardInterrupt:
        _say_stopped("nothing was graded")  # the spinner has been cleared by now
        raise
    if output_format == "json":
        emit_json(results.gradescope(result, visibility or challenge.visibility))
    elif output_format == "junit":
        click.echo(results.junit(result))
    else:
        render.console().print(grade_view.table(result))
    if fail_under is not None and result.score < fail_under / 100 * result.max_score:
        raise click.exceptions.Exit(3)


def _grade_batch(folder: Path, challenge, out_dir: Path | None, jobs: int, force: bool, memory_limit: str,
                 time_limit: float | None, visibility: str) -> None:
    import sys

    from quizforge import render
    from quizforge.grading.batch.driver import grade_batch
    from quizforge.grading.judge.limits import parse_size
    from quizforge.grading.sandbox_host.sandbox import SandboxError

    out = out_dir or folder.resolve().parent / f"{folder.resolve().name}-grades"
    console = render.console()
    kwargs = dict(jobs=jobs, force=force, memory=parse_size(memory_limit), time_limit=time_limit,
                  visibility=visibility)
    try:
        if sys.stdout.isatty():
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

            columns = (TextColumn("grading {task.description}"), BarColumn(), MofNCompleteColumn(),
                       TextColumn("ETA"), TimeRemainingColumn())
            with Progress(*columns, console=console, transient=True) as bar:
                task = bar.add_task(challenge.id, total=None)
                report = grade_batch(folder, challenge, out, **kwargs,
                                     progress=lambda done, total, _s: bar.update(task, completed=done, total=total))
        else:
            report = grade_batch(folder, challenge, out, **kwargs)
    except SandboxError as exc:
        raise click.ClickException(f"the batch stopped, nothing more was graded: {exc}") from None
    except KeyboardInterrupt:  # the progress bar has been cleared by now
        kept = len(list((out / "results").glob("*.json"))) if (out / "results").is_dir() else 0
        _say_stopped(f"{kept} submission{'s' * (kept != 1)} graded and kept in {out / 'results'}; "
                     "the same command grades the rest")
        raise
    scores = [r.score for r in report.graded.values()]
    top = max((r.max_score for r in report.graded.values()), default=0)
    if not scores and not report.problems:
        console.print(f"nothing to grade: no submissions in {folder}", markup=False, highlight=False)
    else:
        mean = f" · mean {sum(scores) / len(scores):.1f}/{top:g}" if scores else ""
        console.print(f"{len(report.graded)} graded ({len(report.skipped)} from an earlier run), "
                      f"{len(report.problems)} not gradable{mean} · {report.seconds:.1f} s")
    console.print(f"results in {out}: gradebook.csv, results/, item_analysis.md, similarity.md, problems.csv",
                  markup=False, highlight=False)
    _print_passed_over(console, report)


def _say_stopped(what: str) -> None:
    """One line on stderr after Ctrl-C (or SIGTERM), so the exit is not silent."""
    word = "terminated" if terminated() else "interrupted"
    click.echo(f"{word}: {what}", err=True)


def _print_passed_over(console, report, shown: int = 10) -> None:
    """What was not graded, one line each (names and reasons come from the class folder: made plain)."""
    from quizforge.grading.intake.text_safety import plain, visible_name

    lines = [f"skipped {note}" for note in report.notes]
    lines += [f"not gradable: {visible_name(s)}: {p}" for s, p in sorted(report.problems.items())]
    for line in lines[:shown]:
        console.print(plain(line), markup=False, highlight=False, soft_wrap=True)
    if len(lines) > shown:
        console.print(f"... and {len(lines) - shown} more in problems.csv", markup=False, highlight=False)
