"""A submission file read and checked before any grading starts: pytest- and torch-free, so
that a file with nothing to run is refused at once."""

from __future__ import annotations

import ast
import os
import stat
from pathlib import Path

from quizforge.errors import InputError
from quizforge.grading.intake.class_folder import Refused, decode_source, hard_link_problem, read_capped
from quizforge.grading.judge.limits import SUBMISSION_BYTES, format_size


def read_submission(path: str | Path) -> bytes:
    """The bytes of the file at `path`, read from the descriptor that was checked. A symbolic link
    you name is followed (you see where it points); a hard link is refused, as in a class folder:
    nothing shows that it is solutions/softmax.py under another name. InputError for bad input."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK)  # a FIFO must not block
    except (FileNotFoundError, NotADirectoryError):
        raise InputError(f"{path}: no such file") from None
    except PermissionError:
        raise InputError(f"{path}: permission denied") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise InputError(f"{path}: not a file")
        if info.st_nlink > 1:
            raise InputError(hard_link_problem(str(path), info.st_nlink, "grade a copy of it"))
        if info.st_size > SUBMISSION_BYTES:
            raise InputError(f"{path} is {format_size(info.st_size)}; a submission may be at most "
                             f"{format_size(SUBMISSION_BYTES)}")
        data = read_capped(fd)
    except OSError as exc:
        raise InputError(f"{path}: cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > SUBMISSION_BYTES:  # it grew while being read
        raise InputError(f"{path} is over {format_size(SUBMISSION_BYTES)}, the most a submission may be")
    return data


def parse(source: bytes) -> tuple[ast.Module | None, str]:
    """The AST, or None and one line naming the problem and where."""
    try:
        return ast.parse(source, filename="submission.py"), ""
    except SyntaxError as exc:
        where = f" (line {exc.lineno})" if exc.lineno else ""
        return None, f"syntax error: {exc.msg}{where}"
    except ValueError as exc:  # null bytes, undecodable text
        return None, f"the submission cannot be read as Python source: {exc}"
    except (RecursionError, MemoryError):
        return None, "the submission is nested too deeply to be parsed"


def runnable_source(path: str | Path) -> bytes:
    """The submission's bytes, once they are Python worth starting a sandbox for: an empty file,
    a binary one or a syntax error is an InputError naming the file and the problem, in one line."""
    source = read_submission(path)
    if not source.strip():
        raise InputError(f"{path} is empty: nothing to grade")
    try:
        decode_source(source)
    except Refused as exc:
        raise InputError(f"{path} is {exc}") from None
    tree, problem = parse(source)
    if tree is None:
        raise InputError(f"{path}: {problem}; nothing was graded")
    return source
