"""`quiz set`: instructor problem sets (make them, grade what comes back)."""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path

import click

from quizforge.errors import InputError


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


@click.group("set")
def problem_set() -> None:
    """Problem sets for a class: a variant per student, keys, LMS exports, grading."""


@problem_set.command("make", short_help="Make a variant per student from a spec.")
@click.argument("spec", type=click.Path(path_type=Path))
@click.option("--roster", type=click.Path(path_type=Path), help="CSV with columns id, name (email optional).")
@click.option("--variants", type=int, help="K numbered variants instead of a roster.")
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), required=True, help="The folder to write.")
@click.option("--force", is_flag=True, help="Replace OUT if it already holds files.")
@click.option("--no-pdf", is_flag=True, help="Skip the PDFs (the slowest part); write everything else.")
def set_make(spec: Path, roster: Path | None, variants: int | None, out: Path, force: bool, no_pdf: bool) -> None:
    """Make papers, answer keys and LMS exports (Moodle, GIFT, Canvas, QTI 2.1) from SPEC.toml (see examples/)."""
    from quizforge.problemsets.make import FolderNotEmpty, make_set

    if (roster is None) == (variants is None):
        raise click.UsageError("give either --roster CSV or --variants K")
    try:
        with _step_bar() as progress:
            made = make_set(spec, out, roster=roster, variants=variants, force=force, pdf=not no_pdf,
                            progress=progress)
    except FolderNotEmpty as exc:
        raise InputError(f"{exc}; choose another folder or pass --force") from None
    from quizforge.render import console
    from quizforge.render.terminal import say

    out_console = console()
    pdfs = [] if no_pdf else ["papers/ as PDF", "all_papers.pdf (to print double-sided)", "answer_book.pdf"]
    say(out_console, f"{_plural(made['students'], 'paper')} of {_plural(made['questions'], 'question')} "
                     f"({_plural(made['marks'], 'mark')}) in {made['out']}:",
        items=["papers/ and keys/ as Markdown", *pdfs, "keys.csv", "keys.json", "moodle.xml", "quiz.gift",
               "qti21.zip", "canvas_qti12.zip", "lms_report.md"], separator=", ")
    if made["roster_read_as"] is not None:
        click.echo(f"Read {made['roster_read_as']}")
    if made["unprintable"]:
        shown = ", ".join(made["unprintable"][:10]) + (" and more" if len(made["unprintable"]) > 10 else "")
        click.echo(f"warning: {_plural(len(made['unprintable']), 'name')} in a script the bundled fonts do not set "
                   f"(Latin, Greek, Cyrillic, Devanagari, Tamil, Telugu) left blank for the student to write on "
                   f"the papers of {shown}", err=True)
    say(out_console, f"Different questions per slot (of {made['students']} papers):",
        items=[f"Q{v.slot.number} {v.distinct}" for v in made["variety"]])
    from quizforge.problemsets.variants import fixed_fact_note

    for v in made["variety"]:
        if note := fixed_fact_note(v.slot):
            click.echo(f"warning: Q{v.slot.number} ({v.slot.template}) is a fixed-fact template, unsuitable for "
                       f"per-student variants: {note}", err=True)
        if v.shared:
            click.echo(f"warning: Q{v.slot.number} ({v.slot.template}) has {v.distinct} different "
                       f"{'text' if v.distinct == 1 else 'texts'} for {v.papers} papers; up to {v.largest_share} "
                       "students share one, so neighbours can compare answers", err=True)


@contextmanager
def _step_bar():
    """A progress bar on stderr while it is a terminal, told (step, done, total); total None is a
    step that is not counted (the bar pulses). Piped: no bar, and the callback is None."""
    from rich.console import Console

    console = Console(stderr=True, highlight=False)
    if not console.is_terminal:
        yield None
        return
    with step_progress(console) as bar:
        task = bar.add_task("", total=None)
        yield lambda step, done, total: bar.update(task, description=step, completed=done, total=total)


def step_progress(console):
    """The step, then its count, then the bar: in 40 columns the bar gives way, never the count."""
    from rich.progress import BarColumn, Progress, ProgressColumn, TextColumn
    from rich.table import Column
    from rich.text import Text

    class Count(ProgressColumn):
        def render(self, task) -> Text:
            return Text(f"{task.completed:.0f}/{task.total:.0f}" if task.total else "")

    return Progress(TextColumn("{task.description}", table_column=Column(no_wrap=True, overflow="ellipsis")),
                    Count(table_column=Column(no_wrap=True, min_width=7)), BarColumn(), console=console,
                    transient=True)


@problem_set.command("grade", short_help="Grade the answers students handed back.")
@click.argument("folder", type=click.Path(path_type=Path))
@click.argument("responses", type=click.Path(path_type=Path))
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), help="Default: FOLDER/graded.")
@click.option("--overrides", type=click.Path(path_type=Path),
              help="TOML of [[overrides]]: accept an extra answer, drop a question, award its marks, "
                   "or grade a corrected answer.")
@click.option("--no-pdf", is_flag=True, help="Skip the return sheets (PDF); write everything else.")
def set_grade(folder: Path, responses: Path, out: Path | None, overrides: Path | None, no_pdf: bool) -> None:
    """Grade RESPONSES.csv (student, question, answer) against the set in FOLDER, GATE's way,
    and write each student a return sheet.

    Reads CSV, semicolon or tab files in UTF-8, UTF-16 or cp1252; in a semicolon file the
    comma is the decimal separator. A blank answer is not answered. Run it again (with
    --overrides) to regrade."""
    from quizforge.problemsets.responses import grade_responses

    with _step_bar() as bar:
        if bar is not None:
            bar(f"grading {responses.name}", 0, None)
        typeset = (lambda done, total: bar("typesetting the return sheets", done, total)) if bar is not None else None
        done = grade_responses(folder, responses, out or folder / "graded", overrides,
                               return_sheets=not no_pdf, progress=typeset)
    applied = f", {_plural(done['overrides'], 'override')} applied" if overrides is not None else ""
    sheets = ", returns/ (a PDF per student)" if done["return_sheets"] else ""
    click.echo(f"{_plural(done['graded'], 'answer')} of {_plural(done['students'], 'student')} graded, "
               f"{done['rejected']} rejected "
               f"(see rejects.csv){applied} in {done['out']}: gradebook.csv, feedback/, item_stats.md{sheets}")
    click.echo(f"Read {done['read_as']}")


@problem_set.command("keys", short_help="Typeset answer keys as PDF for some students (or all).")
@click.argument("folder", type=click.Path(path_type=Path))
@click.argument("ids", nargs=-1)
@click.option("-o", "--output", "out", type=click.Path(path_type=Path), help="Default: FOLDER/keys.")
def set_keys(folder: Path, ids: tuple[str, ...], out: Path | None) -> None:
    """Write the answer keys of the students IDS (roll numbers; everyone when none are given)
    in the set in FOLDER as PDF: the question, its key and accepted range, the worked solution
    and why each option is right or wrong."""
    from quizforge.problemsets.sheets import write_keys

    with _step_bar() as bar:
        typeset = (lambda done, total: bar("typesetting the keys", done, total)) if bar is not None else None
        done = write_keys(folder, list(ids), out, typeset)
    click.echo(f"{_plural(done['keys'], 'answer key')} as PDF in {done['out']}")
