"""`quiz export`: autograders for Gradescope and GitHub Classroom that run `quiz grade`."""

from __future__ import annotations

from pathlib import Path

import click

from quizforge.cli import cli


@cli.group("export")
def export() -> None:
    """Autograders for the platforms courses grade on."""


@export.command("gradescope", short_help="Write a Gradescope autograder zip for a challenge.")
@click.argument("challenge_id", metavar="ID")
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), default=Path("autograder.zip"),
              show_default=True, help="Where to write the zip.")
@click.option("--unsafe-no-sandbox", "unsafe", is_flag=True,
              help="Grade without the sandbox inside Gradescope's single-use container (results say so).")
def export_gradescope(challenge_id: str, out: Path, unsafe: bool) -> None:
    """Write autograder.zip for challenge ID: upload it as a Gradescope programming assignment's
    autograder, on the Ubuntu 24.04 base image."""
    from quizforge.challenges import load_challenge
    from quizforge.grading.exports import gradescope_zip

    path = gradescope_zip(load_challenge(challenge_id), out, unsafe)
    click.echo(f"wrote {path}: upload it as the autograder (base image: Ubuntu 24.04)")


@export.command("github-classroom", short_help="Write a GitHub Classroom autograding workflow for a challenge.")
@click.argument("challenge_id", metavar="ID")
@click.option("-o", "--output", "folder", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The template repository's folder; the workflow goes in .github/workflows/classroom.yml.")
@click.option("--install", metavar="COMMAND", help="How the runner installs quizforge (default: pip install "
              "quizforge==<this version>).")
@click.option("--file", "student_file", default="starter.py", show_default=True,
              help="The student's file in their repository.")
def export_github_classroom(challenge_id: str, folder: Path, install: str | None, student_file: str) -> None:
    """Write a GitHub Classroom workflow: full points when `quiz grade` gives full marks."""
    from quizforge.challenges import load_challenge
    from quizforge.grading.exports import default_install, write_classroom_workflow
    from quizforge.grading.judge import failed_suite

    challenge = load_challenge(challenge_id)
    points = failed_suite(challenge, "").max_score  # the suite's points, collected without running it
    path = write_classroom_workflow(challenge, folder, points, install or default_install(), student_file)
    click.echo(f"wrote {path}")
