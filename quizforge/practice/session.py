"""Starting a practice session: open the history, choose the reader, run the mode."""

from __future__ import annotations

import time

from quizforge.practice.paths import history_path
from quizforge.practice.store import History
from quizforge.practice.terminal import reader_for_stdin
from quizforge.render import console as make_console


def run_practice(mode: str, *, data_dir=None, topic=None, difficulty=None, count=10, new_per_day=10,
                 questions=None, minutes=None, resume=False, clock=time.time, reader=None, console=None,
                 sections="marks", syllabus=None) -> int:
    """Run one session; returns the exit status (0, or 130 when interrupted by Ctrl-C).
    `resume`: True for the last paused mock, or a mock's number."""
    console = console or make_console()
    history = History(history_path(data_dir))
    reader = reader or reader_for_stdin(clock)
    try:
        if mode == "drill":
            from quizforge.practice.drill import Drill, DrillOptions
            from quizforge.practice.drill_screen import DrillScreen

            drill = Drill(history, DrillOptions(topic, difficulty, count, new_per_day, syllabus), clock)
            DrillScreen(drill, reader, console).run()   # draws the summary, or why nothing was asked
        elif mode == "mock":
            from quizforge.practice.mock_screen import run_mock

            run_mock(history, reader, console, questions=questions, minutes=minutes, resume=resume, clock=clock,
                     sections=sections)
        elif mode == "interview":
            from quizforge.practice.interview import Interview
            from quizforge.practice.interview_screen import InterviewScreen

            interview = Interview(history, count=count, topic=topic, clock=clock)
            InterviewScreen(reader, console).run(interview)
        else:
            raise ValueError(mode)
    except KeyboardInterrupt:
        resume = " · continue the mock with: quiz practice --resume" if mode == "mock" else ""
        console.print(f"\ninterrupted · everything answered so far is saved{resume}", style="dim")
        return 130
    finally:
        history.close()
    return 0
