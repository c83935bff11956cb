"""`quiz stats` and `quiz export-history`: the learner's progress, read from the history file.

Only click is imported at load time; neither command pulls in torch, numpy or sympy.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

import click

from quizforge.cli import cli, emit_json
from quizforge.errors import InputError

DATA_DIR_HELP = "Folder holding history.db (default: $QUIZFORGE_HOME, then the user data folder)."


def _now() -> float:
    return time.time()


class _NoHistory:
    """Stands in for a history file that does not exist yet, so reading one creates nothing."""

    def attempts(self, since=None, mode=None) -> list:
        return []

    def sessions(self) -> list:
        return []

    def cards(self) -> dict:
        return {}

    def reviews(self) -> list:
        return []

    def mocks(self) -> list:
        return []

    def close(self) -> None:
        pass


@contextmanager
def _open_history(data_dir: str | None) -> Iterator[object]:
    """The learner's history, or an empty stand-in when there is no file yet."""
    from quizforge.practice.paths import history_path

    path = history_path(data_dir)
    if path.exists():
        from quizforge.practice.store import History

        history = History(path)
    else:
        history = _NoHistory()
    try:
        yield history
    finally:
        history.close()


@cli.command("stats", short_help="Your progress: accuracy by topic, streak, due cards, weak spots, mocks.")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--days", type=click.IntRange(1, 365), default=30, show_default=True,
              help="Length of the daily accuracy series.")
@click.option("--data-dir", type=click.Path(), metavar="PATH", help=DATA_DIR_HELP)
def stats_command(as_json: bool, days: int, data_dir: str | None) -> None:
    """Accuracy per topic with its trend, your streak, the cards due this fortnight,
    the misconceptions you still fall for, and your mock scores.

    \b
    Examples:
      quiz stats
      quiz stats --days 14 --json
    """
    from quizforge.practice.stats import compute_stats

    with _open_history(data_dir) as history:
        stats = compute_stats(history, _now(), days=days)
    if as_json:
        emit_json(stats)
        return
    from quizforge.practice.charts import stats_view
    from quizforge.render import console

    console().print(stats_view(stats))


def _file_mode(target: Path) -> int:
    try:
        return target.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _write_atomically(target: Path, fmt: str, history) -> int:
    """Write into a temporary file beside `target`, then rename it over `target`."""
    from quizforge.practice.history_export import export_history

    if target.is_dir():
        raise InputError(f"--output {target} is a folder; name a file")
    folder = target.parent
    if not folder.is_dir():
        raise InputError(f"--output {target}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise InputError(f"cannot write to {folder}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            n = export_history(history, fmt, fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, _file_mode(target))
        os.replace(tmp, target)
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise
    return n


@cli.command("export-history", short_help="Export your history as CSV or JSON.")
@click.option("--format", "fmt", required=True, metavar="csv|json",
              help="csv: one row per attempt; json: sessions, attempts, cards, reviews and mocks.")
@click.option("--output", "-o", default="-", show_default=True, metavar="FILE|-",
              help="File to write (replaced atomically), or - for standard output.")
@click.option("--data-dir", type=click.Path(), metavar="PATH", help=DATA_DIR_HELP)
def export_history_command(fmt: str, output: str, data_dir: str | None) -> None:
    """Export the whole history: CSV for a spreadsheet, JSON for a backup or your own analysis.

    \b
    Examples:
      quiz export-history --format csv --output history.csv
      quiz export-history --format json > history.json
    """
    from quizforge.practice.history_export import check_format, export_history

    fmt = check_format(fmt)  # before anything is opened or written
    with _open_history(data_dir) as history:
        if output == "-":
            export_history(history, fmt, sys.stdout)
            sys.stdout.flush()
            return
        target = Path(output).expanduser()
        n = _write_atomically(target, fmt, history)
    click.echo(f"exported {n} attempt{'s' if n != 1 else ''} to {target}", err=True)
