"""`quiz challenges`: list the coding challenges, and start one in a folder of your own."""

from __future__ import annotations

from pathlib import Path

import click

from quizforge.cli.output import emit_json
from quizforge.errors import InputError

STARTER_FILES = ("README.md", "starter.py", "test_public.py")


@click.group()
def challenges() -> None:
    """Coding challenges that `quiz grade` grades."""


@challenges.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def challenges_list(as_json: bool) -> None:
    """List the coding challenges."""
    from quizforge.challenges import challenge_ids, load_challenge

    rows = []
    for cid in challenge_ids():
        ch = load_challenge(cid)
        rows.append({"id": ch.id, "title": ch.title, "names": list(ch.names), "forbidden": list(ch.forbidden),
                     "call_timeout": ch.call_timeout, "total_timeout": ch.total_timeout})
    if as_json:
        emit_json(rows)
        return
    from rich.table import Table

    from quizforge import render
    from quizforge.render.fit import rows_table

    table = Table(title="coding challenges", title_justify="left")
    for column in ("id", "title", "define"):
        table.add_column(column, no_wrap=column == "id")
    cells = [(row["id"], row["title"], ", ".join(row["names"])) for row in rows]
    for cell in cells:
        table.add_row(*cell)
    names = [name for row in rows for name in [row["id"], *row["names"]]]
    render.console().print(rows_table(table, cells, names))
    click.echo("Start one with `quiz challenges start ID`, grade it with `quiz grade FILE --challenge ID`.")


@challenges.command("start", short_help="Copy a challenge's statement, starter and public tests into a folder.")
@click.argument("challenge_id", metavar="ID")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Replace starter files already in DIRECTORY (your work in them is lost).")
def challenges_start(challenge_id: str, directory: Path | None, force: bool) -> None:
    """Copy a challenge's README.md, starter.py and test_public.py into DIRECTORY (default ./ID).

    Existing files are overwritten only with --force.
    """
    from quizforge.challenges import load_challenge

    source = load_challenge(challenge_id).folder  # unknown ids get the list of known ones
    missing = [name for name in STARTER_FILES if not (source / name).is_file()]
    if missing:
        raise InputError(f"the exercise {challenge_id} has no {', '.join(missing)} in {source}")
    target = directory if directory is not None else Path(challenge_id)
    if target.exists() and not target.is_dir():
        raise InputError(f"{target} exists and is not a folder")
    clashes = [name for name in STARTER_FILES if (target / name).exists()]
    if clashes and not force:
        verb = "exists" if len(clashes) == 1 else "exist"
        raise InputError(f"{', '.join(clashes)} already {verb} in {target}/; not overwriting "
                         "(--force replaces them, or choose another folder)")
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name in STARTER_FILES:
            temp = target / f".{name}.tmp"
            temp.write_bytes((source / name).read_bytes())
            temp.replace(target / name)   # atomic: a file is never half-written
    except OSError as exc:
        raise InputError(f"cannot write into {target}: {exc.strerror}") from None
    click.echo(f"Copied {', '.join(STARTER_FILES)} into {target}/")
    click.echo("Next:")
    click.echo(f"  cd {target}")
    click.echo("  # read README.md, then write your solution in starter.py")
    click.echo("  python -m pytest test_public.py")
    click.echo(f"  quiz grade starter.py --challenge {challenge_id}")
