"""The trusted process that builds the sandbox around the worker, and becomes its init.

    python -I -S path/to/launcher.py CONFIG_JSON

Started by the judge (sandbox.py) before any untrusted code runs; standard library
only, so it starts without site-packages. It

1. enters new PID, network, mount and IPC namespaces: directly when root, otherwise
   inside a new user namespace; without them it carries on as a child subreaper;
2. forks the init of the new PID namespace, which makes the file system read-only,
   covers the hidden directories, /tmp, /var/tmp and /dev/shm with fresh tmpfs,
   gives the worker a scratch tmpfs holding only a copy of the submission, and
   mounts a /proc that shows the sandbox alone;
3. forks the worker: resource limits, a new session, no capabilities, no new
   privileges, an unprivileged uid when root, and then `python -I` on worker.py;
4. reaps everything, reports how the worker ended on the status fd, and exits;
   when the init of a PID namespace exits the kernel kills whatever is left in it.

Status lines (JSON) on the status fd, which the worker never holds:
  {"event": "sandbox", ...what was achieved...}   {"event": "init", "pid": N}
  {"event": "exit", "code": N} | {"event": "signal", "signal": N}   {"event": "error", "message": "..."}
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys
import time

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME, MS_STRICTATIME = 16384, 1 << 18, 1 << 21, 1 << 24
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_DROP = 1, 4, 24
PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 28, 38, 36
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
SECURE_NOROOT = 0x0F  # SECBIT_NOROOT and SECBIT_NO_SETUID_FIXUP, each with its lock bit
WORKER_REQUEST_FD, WORKER_REPLY_FD = 3, 4
TMPFS_SIZE = "16m"
SCRATCH_SIZE = "64m"
_OPTION_FLAGS = {"nosuid": MS_NOSUID, "nodev": MS_NODEV, "noexec": MS_NOEXEC, "noatime": MS_NOATIME,
                 "nodiratime": MS_NODIRATIME, "relatime": MS_RELATIME, "strictatime": MS_STRICTATIME}

_libc = ctypes.CDLL(None, use_errno=True)


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = (lambda s: None if s is None else s.encode())
    _check(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def _prctl(option: int, arg: int = 0) -> int:
    return _libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


class Status:
    def __init__(self, fd: int):
        self.fd = fd

    def send(self, **event) -> None:
        try:
            os.write(self.fd, (json.dumps(event) + "\n").encode())
        except OSError:
            pass  # the judge is gone; nothing to tell


# --- namespaces ----------------------------------------------------------------

def enter_namespaces(notes: list[str]) -> dict:
    """Unshare what this process is allowed to. Returns what was achieved."""
    flags = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS
    uid, gid = os.getuid(), os.getgid()
    if uid == 0 and _libc.unshare(flags) == 0:
        return {"namespaces": ["pid", "net", "mnt", "ipc", "uts"], "user_namespace": False}
    if _libc.unshare(flags | CLONE_NEWUSER) == 0:
        # Only our own ids can be mapped without a setuid helper; ns-root is us outside.
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"0 {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"0 {gid} 1")
        return {"namespaces": ["user", "pid", "net", "mnt", "ipc", "uts"], "user_namespace": True}
    notes.append(f"no namespaces: unshare failed ({os.strerror(ctypes.get_errno())})")
    return {"namespaces": [], "user_namespace": False}


# --- file system (inside the new mount namespace) --------------------------------

def _mount_points() -> list[tuple[str, int]]:
    points = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point = fields[4].encode().decode("unicode_escape")
            flags = 0
            for option in fields[5].split(","):
                flags |= _OPTION_FLAGS.get(option, 0)
            points.append((point, flags))
    return points


def open_up(paths: list[str]) -> list[str]:
    """Make each path reachable for an unprivileged uid (the interpreter may live in /root):
    a directory others cannot enter is covered by a tmpfs holding only the entries on the
    way to those paths, each bound back from the original. Returns the directories covered."""
    covered = []
    for _ in range(8):  # one level of nesting per round, outermost first
        blocked: dict[str, set[str]] = {}
        for path in paths:
            current = "/"
            for name in path.strip("/").split("/"):
                if not os.stat(current).st_mode & 0o001:
                    blocked.setdefault(current, set()).add(name)
                    break
                current = os.path.join(current, name)
        if not blocked:
            break
        for directory, names in blocked.items():
            keep = {n: os.open(os.path.join(directory, n), os.O_PATH) for n in names
                    if os.path.lexists(os.path.join(directory, n))}
            _mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, "size=16k,mode=0755")
            for name, fd in keep.items():
                target = os.path.join(directory, name)
                if os.path.isdir(f"/proc/self/fd/{fd}"):
                    os.mkdir(target)
                else:
                    open(target, "w").close()
                _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
                os.close(fd)
            covered.append(directory)
    return covered


def isolate_filesystem(cfg: dict, unprivileged: bool, notes: list[str]) -> tuple[bytes, list[str]]:
    """Read-only everything, hidden folders covered, fresh tmpfs where writing is allowed.
    Returns the submission's source (read before /tmp is covered) and the hidden folders."""
    with open(os.path.join(cfg["scratch"], cfg["submission_name"]), "rb") as f:
        source = f.read()
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    if unprivileged:
        try:
            open_up(cfg["needed_paths"])
        except OSError as exc:
            notes.append(f"could not open the interpreter's folders to an unprivileged uid: {exc}")
    failed = 0
    for point, flags in _mount_points():
        if point == "/proc" or point.startswith("/proc/"):
            continue
        try:
            _mount(None, point, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)
        except OSError:
            failed += 1
    if failed:
        notes.append(f"{failed} mounts could not be made read-only")
    hidden = []
    for path in cfg["hide"]:
        if os.path.isdir(path):
            try:
                _mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000")
                hidden.append(path)
            except OSError as exc:
                notes.append(f"could not hide {path}: {exc.strerror}")
    for path in ("/tmp", "/var/tmp", "/dev/shm"):
        if os.path.isdir(path):
            cover_keeping(path, cfg["needed_paths"])
    return source, hidden


def cover_keeping(directory: str, needed: list[str]) -> None:
    """A fresh, writable tmpfs over `directory`, with the needed entries under it (a venv
    or a clone in /tmp) bound back read-only, hidden folders inside them still covered."""
    prefix = directory.rstrip("/") + "/"
    names = sorted({p[len(prefix):].split("/", 1)[0] for p in needed if p.startswith(prefix)})
    keep = {n: os.open(prefix + n, os.O_PATH) for n in names if os.path.lexists(prefix + n)}
    _mount("tmpfs", directory, "tmpfs", MS_NOSUID | MS_NODEV, f"size={TMPFS_SIZE},mode=1777")
    for name, fd in keep.items():
        target = prefix + name
        if os.path.isdir(f"/proc/self/fd/{fd}"):
            os.mkdir(target)
        else:
            open(target, "w").close()
        # Recursive, so the covers over hidden folders inside come along; then read-only.
        _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
        try:
            _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY)
        except OSError:
            pass  # in a user namespace, locked flags refuse this; the copy is read-only already
        os.close(fd)


def make_scratch(cfg: dict, source: bytes, owner: int) -> None:
    """The worker's only writable folder, a size-limited tmpfs at the scratch path."""
    scratch = cfg["scratch"]
    os.makedirs(scratch, exist_ok=True)
    _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, f"size={SCRATCH_SIZE},mode=0700,uid={owner},gid={owner}")
    target = os.path.join(scratch, cfg["submission_name"])
    with open(target, "wb") as f:
        f.write(source)
    os.chown(target, owner, owner)


# --- privileges ------------------------------------------------------------------

def can_run_as(uid: int, paths: list[str]) -> str | None:
    """Whether `uid` could start the worker: None if so, else the first path it cannot use."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for i, path in enumerate(paths):
                if not os.access(path, os.R_OK | os.X_OK):
                    os._exit(10 + i)
            os._exit(0)
        except BaseException:  # noqa: BLE001 - any failure means "no"
            os._exit(9)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code == 0:
        return None
    return paths[code - 10] if 10 <= code < 10 + len(paths) else "setuid"


def _drop_bounding_set() -> None:
    for cap in range(64):
        if _prctl(PR_CAPBSET_DROP, cap) != 0:
            break


def drop_capabilities() -> None:
    """No capabilities now or after exec, even as (namespace) root: for a worker that keeps uid 0."""
    _prctl(PR_SET_SECUREBITS, SECURE_NOROOT)
    _drop_bounding_set()
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Data(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                    ("inheritable", ctypes.c_uint32)]

    header, data = Header(0x20080522, 0), (Data * 2)()
    _libc.capset(ctypes.byref(header), data)


def set_limits(cfg: dict, own_uid: bool) -> None:
    def cap(which: int, value: int) -> None:
        soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError):
            pass

    cap(resource.RLIMIT_DATA, cfg["memory_bytes"])
    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_FSIZE, 64 * 2**20)
    cap(resource.RLIMIT_NOFILE, 1024)
    if own_uid:  # counts every process of the uid, so only where the uid is the sandbox's own
        cap(resource.RLIMIT_NPROC, 1024)


def exec_worker(cfg: dict, drop_to: int | None) -> None:
    """In the forked worker: limits, fds, privileges, then exec. Never returns."""
    os.setsid()
    set_limits(cfg, own_uid=drop_to is not None)
    # The protocol pipes on fixed fds; nothing else survives exec but stdio.
    request, reply = os.dup(cfg["request_fd"]), os.dup(cfg["reply_fd"])
    os.dup2(request, WORKER_REQUEST_FD)
    os.dup2(reply, WORKER_REPLY_FD)
    for fd in (WORKER_REQUEST_FD, WORKER_REPLY_FD):
        os.set_inheritable(fd, True)  # dup2 onto the same number keeps close-on-exec
    os.closerange(WORKER_REPLY_FD + 1, 65536)
    os.chdir(cfg["scratch"])
    if drop_to is not None:
        _drop_bounding_set()
        os.setgroups([])
        os.setresgid(drop_to, drop_to, drop_to)
        os.setresuid(drop_to, drop_to, drop_to)  # from uid 0 to another: every capability is gone
    else:
        drop_capabilities()
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    env = dict(cfg["env"], HOME=cfg["scratch"], TMPDIR=cfg["scratch"])
    os.execve(cfg["python"], [cfg["python"], *cfg["worker_args"]], env)


# --- the sandbox's init ------------------------------------------------------------

def run_init(cfg: dict, status: Status, achieved: dict, notes: list[str]) -> None:
    """Prepare, fork the worker, reap until it ends, report. Returns when everything is done."""
    in_namespaces = bool(achieved["namespaces"])
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as a PID-namespace init, ignore what the sandbox sends
    _prctl(PR_SET_DUMPABLE, 0)  # the worker may not read this process's memory or fds
    root = os.getuid() == 0 and not achieved["user_namespace"]
    wanted = cfg.get("uid") if root else None
    hidden: list[str] = []
    if in_namespaces:
        source, hidden = isolate_filesystem(cfg, wanted is not None, notes)
    drop_to = None
    if wanted is not None:
        blocked = can_run_as(wanted, cfg["needed_paths"])
        if blocked is None:
            drop_to = wanted
        else:
            notes.append(f"the worker keeps uid 0 without capabilities: uid {wanted} cannot use {blocked}")
    if in_namespaces:
        make_scratch(cfg, source, drop_to if drop_to is not None else 0)
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    elif drop_to is not None:
        os.chown(cfg["scratch"], drop_to, drop_to)
        os.chown(os.path.join(cfg["scratch"], cfg["submission_name"]), drop_to, drop_to)
    status.send(event="sandbox", uid=drop_to, hidden=hidden, notes=notes, **achieved)

    worker = os.fork()
    if worker == 0:
        try:
            exec_worker(cfg, drop_to)
        finally:
            os._exit(127)
    for fd in (cfg["request_fd"], cfg["reply_fd"]):
        os.close(fd)
    while True:
        try:
            pid, wait_status = os.waitpid(-1, 0)
        except ChildProcessError:
            return
        if pid == worker:
            break
    if os.WIFSIGNALED(wait_status):
        status.send(event="signal", signal=os.WTERMSIG(wait_status))
    else:
        status.send(event="exit", code=os.WEXITSTATUS(wait_status))
    if not in_namespaces:
        kill_descendants()


def kill_descendants() -> None:
    """Without a PID namespace: this process is a subreaper, so every orphan is still ours."""
    me = os.getpid()
    for _ in range(50):
        children = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, IndexError, ValueError):
                    continue
                if ppid == me:
                    children.append(int(entry))
        if not children:
            return
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for _pid in children:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
        time.sleep(0.01)


def main() -> None:
    cfg = json.loads(sys.argv[1])
    status = Status(cfg["status_fd"])
    os.set_inheritable(cfg["status_fd"], False)
    notes: list[str] = []
    try:
        achieved = enter_namespaces(notes) if cfg["namespaces"] else {"namespaces": [], "user_namespace": False}
        if not achieved["namespaces"]:
            _prctl(PR_SET_CHILD_SUBREAPER, 1)
            run_init(cfg, status, achieved, notes)
            os._exit(0)
        init = os.fork()
        if init == 0:
            try:
                _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the judge kills the launcher: the sandbox goes
                run_init(cfg, status, achieved, notes)
                os._exit(0)
            except BaseException as exc:  # noqa: BLE001 - reported, never printed into the output
                status.send(event="error", message=f"{type(exc).__name__}: {exc}")
                os._exit(111)
        status.send(event="init", pid=init)
        for fd in (cfg["request_fd"], cfg["reply_fd"]):
            os.close(fd)
        os.waitpid(init, 0)
        os._exit(0)
    except BaseException as exc:  # noqa: BLE001
        status.send(event="error", message=f"{type(exc).__name__}: {exc}")
        os._exit(111)


if __name__ == "__main__":
    main()
