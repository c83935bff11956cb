"""The `quiz` command: parses arguments and renders. The work lives in library modules.

`quiz --help` must not pay for torch or sympy, nor for the command modules: the top-level
group names each command in COMMANDS (its module, its object and its line in the help) and
imports a command's module only when that command runs or shows its help. The command modules
never import this package back.
"""

from __future__ import annotations

import importlib
import os
import shutil
import sys

import click

from quizforge import __version__
from quizforge.cli.interrupts import terminated
from quizforge.errors import InputError

# name: (module, the command object in it, its line in `quiz --help`)
COMMANDS = {
    "ask": ("quizforge.cli.bank", "ask", "Draw a question, or show one by its ID."),
    "bank": ("quizforge.cli.bank", "bank", "The question bank's templates."),
    "calc": ("quizforge.cli.calc", "calc", "Parameter, FLOP and memory calculators."),
    "challenges": ("quizforge.cli.challenges", "challenges", "Coding challenges to grade."),
    "check": ("quizforge.cli.bank", "check", "Grade an answer; name the mistake behind it."),
    "explain": ("quizforge.cli.bank", "explain", "A question's worked solution, by its ID."),
    "export": ("quizforge.cli.export", "export", "Autograders for course platforms."),
    "export-history": ("quizforge.cli.stats", "export_history_command", "Export your history as CSV or JSON."),
    "grade": ("quizforge.cli.grade", "grade_command", "Grade code against a coding challenge."),
    "practice": ("quizforge.cli.practice", "practice", "Drill, GATE mock or interview practice."),
    "set": ("quizforge.cli.sets", "problem_set", "Problem sets for a class."),
    "stats": ("quizforge.cli.stats", "stats_command", "Your progress, reviews due and mocks."),
}


def _flag_prefix(exc: InputError) -> str:
    """'--topic: ' for a library error about its `topic` parameter: every command passes an
    option on to the library under the option's own name, so the name gives the flag."""
    return f"--{exc.param.replace('_', '-')}: " if exc.param else ""


# click 8.2+ raises this for a group run with no subcommand; older clicks print the help themselves.
_NO_ARGS_IS_HELP = getattr(click.exceptions, "NoArgsIsHelpError", None)


class HelpFormatter(click.HelpFormatter):
    """Click's, with the option column at most a third of the width: at 40 columns click keeps it
    30 wide and gives each description 10 columns, which run past the terminal's edge."""

    def write_dl(self, rows, col_max: int = 30, col_spacing: int = 2) -> None:
        super().write_dl(rows, col_max=min(col_max, max(self.width // 3, 8)), col_spacing=col_spacing)


class Context(click.Context):
    formatter_class = HelpFormatter


def _narrow_help(command: click.Command) -> None:
    """Every command's help drawn by HelpFormatter."""
    command.context_class = Context
    for sub in getattr(command, "commands", {}).values():
        _narrow_help(sub)


class LazyGroup(click.Group):
    """A group whose commands are imported when used: listing them reads COMMANDS only."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name not in COMMANDS:
            return None
        module, attribute, short_help = COMMANDS[name]
        command = getattr(importlib.import_module(module), attribute)
        command.short_help = short_help
        _narrow_help(command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list of `quiz --help`, from COMMANDS, without importing a command."""
        limit = formatter.width - 6 - max(len(name) for name in COMMANDS)
        rows = [(name, click.Command(name, short_help=line).get_short_help_str(limit))
                for name, (_, _, line) in sorted(COMMANDS.items())]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="quizforge")
def cli() -> None:
    """quizforge: practise transformers and attention for GATE DA and ML interviews.

    Every answer is computed by a reference transformer, never typed in.
    """


def help_width() -> int:
    """The width help is wrapped to: the terminal's, up to 100 columns. Click's own choice never
    goes below 50, which a 40-column terminal then cuts mid-word."""
    return max(min(shutil.get_terminal_size().columns, 100) - 2, 20)


def main(argv: list[str] | None = None) -> None:
    """Run `quiz`; every user error becomes one line on stderr and exit status 2."""
    _narrow_help(cli)
    try:
        code = cli.main(args=argv, prog_name="quiz", standalone_mode=False, terminal_width=help_width())
    except click.exceptions.Exit as exc:
        code = exc.exit_code
    except click.Abort as exc:
        if isinstance(exc.__cause__, KeyboardInterrupt):  # click's wrapping of Ctrl-C (or SIGTERM, below)
            code = 143 if terminated() else 130
        else:
            click.echo("Aborted.", err=True)
            code = 1
    except click.ClickException as exc:
        if _NO_ARGS_IS_HELP is not None and isinstance(exc, _NO_ARGS_IS_HELP) and exc.ctx is not None:
            click.echo(exc.ctx.get_help())  # `quiz`, `quiz calc`: the group's help, not an error
            code = 0
        else:
            click.echo(f"error: {exc.format_message()}", err=True)
            code = exc.exit_code
    except InputError as exc:
        click.echo(f"error: {_flag_prefix(exc)}{exc}", err=True)
        code = 2
    except KeyboardInterrupt:
        code = 143 if terminated() else 130
    if code in (130, 143):
        # Interrupted: everything has been cleaned up by now. Exit at once, because CPython exits
        # by SIGINT instead if the interrupt landed inside C code that ran Python (torch's pybind11
        # exec), whatever was caught since.
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)
    sys.exit(code or 0)

