"""`quiz practice`: drill, GATE mock and interview sessions."""

from __future__ import annotations

import click

from quizforge.cli.params import FiniteFloatRange
from quizforge.errors import InputError


def _difficulty(text: str | None) -> frozenset[int] | None:
    """'2' or '1-2' or '1,3' → the levels; anything else is a one-line error."""
    if not text:
        return None
    levels: set[int] = set()
    for part in text.replace(" ", "").split(","):
        lo, dash, hi = part.partition("-")
        if not (lo.isdigit() and (not dash or hi.isdigit())):
            raise InputError(f"--difficulty {text!r}: use a level 1–3, a range like 1-2, or a list like 1,3")
        a, b = int(lo), int(hi) if dash else int(lo)
        if not 1 <= a <= b <= 3:
            raise InputError(f"--difficulty {text!r}: levels run from 1 to 3")
        levels.update(range(a, b + 1))
    return frozenset(levels)


def history_error(exc) -> str:
    """The library's message about an unusable history, with the option that picks another folder."""
    return f"{exc} (--data-dir PATH)" if getattr(exc, "another_folder", False) else str(exc)


def _resume(text: str | None) -> bool | str:
    """--resume → True (the last paused mock); --resume 3 → "3", checked against the paused mocks."""
    if text is None:
        return False
    return True if text == "last" else text


@click.command()
@click.option("--topic", metavar="TOPIC|TEMPLATE", help="Practise one topic (e.g. attention) or one template.")
@click.option("--difficulty", metavar="LEVELS", help="Difficulty 1–3: one level, a range (1-2) or a list (1,3).")
@click.option("--count", type=click.IntRange(1, 500), default=10, show_default=True,
              help="Questions in a drill (prompts in an interview).")
@click.option("--new-per-day", type=click.IntRange(0, 1000), default=None,
              help="Most templates seen for the first time per day (0: reviews only)  [default: 10, or the exam's pace]")
@click.option("--exam-date", metavar="YYYY-MM-DD|off",
              help="Plan toward this exam day (remembered; quiz stats shows it); off forgets it.")
@click.option("--target-retention", type=click.FloatRange(0.7, 0.99),
              help="Predicted recall wanted on exam day  [default: 0.9]")
@click.option("--mock", type=click.Choice(["gate"]), help="Sit a timed mock paper with GATE marking.")
@click.option("--questions", type=click.IntRange(1, 65), help="Questions in the mock  [default: 20]")
@click.option("--minutes", type=FiniteFloatRange(0.01, 600), help="Time for the mock  [default: GATE's pace]")
@click.option("--sections", type=click.Choice(["subject", "topic", "marks"]),
              help="The mock's sections: GATE's subject section, a tab per topic, or by marks (1-mark, 2-mark); "
                   "kept on resume  [default: subject]")
@click.option("--syllabus", type=click.Choice(["gate"]),
              help="Drill only templates that exercise GATE DA syllabus skills (see `quiz bank list`).")
@click.option("--interview", is_flag=True, help="Conceptual interview questions with follow-ups; rate yourself.")
@click.option("--resume", is_flag=False, flag_value="last", default=None, metavar="[N]",
              help="Continue a paused mock with its clock: the last one, or mock N (quiz stats lists them).")
@click.option("--browser", is_flag=True, help="Sit the mock in your browser, on GATE's exam screen (needs the web extra).")
@click.option("--keyboard", is_flag=True, help="With --browser: allow typing NAT answers (GATE allows only its keypad).")
@click.option("--name", envvar="QUIZFORGE_NAME", metavar="NAME",
              help="With --browser: the name on the candidate panel  [env: QUIZFORGE_NAME; default: Candidate]")
@click.option("--data-dir", type=click.Path(file_okay=False), help="Where history is kept  [env: QUIZFORGE_HOME]")
def practice(topic, difficulty, count, new_per_day, exam_date, target_retention, mock, questions, minutes, sections,
             syllabus, interview, resume, browser, keyboard, name, data_dir):
    """Practise: an adaptive drill (default), a GATE mock, or an interview.

    At the answer prompt: h hint, s skip, e explain, q quit.

    In a mock: n next, p previous, g N go to, m mark for review, x clear,
    l palette, submit, q pause (resume later).

    Answers can be piped on stdin, one per line, with the same keys.
    """
    from quizforge.tui.session import run_practice

    if syllabus and (mock or resume or interview or browser):
        raise click.UsageError("--syllabus belongs to the drill (no --mock, --resume or --interview)")
    if interview and (mock or resume):
        raise click.UsageError("--interview cannot be combined with --mock or --resume")
    if (questions or minutes) and not (mock or resume):
        raise click.UsageError("--questions and --minutes belong to --mock gate")
    if resume and (questions or minutes):
        raise click.UsageError("--resume continues a mock as it was set; drop --questions/--minutes")
    if sections and (resume or not mock):
        raise click.UsageError("--sections belongs to a new --mock gate (a resumed mock keeps its own)")
    from quizforge.practice.mock_sections import DEFAULT_SECTIONS

    sections = sections or DEFAULT_SECTIONS
    if browser and not (mock or resume):
        raise click.UsageError("--browser belongs to --mock gate or --resume")
    if keyboard and not browser:
        raise click.UsageError("--keyboard belongs to --browser")
    from click.core import ParameterSource

    name_typed = click.get_current_context().get_parameter_source("name") == ParameterSource.COMMANDLINE
    if name_typed and not browser:   # QUIZFORGE_NAME may stay set for the terminal's modes
        raise click.UsageError("--name belongs to --browser (the terminal mock shows no candidate panel)")
    if (exam_date or target_retention) and (interview or mock or resume):
        raise click.UsageError("--exam-date and --target-retention belong to the drill")
    from quizforge.practice.drill import NoTemplates
    from quizforge.practice.store import HistoryError

    if browser:
        from quizforge.web import missing_web_extra

        missing = missing_web_extra()
        if missing:
            raise InputError(missing)
        from quizforge.cli.interrupts import stop_cleanly_on_sigterm
        from quizforge.web.launch import browser_practice
        from quizforge.web.sitting import candidate_name

        stop_cleanly_on_sigterm()   # kill, or a closed session: the server stops and the mock is paused, as on Ctrl-C
        try:
            code = browser_practice(data_dir=data_dir, questions=questions, minutes=minutes, resume=_resume(resume),
                                    keyboard=keyboard, sections=sections, name=candidate_name(name))
        except HistoryError as exc:
            raise InputError(history_error(exc)) from None
        click.get_current_context().exit(code)
    mode = "mock" if (mock or resume) else "interview" if interview else "drill"
    try:
        code = run_practice(mode, data_dir=data_dir, topic=topic, difficulty=_difficulty(difficulty), count=count,
                            new_per_day=new_per_day, questions=questions, minutes=minutes, resume=_resume(resume),
                            sections=sections, exam_date=exam_date, target_retention=target_retention,
                            syllabus=syllabus)
    except NoTemplates as exc:
        levels = f" --difficulty {','.join(map(str, sorted(exc.difficulty)))}" if exc.difficulty else ""
        within = " --syllabus gate (beyond the GATE DA syllabus)" if exc.syllabus else ""
        raise InputError(f"no templates match --topic {exc.topic or '(any)'}{levels}{within}") from None
    except HistoryError as exc:
        raise InputError(history_error(exc)) from None
    click.get_current_context().exit(code)
