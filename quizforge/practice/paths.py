"""Where a learner's history lives: --data-dir, then $QUIZFORGE_HOME, then the platform's user data dir.

The history holds every answer, and the key of any question is one `quiz explain` away, so it
is the learner's alone: the default folder is made 700, every history file in the folder 600,
and an older install's looser modes are tightened when a command starts (said once, on stderr:
the next start finds nothing to tighten). A folder named with --data-dir or QUIZFORGE_HOME that
already exists keeps its mode (it may be the current directory); only the files are tightened.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

from quizforge.errors import InputError

HISTORY_FILE = "history.db"
PRIVATE_FOLDER = 0o700
PRIVATE_FILE = 0o600


def _history_files(folder: Path) -> list[Path]:
    """history.db, its WAL and shared-memory files, and the copies set aside beside it."""
    return [p for p in folder.glob(f"{HISTORY_FILE}*") if p.is_file() and not p.is_symlink()]


def tighten(folder: Path, *, folder_too: bool) -> list[str]:
    """Take group and other access off the history files (and the folder); what was changed."""
    changed = []
    targets = ([(folder, PRIVATE_FOLDER)] if folder_too else []) + [(p, PRIVATE_FILE) for p in _history_files(folder)]
    for path, private in targets:
        try:
            info = path.stat()
            if info.st_uid != os.getuid() or not stat.S_IMODE(info.st_mode) & 0o077:
                continue
            os.chmod(path, stat.S_IMODE(info.st_mode) & private)
        except OSError:
            continue   # not ours to change: the next open reports what matters
        changed.append(f"{path.name} {stat.S_IMODE(info.st_mode):o}→{stat.S_IMODE(info.st_mode) & private:o}")
    return changed


def data_dir(option: str | os.PathLike | None = None) -> Path:
    """The folder that holds history.db, created private if missing."""
    chosen = option or os.environ.get("QUIZFORGE_HOME")
    if chosen:
        path = Path(chosen).expanduser()
    else:
        from platformdirs import user_data_dir

        path = Path(user_data_dir("quizforge", appauthor=False))
    if path.exists() and not path.is_dir():
        raise InputError(f"data directory {path} is a file, not a folder")
    existed = path.exists()
    try:
        path.mkdir(parents=True, exist_ok=True, mode=PRIVATE_FOLDER)
    except OSError as exc:
        raise InputError(f"cannot create data directory {path}: {exc.strerror or exc}") from None
    changed = tighten(path, folder_too=not (chosen and existed))
    if changed:
        print(f"quizforge: made the history private to you in {path} ({', '.join(changed)})", file=sys.stderr)
    return path


def history_path(option: str | os.PathLike | None = None) -> Path:
    return data_dir(option) / HISTORY_FILE
