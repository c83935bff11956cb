"""`quiz grade`: grade one submission file against a coding challenge, in a sandbox."""

from __future__ import annotations

from pathlib import Path

import click

from quizforge.cli import cli, emit_json, stop_cleanly_on_sigterm

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")

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
@click.option("--visibility", type=click.Choice(VISIBILITIES), default=None,
              help="Gradescope visibility of the hidden tests in --format json (default: the challenge's, "
                   "usually after_due_date).")
@click.option("--unsafe-no-sandbox", "unsafe", is_flag=True,
              help="Grade without isolation, on a machine that cannot build the sandbox. Only for code you "
                   "trust: every format then carries a warning.")
def grade_command(submission: Path, challenge_id: str, output_format: str, memory_limit: str,
                  time_limit: float | None, visibility: str | None, unsafe: bool) -> None:
    """Run a challenge's hidden tests against SUBMISSION.py in a sandboxed worker.

    The exit status is 0 whenever grading finished, whatever the score; 1 when the
    sandbox cannot be built (nothing is graded; the message names the step); 2 for a
    usage error (unknown challenge, missing file).

    \b
    Examples:
      quiz grade softmax.py --challenge softmax
      quiz grade attention.py --challenge scaled_dot_product_attention --format json
      quiz grade mha.py --challenge multi_head_attention --memory-limit 1GiB --time-limit 60
    """
    # Everything that reports the result is loaded before any submission code runs.
    from quizforge import render
    from quizforge.challenges import load_challenge
    from quizforge.grading import results
    from quizforge.grading.grade import grade
    from quizforge.grading.sandbox import SandboxError, SandboxPolicy

    stop_cleanly_on_sigterm()
    challenge = load_challenge(challenge_id)
    if unsafe:
        click.echo(results.UNSAFE_WARNING, err=True)
    try:
        result = grade(submission, challenge, memory_limit=memory_limit, time_limit=time_limit,
                       policy=SandboxPolicy(isolated=not unsafe))
    except SandboxError as exc:
        raise click.ClickException(f"nothing was graded: {exc} (or, on a machine you trust, "
                                   "--unsafe-no-sandbox)") from None
    if output_format == "json":
        emit_json(results.gradescope(result, visibility or challenge.visibility))
    elif output_format == "junit":
        click.echo(results.junit(result))
    else:
        render.console().print(results.table(result))
