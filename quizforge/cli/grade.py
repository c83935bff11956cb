"""`quiz grade`: grade one submission file against a coding challenge, in a sandbox."""

from __future__ import annotations

from pathlib import Path

import click

from quizforge.cli import cli, emit_json

FORMATS = ("table", "json", "junit")


@cli.command("grade", short_help="Grade a submission against a coding challenge.")
@click.argument("submission", type=click.Path(path_type=Path))
@click.option("--challenge", "challenge_id", required=True, metavar="ID",
              help="The challenge to grade against (see `quiz challenges list`).")
@click.option("--format", "output_format", type=click.Choice(FORMATS), default="table", show_default=True,
              help="table, Gradescope results.json fields (json), or JUnit XML (junit).")
@click.option("--memory-limit", default="2GiB", show_default=True, metavar="SIZE",
              help="Memory for the submission's whole process tree, e.g. 512MiB.")
@click.option("--time-limit", type=click.FloatRange(min=0, min_open=True), metavar="SECONDS",
              help="Limit for the whole suite (default: the challenge's).")
def grade_command(submission: Path, challenge_id: str, output_format: str, memory_limit: str,
                  time_limit: float | None) -> None:
    """Run a challenge's hidden tests against SUBMISSION.py in a sandboxed worker.

    The exit status is 0 whenever grading finished, whatever the score; 2 for a usage
    error (unknown challenge, missing file).

    \b
    Examples:
      quiz grade softmax.py --challenge softmax
      quiz grade attention.py --challenge scaled_dot_product_attention --format json
      quiz grade mha.py --challenge multi_head_attention --memory-limit 1GiB --time-limit 60
    """
    from quizforge.grading.grade import grade
    from quizforge.grading.sandbox import SandboxError

    from quizforge.render import Progress

    try:
        with Progress(quiet=output_format != "table") as progress:
            progress.step(f"grading {submission.name}: starting the sandbox and running the hidden suite "
                          f"of {challenge_id}")
            result = grade(submission, challenge_id, memory_limit=memory_limit, time_limit=time_limit)
    except SandboxError as exc:
        raise click.ClickException(f"the sandbox failed, so nothing was graded: {exc}") from None
    from quizforge.grading import results

    if output_format == "json":
        emit_json(results.gradescope(result))
    elif output_format == "junit":
        click.echo(results.junit(result))
    else:
        from quizforge import render

        render.console().print(results.table(result))
