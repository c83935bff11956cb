"""Where a learner's history lives: --data-dir, then $QUIZFORGE_HOME, then the platform's user data dir."""

from __future__ import annotations

import os
from pathlib import Path

from quizforge.errors import InputError

HISTORY_FILE = "history.db"


def data_dir(option: str | os.PathLike | None = None) -> Path:
    """The folder that holds history.db, created if missing."""
    chosen = option or os.environ.get("QUIZFORGE_HOME")
    if chosen:
        path = Path(chosen).expanduser()
    else:
        from platformdirs import user_data_dir

        path = Path(user_data_dir("quizforge", appauthor=False))
    if path.exists() and not path.is_dir():
        raise InputError(f"data directory {path} is a file, not a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create data directory {path}: {exc.strerror or exc}") from None
    return path


def history_path(option: str | os.PathLike | None = None) -> Path:
    return data_dir(option) / HISTORY_FILE
