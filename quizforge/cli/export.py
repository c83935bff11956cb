"""`quiz export`: a Gradescope autograder that runs `quiz grade`, and a GitHub Classroom template
that runs the public tests."""

from __future__ import annotations

from pathlib import Path

import click


@click.group("export")
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
    from quizforge.grading.exports.course_platforms import gradescope_zip

    path = gradescope_zip(load_challenge(challenge_id), out, unsafe)
    click.echo(f"wrote {path}: upload it as the autograder (base image: Ubuntu 24.04)")


@export.command("github-classroom", short_help="Write a GitHub Classroom template repository for a challenge.")
@click.argument("challenge_id", metavar="ID")
@click.option("-o", "--output", "folder", type=click.Path(path_type=Path), default=Path("."), show_default=True,
              help="The template repository's folder (its parent must exist).")
@click.option("--install", metavar="COMMAND", help="How the runner installs torch and pytest (default: torch's "
              "CPU build pinned from PyTorch's index, and a pinned pytest).")
@click.option("--force", is_flag=True, help="Replace the template's files already in the folder.")
def export_github_classroom(challenge_id: str, folder: Path, install: str | None, force: bool) -> None:
    """Write a GitHub Classroom template repository: the statement (README.md), starter.py, the
    public tests, and .github/workflows/classroom.yml, which runs each public test as a GitHub
    Classroom test worth one point. Nothing of quizforge is in it, so no hidden suite: grades
    that count come from `quiz grade --batch` or the Gradescope export."""
    from quizforge.challenges import load_challenge
    from quizforge.grading.exports.course_platforms import write_classroom_template

    written, removed = write_classroom_template(load_challenge(challenge_id), folder, install, force)
    click.echo(f"wrote {folder}: " + ", ".join(str(p.relative_to(folder)) for p in written))
    if removed:
        click.echo("removed an earlier template's wheel of quizforge, which held the hidden suites: "
                   + ", ".join(str(p.relative_to(folder)) for p in removed))
