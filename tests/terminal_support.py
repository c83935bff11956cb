"""Running `quiz` as a user does: in a pseudo-terminal of a given width, or in a tmux pane
whose screen (scrollback included) is read back as the user saw it."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
import uuid
from pathlib import Path

QUIZ = [sys.executable, "-m", "quizforge"]


def screen_lines(drawn: str) -> str:
    """Roughly what a terminal shows for `drawn`: escapes removed, and on each line only what
    was written after its last carriage return (a spinner redraws its line that way)."""
    import re

    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn).replace("\r\n", "\n")
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


def in_pty(args: list[str], columns: int, home: Path, input_text: str = "", timeout: float = 120,
           rows: int = 40) -> tuple[int, str]:
    """Run `quiz ARGS` on a pty `columns` wide; type `input_text`; (exit status, everything drawn)."""
    pid, fd = pty.fork()
    if pid == 0:   # sized here, before anything runs that could ask for the size
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        # An explicit environment: readline, once imported, sets COLUMNS in the C one behind os.environ.
        env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        env.update(QUIZFORGE_HOME=str(home), NO_COLOR="1", TERM="xterm-256color")
        os.execve(sys.executable, [*QUIZ, *args], env)
    if input_text:
        os.write(fd, input_text.encode())
    chunks, deadline = [], time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    else:
        os.kill(pid, 9)
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.waitstatus_to_exitcode(status), b"".join(chunks).decode("utf-8", "replace")


class TmuxPane:
    """One detached tmux session on its own server, `columns` × `rows`, running a shell command;
    `screen()` is what the pane shows, scrollback first, lines as drawn (not joined)."""

    def __init__(self, command: str, columns: int, home: Path, rows: int = 30):
        if shutil.which("tmux") is None:
            raise RuntimeError("tmux is not installed")
        self.socket = f"quizforge-test-{uuid.uuid4().hex[:12]}"
        self.env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "COLUMNS", "LINES")}
        self.env.update(QUIZFORGE_HOME=str(home), NO_COLOR="1")
        self._tmux("-f", "/dev/null", "new-session", "-d", "-x", str(columns), "-y", str(rows), "-s", "quiz",
                   f"{command}; echo __EXIT $?; sleep 600")
        self._tmux("set-option", "-t", "quiz", "history-limit", "10000")

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, env=self.env,
                              timeout=20, check=True).stdout

    def screen(self) -> str:
        return self._tmux("capture-pane", "-p", "-S", "-", "-t", "quiz")

    def type(self, text: str) -> None:
        self._tmux("send-keys", "-t", "quiz", "-l", text)

    def wait_for(self, marker: str, timeout: float = 120) -> str:
        deadline = time.monotonic() + timeout
        text = self.screen()
        while marker not in text and time.monotonic() < deadline:
            time.sleep(0.2)
            text = self.screen()
        assert marker in text, text
        return text

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, env=self.env, timeout=20)

    def __enter__(self) -> "TmuxPane":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def quiz_command(*args: str) -> str:
    """A shell command line running `quiz ARGS` with this interpreter."""
    import shlex

    return " ".join(shlex.quote(part) for part in [*QUIZ, *args])


def whole_on_a_line(text: str, piece: str) -> bool:
    """`piece` appears on one line, not as part of a longer name or number."""
    # a comma after it ends a list ("train_bpe, encode") unless a digit follows (1,048 is one number)
    pattern = re.compile(r"(?<![\w,.+-])" + re.escape(piece) + r"(?![\w.+-]|,\d)")
    return any(pattern.search(line) for line in text.splitlines())


def assert_whole(text: str, pieces, width: int) -> None:
    assert "…" not in text, text
    missing = [p for p in pieces if not whole_on_a_line(text, p)]
    assert not missing, f"cut or split at {width} columns: {missing}\n{text}"
    assert max(len(line.rstrip()) for line in text.splitlines()) <= width, text
