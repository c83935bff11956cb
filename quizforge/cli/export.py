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


@export.command("github-classroom", short_help="Write a GitHub Classroom template repository for a challenge.")
@click.argument("challenge_id", metavar="ID")
@click.option("-o", "--output", "folder", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The template repository's folder (its parent must exist).")
@click.option("--install", metavar="COMMAND", help="How the runner installs quizforge (default: the wheel written "
              "into the template's vendor/, after checking its sha256, and torch's CPU build).")
@click.option("--file", "student_file", default="starter.py", show_default=True,
              help="The student's file in their repository.")
@click.option("--force", is_flag=True, help="Replace the template's files already in the folder.")
def export_github_classroom(challenge_id: str, folder: Path, install: str | None, student_file: str,
                            force: bool) -> None:
    """Write a GitHub Classroom template repository: the statement (README.md), starter.py, the
    public tests, quizforge as a wheel in vendor/, and .github/workflows/classroom.yml, which
    installs that wheel (checked against its hash, never fetched by name) and gives full points
    when `quiz grade` gives full marks."""
    from quizforge.challenges import load_challenge
    from quizforge.grading.exports import write_classroom_template
    from quizforge.grading.judge import failed_suite

    challenge = load_challenge(challenge_id)
    points = failed_suite(challenge, "").max_score  # the suite's points, collected without running it
    written = write_classroom_template(challenge, folder, points, install, student_file, force)
    click.echo(f"wrote {folder}: " + ", ".join(str(p.relative_to(folder)) for p in written))
