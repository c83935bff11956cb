"""Reading what students handed in: their names, links, sizes and bytes are hostile input.

Both `quiz grade --batch` (batch/driver.py) and Gradescope's run_autograder (exports/gradescope_autograder.py) read
submissions only through `read_submission_file`: every folder on the way and the file
itself are opened with O_NOFOLLOW, so a link to the reference, to solutions/ or to
another student is refused rather than followed; the file must be a regular one (a FIFO
would hang the reader) with a single name (a hard link looks like any file, but may be
solutions/softmax.py under another name), of at most SUBMISSION_BYTES, and Python source
text. The bytes are read from that same descriptor, once: what is graded, hashed and
compared for similarity is what was checked. A refusal is a `Refused` with the reason, for
problems.csv.
"""

from __future__ import annotations

import errno
import hashlib
import io
import os
import re
import stat
import tokenize
from pathlib import Path

from quizforge.grading.intake.text_safety import visible_name
from quizforge.grading.judge.limits import SUBMISSION_BYTES, format_size


def read_capped(fd: int) -> bytes:
    """What the descriptor holds, but never more than one byte over SUBMISSION_BYTES (so a file
    that grew after its size was checked shows as too large, without reading all of it)."""
    chunks, size = [], 0
    while size <= SUBMISSION_BYTES:
        chunk = os.read(fd, min(1 << 20, SUBMISSION_BYTES + 1 - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


# A student id used as it is for its result file; any other gets a readable prefix and a hash.
_PLAIN_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
PREFIX_CHARS = 40


class Refused(Exception):
    """A submission that is not read or graded; the message says why, in one line."""


def name_problem(name: str) -> str:
    """Why a file or folder name cannot be a student id, or '' when it can."""
    if any(0xDC80 <= ord(c) <= 0xDCFF for c in name):
        return "its name is not valid UTF-8: rename it"
    if not name.isprintable():
        return "its name holds control or bidi-override characters: rename it"
    return ""


def result_file_name(student: str) -> str:
    """A short, safe file name for a student's results: the id itself when it is plain ASCII
    and short, else a readable prefix and a hash of the whole id. The '~' never occurs in a
    plain id, so the two kinds cannot collide."""
    if _PLAIN_FILE_NAME.fullmatch(student):
        return student
    prefix = re.sub(r"[^A-Za-z0-9._-]+", "_", student)[:PREFIX_CHARS].strip("._-") or "student"
    digest = hashlib.sha256(os.fsencode(student)).hexdigest()[:16]
    return f"{prefix}~{digest}"


def decode_source(data: bytes) -> str:
    """The text of Python source bytes (a coding cookie is honoured); Refused when it is not text."""
    if b"\0" in data:
        raise Refused("a binary file (it holds NUL bytes), not Python source")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        return data.decode(encoding)
    except (SyntaxError, LookupError, UnicodeDecodeError):
        raise Refused("not text in its declared encoding (UTF-8 unless it says otherwise): "
                      "a binary file, not Python source") from None


def hard_link_problem(shown: str, links: int, fix: str = "hand in a copy") -> str:
    return (f"{shown} is a hard link (one file with {links} names): refused, since it may be a link to a file "
            f"the student does not own; {fix}")


def _open_no_follow(name: str, dir_fd: int | None, directory: bool) -> int:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY | os.O_NONBLOCK
    try:
        return os.open(name, flags | (os.O_DIRECTORY if directory else 0), dir_fd=dir_fd)
    except OSError as exc:
        shown = visible_name(name)
        if exc.errno == errno.ELOOP or (directory and exc.errno == errno.ENOTDIR and _is_link(name, dir_fd)):
            raise Refused(f"{shown} is a symbolic link: hand in the file itself") from None
        raise Refused(f"{shown} cannot be read ({exc.strerror})") from None


def _is_link(name: str, dir_fd: int | None) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        return False


def read_submission_file(top: Path, parts: tuple[str, ...]) -> bytes:
    """The bytes of top/parts[0]/.../parts[-1], where `top` (the instructor's own folder) is
    trusted and nothing below it is: no component may be a link, the file must be regular and
    small, and it must be source text. Raises Refused."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for part in parts[:-1]:
            inner = _open_no_follow(part, fd, directory=True)
            os.close(fd)
            fd = inner
        file_fd = _open_no_follow(parts[-1], fd, directory=False)
    finally:
        os.close(fd)
    try:
        info = os.fstat(file_fd)
        if not stat.S_ISREG(info.st_mode):
            raise Refused(f"{visible_name(parts[-1])} is not a regular file")
        if info.st_nlink > 1:
            raise Refused(hard_link_problem("/".join(visible_name(p) for p in parts), info.st_nlink))
        if info.st_size > SUBMISSION_BYTES:
            raise Refused(f"the file is {format_size(info.st_size)}; a submission may be at most "
                          f"{format_size(SUBMISSION_BYTES)}")
        data = read_capped(file_fd)
        if len(data) > SUBMISSION_BYTES:  # it grew while being read
            raise Refused(f"the file is over {format_size(SUBMISSION_BYTES)}, the most a submission may be")
    finally:
        os.close(file_fd)
    decode_source(data)
    return data
