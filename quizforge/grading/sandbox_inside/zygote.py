"""The zygote: a sandboxed process that has imported torch once and forks a fresh worker per
submission, so a batch pays for the import once per job instead of once per student.

    (started by launcher.py with role "zygote", in the same allow-list root and namespaces
     as a worker; its control socket on fd 3)

It never runs submission code itself. Each spawn request carries, as file descriptors, the
new worker's request, reply and output pipes, a status socket and a memfd holding the
submission. For each, the zygote forks a child that

1. enters namespaces of its own (user, PID, network, mount, IPC, UTS) below the zygote's;
2. mounts a fresh scratch folder holding only the submission, and fresh /tmp and /dev/shm,
   so nothing a previous submission wrote is there;
3. forks the init of its PID namespace, which mounts that namespace's /proc and forks the
   worker: limits, a new session, no capabilities, no new privileges, then the worker's
   request loop (worker.serve, which installs the seccomp filter: the zygote itself is not
   filtered, it must fork) on a pristine copy of the zygote's memory. Where the judge made
   the worker a memory cgroup, the init waits until the judge has moved it there;
4. sends the judge a pidfd of that init (killing it ends the worker's whole namespace), and
   the init reports how the worker ended.

Standard library and torch only, like the rest of this folder.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import sys
import time

from . import worker
from .isolation import (MS_BIND, MS_NODEV, MS_NOEXEC, MS_NOSUID, MS_PRIVATE, MS_REC, PR_SET_DUMPABLE, PR_SET_PDEATHSIG,
                        StepFailed, drop_privileges, enter_namespaces, mount, prctl, set_limits)

CONTROL_FD = 3
# The fds of one spawn request, in the order the judge sends them.
SPAWN_FDS = ("request", "reply", "output", "status", "source")


class _StatusSocket:
    """Status lines (JSON) and the init's pidfd, to the judge's end of the socket."""

    def __init__(self, sock: socket.socket):
        self.sock = sock

    def send(self, fds: list[int] = (), **event) -> None:
        try:
            socket.send_fds(self.sock, [(json.dumps(event) + "\n").encode()], list(fds))
        except OSError:
            pass  # the judge is gone


def main(config_json: str, started: float) -> None:
    """Say hello on the control socket, then spawn workers until it closes."""
    config = json.loads(config_json)
    torch_import_seconds = time.perf_counter() - started
    os.close(4)  # the launcher put the control socket on both protocol fds
    control = socket.socket(fileno=CONTROL_FD)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # spawned children are reaped by the kernel
    worker.prepare_guards()  # once, here, instead of in every worker it forks
    control.sendall((json.dumps({"event": "ready", "torch_import_seconds": torch_import_seconds}) + "\n").encode())
    while True:
        try:
            message, fds, _flags, _addr = socket.recv_fds(control, 65536, len(SPAWN_FDS))
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)  # the judge closed the socket: the batch is over
        if len(fds) != len(SPAWN_FDS):
            for fd in fds:
                os.close(fd)
            continue
        try:
            request = json.loads(message)
        except ValueError:
            request = None
        if isinstance(request, dict):
            _spawn(config, request, dict(zip(SPAWN_FDS, fds)), control)
        for fd in fds:
            os.close(fd)


def _spawn(config: dict, request: dict, fds: dict[str, int], control: socket.socket) -> None:
    if os.fork() != 0:
        return
    status = _StatusSocket(socket.socket(fileno=os.dup(fds["status"])))
    try:
        control.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the zygote goes: so does every worker it made
        _child(config, request, fds, status)
    except StepFailed as exc:
        status.send(event="error", step=exc.step, message=exc.message, hint=exc.hint)
    except BaseException as exc:  # noqa: BLE001 - reported, never printed into the output
        status.send(event="error", step="forking the worker", message=f"{type(exc).__name__}: {exc}", hint="")
    os._exit(111)


def _mount_points_below(folder: str) -> list[str]:
    """The outermost mount points strictly inside `folder`, from this process's mountinfo."""
    points = []
    with open("/proc/self/mountinfo", encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            raw = line.split()[4]
            point = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), raw)
            if point.startswith(folder + "/"):
                points.append(point)
    points.sort(key=len)
    outermost: list[str] = []
    for point in points:
        if not any(point == o or point.startswith(o + "/") for o in outermost):
            outermost.append(point)
    return outermost


def _fresh_tmpfs_keeping_binds(folder: str, size: str, inodes: int) -> None:
    """An empty tmpfs on `folder`, with the read-only binds the launcher put inside it (a venv
    under /tmp) bound again at the same places: otherwise the worker's lazy imports from
    that venv would find nothing."""
    kept = [(point, os.open(point, os.O_PATH | os.O_CLOEXEC)) for point in _mount_points_below(folder)]
    try:
        mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},nr_inodes={inodes},mode=1777")
        for point, fd in kept:
            if os.path.isdir(f"/proc/self/fd/{fd}"):
                os.makedirs(point, mode=0o755, exist_ok=True)
            else:  # a single-file module such as typing_extensions.py
                os.makedirs(os.path.dirname(point), mode=0o755, exist_ok=True)
                os.close(os.open(point, os.O_CREAT | os.O_WRONLY, 0o644))
            # A recursive bind copies each mount with its flags: read-only, nosuid, nodev stay.
            mount(f"/proc/self/fd/{fd}", point, None, MS_BIND | MS_REC)
    finally:
        for _point, fd in kept:
            os.close(fd)


def _child(config: dict, request: dict, fds: dict[str, int], status: _StatusSocket) -> None:
    """Namespaces and fresh folders of its own, then the init of its PID namespace."""
    with os.fdopen(os.dup(fds["source"]), "rb") as f:
        source = f.read()
    enter_namespaces(force_user=True)
    home = config["home"]
    try:
        mount(None, "/", None, MS_REC | MS_PRIVATE)
        uid = os.getuid()
        mount("tmpfs", home, "tmpfs", MS_NOSUID | MS_NODEV,
              f"size={config['scratch_size']},nr_inodes={config['tmpfs_inodes']},mode=0700,uid={uid},"
              f"gid={os.getgid()}")
        with open(os.path.join(home, "submission.py"), "wb") as f:
            f.write(source)
        for path in ("/tmp", "/dev/shm"):
            _fresh_tmpfs_keeping_binds(path, config["tmp_size"], config["tmpfs_inodes"])
    except OSError as exc:
        raise StepFailed("file-system isolation", f"cannot give the worker fresh folders ({exc})") from None
    init = os.fork()
    if init == 0:
        try:
            _init(config, request, fds, status)
        except StepFailed as exc:
            status.send(event="error", step=exc.step, message=exc.message, hint=exc.hint)
        except BaseException as exc:  # noqa: BLE001
            status.send(event="error", step="starting the worker", message=f"{type(exc).__name__}: {exc}", hint="")
        os._exit(111)
    pidfd = os.pidfd_open(init)
    status.send(fds=[pidfd], event="init")
    os.close(pidfd)
    for fd in fds.values():
        os.close(fd)
    while True:
        try:
            pid, _ = os.waitpid(init, 0)
        except ChildProcessError:
            break
        if pid == init:
            break
    os._exit(0)


def _init(config: dict, request: dict, fds: dict[str, int], status: _StatusSocket) -> None:
    """Pid 1 of the worker's namespace: its /proc, the worker, then how it ended."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    prctl(PR_SET_DUMPABLE, 0)
    try:
        mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError as exc:
        raise StepFailed("file-system isolation", f"cannot mount the worker's /proc ({exc.strerror})") from None
    status.send(event="sandbox", mode="isolated", forked=True,
                namespaces=["user", "pid", "net", "mnt", "ipc", "uts"], uid=os.getuid(),
                limits={"memory_bytes": request["memory_bytes"], "processes": config["nproc"],
                        "file_bytes": 64 * 2**20, "open_files": 1024, "scratch": config["scratch_size"],
                        "tmp": config["tmp_size"]})
    if request.get("cgroup") and status.sock.recv(1) != b"g":
        os._exit(0)  # the judge moves this process into the worker's memory cgroup, then says go
    child = os.fork()
    if child == 0:
        try:
            _worker(config, request, fds)
        except StepFailed as exc:
            status.send(event="error", step=exc.step, message=exc.message, hint=exc.hint)
        except BaseException as exc:  # noqa: BLE001
            status.send(event="error", step="starting the worker", message=f"{type(exc).__name__}: {exc}", hint="")
        os._exit(127)
    for name in ("request", "reply", "output", "source"):
        os.close(fds[name])
    while True:
        try:
            pid, wait_status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        if pid == child:
            break
    if os.WIFSIGNALED(wait_status):
        status.send(event="signal", signal=os.WTERMSIG(wait_status))
    else:
        status.send(event="exit", code=os.WEXITSTATUS(wait_status))
    os._exit(0)


def _worker(config: dict, request: dict, fds: dict[str, int]) -> None:
    """Limits, fds, no privileges, then the request loop on this pristine copy of the zygote."""
    os.setsid()
    set_limits({"memory_bytes": request["memory_bytes"]}, config["nproc"])
    null = os.open("/dev/null", os.O_RDONLY)
    os.dup2(null, 0)
    os.dup2(fds["output"], 1)
    os.dup2(fds["output"], 2)
    os.dup2(fds["request"], worker.REQUEST_FD)
    os.dup2(fds["reply"], worker.REPLY_FD)
    os.closerange(worker.REPLY_FD + 1, 65536)  # the status socket and the zygote's control socket too
    home = config["home"]
    os.chdir(home)
    os.environ.update(HOME=home, TMPDIR=home)
    drop_privileges(None)
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    sys.stdout = open(1, "w", buffering=1, closefd=False, encoding="utf-8", errors="replace")
    sys.stderr = open(2, "w", buffering=1, closefd=False, encoding="utf-8", errors="replace")
    worker.serve(f"{home}/submission.py", request.get("rules", {}), 0.0)
