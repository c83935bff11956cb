"""The terminal's practice screens: what reads the learner's keys and draws a session.

The engines in `quizforge.practice` take learner actions and return state and events; the
modules here read lines from the terminal and draw those events with rich and prompt_toolkit,
one concern a module:

- `session`: starting a session in the terminal: the history, the reader, the mode's screen;
- `terminal`: reading the learner's lines (prompt_toolkit on a terminal, plain lines when piped);
- `drill_screen`, `mock_screen`, `interview_screen`: each mode's screen over its engine;
- `matrix_entry`: typing a matrix answer one row per line;
- `view`, `reports`, `mock_report`, `charts`: the keys line, end-of-session summaries, the
  mock's report and the charts of `quiz stats`.

A package of its own, not a part of `quizforge.render`: render draws static things (questions,
verdicts, matrices, tables, calculator reports) for any command and is becoming the one text
pipeline (terminal, typst, HTML side by side); the screens here are interactive loops over an
engine, drawn with render's pieces. The browser's screens are `quizforge.web`.
"""
