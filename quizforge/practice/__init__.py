"""Practice engines: drill (FSRS scheduling), GATE mock (paper, marking, percentages), interview;
their SQLite history and statistics. They take learner actions and return state and events, and
draw nothing (no rich, no prompt_toolkit): the terminal's screens are `quizforge.tui`, the
browser's `quizforge.web`."""
