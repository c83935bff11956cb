"""`quiz stats` and `quiz export-history`: the learner's progress, read from the history file.

Only click is imported at load time; neither command pulls in torch, numpy or sympy.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import click

from quizforge.cli.output import emit_json
from quizforge.cli.practice import history_error
from quizforge.errors import InputError

DATA_DIR_HELP = "Folder holding history.db (default: $QUIZFORGE_HOME, then the user data folder)."


def _now() -> float:
    return time.time()


@click.command("stats")
@click.option("--json", "as_json", is_flag=True, help="Print the statistics as JSON.")
@click.option("--days", type=click.IntRange(1, 365), default=30, show_default=True,
              help="Length of the daily accuracy series.")
@click.option("--fit", is_flag=True,
              help="Fit FSRS's parameters to your own reviews (once there are enough) and use them from now on.")
@click.option("--data-dir", type=click.Path(), metavar="PATH", help=DATA_DIR_HELP)
def stats_command(as_json: bool, days: int, fit: bool, data_dir: str | None) -> None:
    """Accuracy per topic with its trend, your streak, the cards due this fortnight,
    the misconceptions you still fall for, and your mock scores.

    \b
    Examples:
      quiz stats
      quiz stats --days 14 --json
      quiz stats --fit
    """
    if fit:
        return _fit(data_dir, as_json)
    from quizforge.practice.stats import compute_stats

    from quizforge.practice.paths import history_path
    from quizforge.practice.store import HistoryError, read_history

    try:
        with read_history(history_path(data_dir)) as history:
            stats = compute_stats(history, _now(), days=days)
    except HistoryError as exc:
        raise InputError(history_error(exc)) from None
    if as_json:
        emit_json(stats)
        return
    from quizforge.tui.charts import stats_view
    from quizforge.render import console

    console().print(stats_view(stats))


def _fit(data_dir: str | None, as_json: bool) -> None:
    from quizforge.practice.fit import fit
    from quizforge.practice.paths import history_path
    from quizforge.practice.store import History, HistoryError

    path = history_path(data_dir)
    if not path.exists():
        raise InputError(f"no history at {path} yet: practise first (quiz practice)")
    if not as_json:
        click.echo("fitting FSRS to your reviews…", err=True)
    try:
        with History(path) as history:
            result = fit(history, _now())
    except HistoryError as exc:
        raise InputError(history_error(exc)) from None
    if as_json:
        emit_json({"fitted": result.fitted, "reviews": result.counted, "needed": result.needed,
                   "before": result.before, "after": result.after, "rescheduled": result.rescheduled,
                   "changes": result.changes()})
        return
    if not result.fitted:
        click.echo(f"not enough history to fit yet: {result.counted} of the {result.needed} reviews on a later day "
                   f"that FSRS's optimizer needs; the default parameters stay")
        return
    changes = result.changes()
    click.echo(f"fitted FSRS to {result.counted} reviews; {result.rescheduled} cards rescheduled with the new parameters"
               + ("" if changes else "; the parameters barely moved"))
    for line in changes:
        click.echo(f"  {line}")


@click.command("export-history")
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
    from quizforge.practice.history_export import check_format, export_history, export_to_file

    fmt = check_format(fmt)  # before anything is opened or written
    from quizforge.practice.paths import history_path
    from quizforge.practice.store import HistoryError, read_history

    try:
        with read_history(history_path(data_dir)) as history:
            if output == "-":
                export_history(history, fmt, sys.stdout)
                sys.stdout.flush()
                return
            target = Path(output).expanduser()
            n = export_to_file(history, fmt, target)
    except HistoryError as exc:
        raise InputError(history_error(exc)) from None
    click.echo(f"exported {n} attempt{'s' if n != 1 else ''} to {target}", err=True)
