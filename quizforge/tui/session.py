"""Starting a practice session: open the history, choose the reader, run the mode."""

from __future__ import annotations

import time

from quizforge.practice.paths import history_path
from quizforge.practice.store import History
from quizforge.render import Progress, console as make_console
from quizforge.tui.terminal import reader_for_stdin


def run_practice(mode: str, *, data_dir=None, topic=None, difficulty=None, count=10, new_per_day=10,
                 questions=None, minutes=None, resume=False, clock=time.time, reader=None, console=None,
                 sections=None, exam_date=None, target_retention=None, syllabus=None) -> int:
    """Run one session; returns the exit status (0, or 130 when interrupted by Ctrl-C).
    `resume`: True for the last paused mock, or a mock's number. `exam_date` ("YYYY-MM-DD"
    or "off") and `target_retention` are saved in the history; `new_per_day` None: the exam's pace."""
    console = console or make_console()
    history = drill = None
    try:
        # On a terminal a spinner names each step until the first question is drawn: a first run
        # compiles quizforge's bytecode, and a loaded machine takes seconds (issue 34 item 9).
        with Progress() as preparing:
            preparing.step("opening your history")
            history = History(history_path(data_dir))
            reader = reader or reader_for_stdin(clock)
            if mode == "drill":
                preparing.step("loading the question bank")
                from quizforge.practice.drill import Drill, DrillOptions
                from quizforge.tui.drill_screen import DrillScreen
                from quizforge.practice.exam import remember_exam

                exam = remember_exam(history, exam_date, target_retention, clock())
                if exam is None and new_per_day is None:
                    new_per_day = 10
                drill = Drill(history, DrillOptions(topic, difficulty, count, new_per_day, exam, syllabus), clock)
                preparing.step("choosing the first question")
                started = drill.start()
            elif mode == "mock":
                preparing.step("loading the mock")
                from quizforge.tui.mock_screen import run_mock
            elif mode == "interview":
                preparing.step("loading the interview questions")
                from quizforge.practice.interview import Interview
                from quizforge.tui.interview_screen import InterviewScreen

                interview = Interview(history, count=count, topic=topic, clock=clock)
            else:
                raise ValueError(mode)
        if mode == "drill":
            DrillScreen(drill, reader, console).run(started)   # draws the summary, or why nothing was asked
        elif mode == "mock":
            from quizforge.practice.mock_sections import DEFAULT_SECTIONS

            run_mock(history, reader, console, questions=questions, minutes=minutes, resume=resume, clock=clock,
                     sections=sections or DEFAULT_SECTIONS)
        else:
            InterviewScreen(reader, console).run(interview)
    except KeyboardInterrupt:
        resume = " · continue the mock with: quiz practice --resume" if mode == "mock" else ""
        console.print(f"\ninterrupted · everything answered so far is saved{resume}", style="dim")
        return 130
    finally:
        if drill is not None:
            drill.close()   # (safe twice) a Ctrl-C between the first question and its screen ends the session
        if history is not None:
            history.close()
    return 0
