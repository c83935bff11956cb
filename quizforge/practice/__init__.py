"""Practice sessions: drill (FSRS), GATE mock, interview; their SQLite history and statistics."""
