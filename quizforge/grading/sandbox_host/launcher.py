"""The trusted process that builds the sandbox around the worker, and becomes its init.

    python -I -S path/to/launcher.py CONFIG_JSON

Started by the judge (sandbox.py) before any untrusted code runs; standard library
only, so it starts without site-packages. Every step either holds or the launcher
reports `{"event": "error", "step": ..., "message": ..., "hint": ...}` and exits:
grading never goes on with less isolation than it says.

Isolated mode (the default):
1. dies with the judge (PR_SET_PDEATHSIG, then a check that the judge is still its parent);
2. enters new PID, network, mount, IPC and UTS namespaces: directly as root, otherwise
   inside a new user namespace that maps only the caller's own ids;
3. forks the init of the new PID namespace, which builds a new root file system out of
   an allow-list: a read-only tmpfs holding the interpreter, its standard library, the
   system libraries, torch and its dependencies (each bound read-only at its own path,
   site-packages folders showing those packages alone), the worker's own modules, a
   private /proc, /dev's harmless devices, and a size-limited scratch tmpfs holding
   the submission. It pivots into it and detaches the old root: the repository,
   quizforge's installed files, home folders and every other file are not there;
4. forks the worker: limits, a new session, an unprivileged uid (root mode) or the
   caller's own (user namespace), no capabilities, no new privileges, then exec;
5. reaps everything and reports how the worker ended. When the init of a PID namespace
   exits, the kernel kills whatever is left in it.

Unsafe mode (`quiz grade --unsafe-no-sandbox`): no namespaces and no file-system
isolation; the worker still runs `python -I -S` with only the worker's modules and
torch's packages on its path, under the same limits, below this process as a child
subreaper that kills everything left when the worker ends or the judge dies.

Status lines (JSON) on the status fd, which the worker never holds:
  {"event": "sandbox", ...what holds...}   {"event": "init", "pid": N}
  {"event": "exit", "code": N} | {"event": "signal", "signal": N}
  {"event": "error", "step": "...", "message": "...", "hint": "..."}
"""

from __future__ import annotations

import ctypes
import json
import os
import signal
import sys
import time

# -I leaves it out; the isolation steps are the inside package's, shared with the zygote
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sandbox_inside"))
from isolation import (MNT_DETACH, MS_BIND, MS_NODEV, MS_NOEXEC, MS_NOSUID, MS_PRIVATE,  # noqa: E402
                       MS_RDONLY, MS_REC, MS_REMOUNT, PR_SET_CHILD_SUBREAPER, PR_SET_DUMPABLE,
                       PR_SET_PDEATHSIG, Status, StepFailed, drop_privileges, enter_namespaces, errno_text,
                       follow_parent, libc, make_read_only, mount, prctl, set_limits)

SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "arm64": 41}
WORKER_REQUEST_FD, WORKER_REPLY_FD = 3, 4
ROOT_SIZE, TMP_SIZE, SCRATCH_SIZE = "8m", "16m", "64m"
# Files, folders, links and xattrs on a tmpfs are kernel memory that size= does not count; left
# to the default (half the machine's pages), empty files held 932 MiB in 20 s, xattrs 2 GiB.
TMPFS_INODES = 1024
# Where the worker finds things inside the sandbox (the worker's config uses the same names).
SANDBOX_HOME = "/quizforge-sandbox"
DEVICES = ("null", "zero", "full", "random", "urandom")
LIB_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
NPROC = 256
ROOT_CANDIDATES = ("/mnt", "/tmp", "/run", "/var/tmp", "/media", "/srv", "/opt", "/home", "/boot")

# --- the new root (inside the new mount namespace, as the PID namespace's init) ----------

def _mountpoint(target: str, like: str) -> None:
    """An empty file or folder at `target` (in the new root's tmpfs) for `like` to be bound onto."""
    if os.path.isdir(like):
        os.makedirs(target, mode=0o755, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), mode=0o755, exist_ok=True)
        if not os.path.lexists(target):
            open(target, "w").close()


def _bind(source: str, root: str) -> str:
    """Bind `source` read-only at the same path under `root`; returns the target."""
    target = root + source
    _mountpoint(target, source)
    mount(source, target, None, MS_BIND | MS_REC)
    return target


def _under_new_root(root: str) -> list[str]:
    """The mount points of the new root: its tmpfs and every mount made on top of it, outermost
    first. Mounts the host already had below `root` are shadowed by the tmpfs and left out."""
    entries = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            entries.append((fields[0], fields[1], fields[4].encode().decode("unicode_escape")))
    tops = [mount_id for mount_id, _, point in entries if point == root]
    if not tops:
        return []
    ours, points = {tops[-1]}, [root]
    for mount_id, parent, point in entries:
        if parent in ours and mount_id not in ours:
            ours.add(mount_id)
            points.append(point)
    return points


def build_root(cfg: dict, source: bytes, worker_files: dict[str, bytes], owner: int) -> list[str]:
    """Assemble the allow-list root and pivot into it. Returns what the worker can see."""
    step = "file-system isolation"
    try:
        mount(None, "/", None, MS_REC | MS_PRIVATE)
    except OSError as exc:
        raise StepFailed(step, f"cannot make mounts private ({exc.strerror})") from None
    # The new root is a tmpfs mounted on some existing folder: one that holds none of what is
    # bound into it (a venv in /tmp would vanish under a tmpfs on /tmp).
    sources = [*cfg["binds"], *cfg["packages"], *map(os.path.dirname, cfg["worker_files"].values()),
               "/dev", "/etc", "/sys"]
    root = next((d for d in ROOT_CANDIDATES if os.path.isdir(d) and not os.path.islink(d)
                 and not any(p == d or p.startswith(d + "/") for p in sources)), None)
    if root is None:
        raise StepFailed(step, f"no folder to build the sandbox's root on (tried {', '.join(ROOT_CANDIDATES)}: "
                               "each holds part of the Python installation)")
    visible: list[str] = []
    try:
        mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={ROOT_SIZE},mode=0755")
        # The worker's own writable /tmp and /dev/shm first: a venv under /tmp is then bound
        # into them below, read-only, instead of vanishing under them.
        for path, size in (("/tmp", TMP_SIZE), ("/dev/shm", TMP_SIZE)):
            os.makedirs(root + path, mode=0o755, exist_ok=True)
            mount("tmpfs", root + path, "tmpfs", MS_NOSUID | MS_NODEV,
                  f"size={size},nr_inodes={TMPFS_INODES},mode=1777")
        for name in LIB_LINKS:  # /lib64/ld-linux-*.so.2 is named inside every binary
            if os.path.islink("/" + name):
                os.symlink(os.readlink("/" + name), root + "/" + name)
        for path in cfg["binds"]:
            if os.path.exists(path):
                _bind(path, root)
                visible.append(path)
        # site-packages folders inside what was bound show the allowed packages alone.
        for folder in cfg["covers"]:
            target = root + folder
            if os.path.isdir(target):
                mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
        for path in cfg["packages"]:
            if os.path.exists(path):
                _bind(path, root)
                visible.append(path)
        for name in DEVICES:
            if os.path.exists(f"/dev/{name}"):
                _bind(f"/dev/{name}", root)
        for path in ("/etc/ld.so.cache", "/sys/devices/system/cpu"):
            if os.path.exists(path):
                _bind(path, root)
        worker_dir = f"{root}{SANDBOX_HOME}/worker/sandbox_inside"
        os.makedirs(worker_dir, mode=0o755)
        for name, text in worker_files.items():
            with open(os.path.join(worker_dir, name), "wb") as f:
                f.write(text)
        scratch = f"{root}{SANDBOX_HOME}/work"
        os.makedirs(scratch, mode=0o755)
        mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV,
               f"size={SCRATCH_SIZE},nr_inodes={TMPFS_INODES},mode=0700,uid={owner},gid={owner}")
        with open(f"{scratch}/submission.py", "wb") as f:
            f.write(source)
        os.chown(f"{scratch}/submission.py", owner, owner)
        os.makedirs(root + "/proc", mode=0o555)
    except OSError as exc:
        raise StepFailed(step, f"cannot assemble the sandbox's file system ({exc})") from None
    try:
        # A PID namespace's own /proc, mounted while a full one is still visible (a user
        # namespace may only mount proc then).
        mount("proc", root + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError as exc:
        raise StepFailed(step, f"cannot mount the sandbox's /proc ({exc.strerror})",
                         "a container that masks parts of /proc blocks this; run on the host or "
                         "with --security-opt systempaths=unconfined") from None
    writable = {root + "/proc", root + "/tmp", root + "/dev/shm", scratch}
    try:
        for point in _under_new_root(root)[1:]:
            if point not in writable and not point.startswith(root + "/proc/"):
                make_read_only(point)
        mount(None, root, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    except OSError as exc:
        raise StepFailed("read-only mounts", f"cannot make the sandbox's files read-only ({exc})") from None
    _check_read_only(root, writable)
    pivot_into(root)
    return visible


def _check_read_only(root: str, writable: set[str]) -> None:
    for point in _under_new_root(root):
        if point in writable or point.startswith(root + "/proc/"):
            continue
        if not os.statvfs(point).f_flag & MS_RDONLY:
            raise StepFailed("read-only mounts", f"{point[len(root):] or '/'} is still writable")


def pivot_into(root: str) -> None:
    """Make `root` the file system's root and detach the old one, so nothing else stays reachable."""
    machine = os.uname().machine
    number = SYS_PIVOT_ROOT.get(machine)
    if number is None:
        raise StepFailed("file-system isolation", f"pivot_root is not known on {machine}")
    os.chdir(root)
    if libc.syscall(ctypes.c_long(number), b".", b".") != 0:
        raise StepFailed("file-system isolation", f"pivot_root failed ({errno_text()})")
    if libc.umount2(b".", MNT_DETACH) != 0:
        raise StepFailed("file-system isolation", f"cannot detach the old root ({errno_text()})")
    os.chdir("/")
    if os.path.exists(os.path.realpath(__file__)) and not os.path.realpath(__file__).startswith(SANDBOX_HOME):
        raise StepFailed("file-system isolation", "the host's files are still visible after pivot_root")


# --- privileges ----------------------------------------------------------------------

def processes_of(uid: int) -> int:
    count = 0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if os.stat(f"/proc/{entry}").st_uid == uid:
                    count += 1
            except OSError:
                continue
    return count


def exec_worker(cfg: dict, drop_to: int | None, nproc: int | None, home: str, path_entries: list[str]) -> None:
    """In the forked worker: limits, fds, privileges, then exec. Never returns."""
    os.setsid()
    set_limits(cfg, nproc)
    # The protocol pipes on fixed fds (a zygote gets its control socket on 3 instead).
    request, reply = os.dup(cfg["request_fd"]), os.dup(cfg["reply_fd"])
    os.dup2(request, WORKER_REQUEST_FD)
    os.dup2(reply, WORKER_REPLY_FD)
    for fd in (WORKER_REQUEST_FD, WORKER_REPLY_FD):
        os.set_inheritable(fd, True)  # dup2 onto the same number keeps close-on-exec
    status_fd = cfg["status_fd"]  # close-on-exec: kept only to report a failure before the exec
    os.closerange(WORKER_REPLY_FD + 1, status_fd)
    os.closerange(status_fd + 1, 65536)
    os.chdir(home)
    drop_privileges(drop_to, allow_root=cfg["mode"] == "unsafe")
    # Armed after the uid change, which clears it: the worker goes when its parent does.
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    role = "zygote" if cfg.get("role") == "zygote" else "worker"
    boot = ("import sys,time;t=time.perf_counter();sys.path[:]=" + repr(path_entries)
            + f";from sandbox_inside import {role};{role}.main(sys.argv[1],t)")
    worker_config = json.dumps({"submission": f"{home}/submission.py", "rules": cfg["rules"],
                                "memory_bytes": cfg["memory_bytes"], "home": home,
                                "scratch_size": SCRATCH_SIZE, "tmp_size": TMP_SIZE, "tmpfs_inodes": TMPFS_INODES,
                                "nproc": nproc,
                                "isolated": cfg["mode"] != "unsafe"})
    env = dict(cfg["env"], HOME=home, TMPDIR=home)
    os.execve(cfg["python"], [cfg["python"], "-I", "-S", "-c", boot, worker_config], env)


# --- the sandbox's init ---------------------------------------------------------------

def _read_inputs(cfg: dict) -> tuple[bytes, dict[str, bytes]]:
    with os.fdopen(cfg["source_fd"], "rb") as f:
        source = f.read()
    files = {}
    for name, path in cfg["worker_files"].items():
        with open(path, "rb") as f:
            files[name] = f.read()
    return source, files


def run_isolated_init(cfg: dict, status: Status, user_namespace: bool, source: bytes,
                      worker_files: dict[str, bytes]) -> None:
    """As pid 1 of the new PID namespace: build the root, fork the worker, reap, report."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    prctl(PR_SET_DUMPABLE, 0)  # the worker may not read this process's memory or fds
    if user_namespace:
        drop_to, nproc = None, processes_of(os.getuid()) + NPROC
    else:
        drop_to, nproc = cfg["uid"], NPROC
        if drop_to is None:
            raise StepFailed("privileges", "no uid to run the worker as")
    owner = drop_to if drop_to is not None else os.getuid()
    visible = build_root(cfg, source, worker_files, owner)
    home = f"{SANDBOX_HOME}/work"
    _check_worker_can_start(cfg, drop_to, visible)
    status.send(event="sandbox", mode="isolated",
                namespaces=(["user"] if user_namespace else []) + ["pid", "net", "mnt", "ipc", "uts"],
                uid=drop_to if drop_to is not None else os.getuid(), visible=visible,
                limits={"memory_bytes": cfg["memory_bytes"], "processes": nproc, "file_bytes": 64 * 2**20,
                        "open_files": 1024, "scratch": SCRATCH_SIZE, "tmp": TMP_SIZE},
                notes=[])
    _fork_and_reap(cfg, status, drop_to, nproc, home, [f"{SANDBOX_HOME}/worker", *cfg["python_path"]])


def _check_worker_can_start(cfg: dict, drop_to: int | None, visible: list[str]) -> None:
    """Whether the worker's uid can read what it needs, tried as that uid: else a clear refusal."""
    if drop_to is None:
        return
    needed = [cfg["python"], *(p for p in cfg["python_path"] if os.path.exists(p)), f"{SANDBOX_HOME}/work"]
    blocked = _blocked_for(drop_to, needed)
    if blocked is not None:
        raise StepFailed("privileges", f"the sandbox uid cannot use {blocked}",
                         "make the Python installation and the venv readable by other users (chmod o+rX)")


def _blocked_for(uid: int, needed: list[str]) -> str | None:
    """The first of `needed` that `uid` cannot read, tried as that uid; None if it can use them all."""
    pid = os.fork()
    if pid == 0:
        try:
            os.setgroups([])
            os.setresgid(uid, uid, uid)
            os.setresuid(uid, uid, uid)
            for i, path in enumerate(needed):
                if not os.access(path, os.R_OK | os.X_OK):
                    os._exit(10 + i)
            os._exit(0)
        except BaseException:  # noqa: BLE001 - any failure means "no"
            os._exit(9)
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code == 0:
        return None
    return needed[code - 10] if 10 <= code < 10 + len(needed) else "its own ids"


def _fork_and_reap(cfg: dict, status: Status, drop_to: int | None, nproc: int | None, home: str,
                   path_entries: list[str]) -> None:
    worker = os.fork()
    if worker == 0:
        try:
            exec_worker(cfg, drop_to, nproc, home, path_entries)
        except StepFailed as exc:
            status.send(event="error", step=exc.step, message=exc.message, hint=exc.hint)
        except BaseException as exc:  # noqa: BLE001
            status.send(event="error", step="starting the worker", message=f"{type(exc).__name__}: {exc}", hint="")
        finally:
            os._exit(127)
    for fd in {cfg["request_fd"], cfg["reply_fd"]}:
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


# --- unsafe mode -------------------------------------------------------------------------

def run_unsafe(cfg: dict, status: Status) -> None:
    """No namespaces: the worker runs on the host's file system, below this subreaper."""
    import shutil

    base = cfg["base"]

    def clean_up(*_args) -> None:
        kill_descendants()
        shutil.rmtree(base, ignore_errors=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, clean_up)
    follow_parent(cfg["judge_pid"], signal.SIGTERM)  # the judge dies: clean up after it
    if prctl(PR_SET_CHILD_SUBREAPER, 1) != 0:
        raise StepFailed("process tracking", f"cannot become a child subreaper ({errno_text()})")
    drop_to = cfg["uid"] if os.getuid() == 0 else None
    home = os.path.join(base, "work")
    notes = ["--unsafe-no-sandbox: the submission could read and change anything this user can"]
    path_entries = [os.path.join(base, "worker"), *cfg["python_path_unsafe"]]
    if drop_to is not None:
        blocked = _blocked_for(drop_to, [cfg["python"], *path_entries])
        if blocked is not None:
            notes.append(f"the worker kept uid 0: another uid cannot use {blocked}")
            drop_to = None
    if drop_to is not None:
        for path in (home, os.path.join(home, "submission.py")):
            os.chown(path, drop_to, drop_to)
    nproc = NPROC if drop_to is not None else None
    status.send(event="sandbox", mode="unsafe", namespaces=[], uid=drop_to if drop_to is not None else os.getuid(),
                visible=["the whole file system"],
                limits={"memory_bytes": cfg["memory_bytes"], "processes": nproc, "file_bytes": 64 * 2**20,
                        "open_files": 1024},
                notes=notes)
    _fork_and_reap(cfg, status, drop_to, nproc, home, path_entries)
    kill_descendants()


def kill_descendants() -> None:
    """As a subreaper, every orphan is still ours: kill until none is left."""
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


def join_cgroup(path: str | None) -> None:
    """Into the worker's memory cgroup (made by the judge, see memory_cgroup.py) before anything
    forks, so everything below this process is counted there."""
    if not path:
        return
    try:
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write("0")
    except OSError as exc:
        raise StepFailed("memory cgroup", f"cannot join {path} ({exc.strerror})") from None


def main() -> None:
    cfg = json.loads(sys.argv[1])
    status = Status(cfg["status_fd"])
    os.set_inheritable(cfg["status_fd"], False)
    try:
        join_cgroup(cfg.get("cgroup"))
        if cfg["mode"] == "unsafe":
            run_unsafe(cfg, status)
            os._exit(0)
        follow_parent(cfg["judge_pid"])
        source, worker_files = _read_inputs(cfg)
        user_namespace = enter_namespaces()
        init = os.fork()
        if init == 0:
            try:
                # The launcher is outside this PID namespace (getppid() reads 0), so no
                # parent check here: only the signal.
                prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
                run_isolated_init(cfg, status, user_namespace, source, worker_files)
                os._exit(0)
            except StepFailed as exc:
                status.send(event="error", step=exc.step, message=exc.message, hint=exc.hint)
                os._exit(111)
            except BaseException as exc:  # noqa: BLE001 - reported, never printed into the output
                status.send(event="error", step="building the sandbox", message=f"{type(exc).__name__}: {exc}",
                            hint="")
                os._exit(111)
        status.send(event="init", pid=init)
        for fd in {cfg["request_fd"], cfg["reply_fd"]}:
            os.close(fd)
        os.waitpid(init, 0)
        os._exit(0)
    except StepFailed as exc:
        status.send(event="error", step=exc.step, message=exc.message, hint=exc.hint)
        os._exit(111)
    except BaseException as exc:  # noqa: BLE001
        status.send(event="error", step="starting the sandbox", message=f"{type(exc).__name__}: {exc}", hint="")
        os._exit(111)


if __name__ == "__main__":
    main()
