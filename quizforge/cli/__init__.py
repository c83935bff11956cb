"""The `quiz` command: parses arguments and renders. The work lives in library modules.

Nothing heavy is imported at module level: `quiz --help` must not pay for torch
or sympy, so each command imports what it needs when it runs. Each command group
lives in its own module here and registers itself on `cli`.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import click

from quizforge import __version__
from quizforge.errors import InputError


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="quizforge")
def cli() -> None:
    """quizforge: practise transformers and attention for GATE DA and ML interviews.

    Every answer is computed by a reference transformer, never typed in.
    """


_terminated = False


def stop_cleanly_on_sigterm() -> None:
    """SIGTERM (timeout, kill, docker stop) unwinds like Ctrl-C, so `finally` blocks kill
    sandboxes and remove what they wrote; the exit status is then 143."""
    import signal

    def handler(signum, frame):
        global _terminated
        if _terminated:
            return  # already unwinding: a second SIGTERM must not cut the cleanup short
        _terminated = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, handler)


def emit_json(payload: Any) -> None:
    click.echo(json.dumps(payload, indent=2, ensure_ascii=False))


# --- entry point -----------------------------------------------------------

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


def help_width() -> int:
    """The width help is wrapped to: the terminal's, up to 100 columns. Click's own choice never
    goes below 50, which a 40-column terminal then cuts mid-word."""
    import shutil

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
            code = 143 if _terminated else 130
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
        code = 143 if _terminated else 130
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


# Register the command groups (each module imports only click at load time).
from quizforge.cli import bank as _bank  # noqa: E402,F401
from quizforge.cli import calc as _calc  # noqa: E402,F401
from quizforge.cli import challenges as _challenges  # noqa: E402,F401
from quizforge.cli import export as _export  # noqa: E402,F401
from quizforge.cli import grade as _grade  # noqa: E402,F401
from quizforge.cli import practice as _practice  # noqa: E402,F401
from quizforge.cli import sets as _sets  # noqa: E402,F401
from quizforge.cli import stats as _stats  # noqa: E402,F401
