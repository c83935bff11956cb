"""What a sandboxed worker can hold outside its memory limit, where no memory cgroup is delegated.

    python bench/bench_hidden_memory.py [--only NAME ...] [--seconds S]

Without a cgroup v2 the limit is RLIMIT_DATA plus the judge's poll of the tree's RssAnon,
RssShmem and VmPTE; kernel memory that no process maps escapes both. Each hoard below runs
in a fresh sandboxed worker (the real `quiz grade` path, without the static check): a first
call does nothing, a second one hoards, and the worker stays alive for the second reading.
Held outside = what grew between the readings less what the judge's poll saw grow.

Run as root on a cgroup v1 host (the fallback's home), the bench moves itself into a memory
cgroup v1 of its own, which its sandboxes inherit, and reads there the kernel memory (slab,
page tables, socket and pipe buffers, ...) and tmpfs pages charged to it: other processes do
not blur the figure. Elsewhere it reads the machine's MemAvailable, which they do. Each
hoard stops at CAP, so one that works does not take the machine.

On the 6.18 kernel where the README's figures come from, before the filter refused sockets,
pipes, FIFOs, semaphores and epoll, and before tmpfs inodes, page tables and timers were
bounded: socket pairs, semaphores and xattrs each reached CAP (1 GiB), empty files 932 MiB in
20 s, page tables 128 MiB in 20 s, FIFOs 74, pipes 69, epoll 50, timers 36 MiB. After:
tmpfs files 96 MiB, memory-map bookkeeping 85, inotify 17, tmpfs inodes and xattrs 9,
message queues 1; about 207 MiB in all.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from quizforge.grading.judge.limits import Limits
from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission
from quizforge.grading.sandbox_host.sandbox import _private_memory, descendants

CAP = 1 << 30
MiB = 1 << 20

HOARDS = r'''
import errno
import fcntl
import mmap
import os
import time

CAP = %(cap)d
SECONDS = %(seconds)f
HELD = []
F_SETPIPE_SZ = 1031


def _why(exc):
    return errno.errorcode.get(exc.errno, str(exc.errno)) if isinstance(exc, OSError) else type(exc).__name__


def _fill(fd, budget):
    """Write into fd (non-blocking) until it is full; returns the bytes written."""
    block, written = b"x" * 65536, 0
    try:
        while written < budget:
            written += os.write(fd, block)
    except BlockingIOError:
        pass
    return written


def nothing():
    return {}


def socketpairs():
    import socket
    held, why, end = 0, "cap", time.monotonic() + SECONDS
    try:
        while held < CAP and time.monotonic() < end:
            a, b = socket.socketpair()
            HELD.append((a, b))
            for s in (a, b):
                s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
            a.setblocking(False)
            held += _fill(a.fileno(), CAP - held)
    except OSError as exc:
        why = _why(exc)
    return {"bytes": held, "objects": len(HELD), "stopped": why}


def _pipe_hoard(make):
    held, why, end = 0, "cap", time.monotonic() + SECONDS
    try:
        while held < CAP and time.monotonic() < end:
            r, w = make()
            HELD.append((r, w))
            try:
                fcntl.fcntl(w, F_SETPIPE_SZ, 1 << 20)
            except OSError:
                pass
            os.set_blocking(w, False)
            held += _fill(w, CAP - held)
    except OSError as exc:
        why = _why(exc)
    return {"bytes": held, "objects": len(HELD), "stopped": why}


def pipes():
    return _pipe_hoard(os.pipe)


def fifos():
    def make():
        path = "/tmp/fifo%%d" %% len(HELD)
        os.mkfifo(path)
        fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)  # one fd holds both ends
        return fd, fd
    return _pipe_hoard(make)


def semaphores():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    held, why, end = 0, "cap", time.monotonic() + SECONDS
    while held < CAP and time.monotonic() < end:
        if libc.semget(0, 32000, 0o600) < 0:  # IPC_PRIVATE, the most semaphores one set may hold
            why = errno.errorcode.get(ctypes.get_errno(), "?")
            break
        HELD.append(1)
        held += 32000 * 64  # struct sem is a cache line
    return {"bytes": held, "objects": len(HELD), "stopped": why}


FOLDERS = ("/tmp", "/dev/shm", ".")  # the worker's three writable tmpfs folders


def _names(folder, n=200):
    i = 0
    while True:
        yield os.path.join(folder, ("%%d-" %% i).ljust(n, "x"))
        i += 1


def inodes():
    """Empty files with long names in every writable folder, until each is full or time is up."""
    made, why, end = 0, [], time.monotonic() + SECONDS
    for folder in FOLDERS:
        try:
            for path in _names(folder):
                if time.monotonic() > end:
                    return {"bytes": 0, "objects": made, "stopped": "time"}
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
                made += 1
        except OSError as exc:
            why.append(_why(exc))
    return {"bytes": 0, "objects": made, "stopped": " ".join(why)}


def xattrs():
    """64 KiB extended attributes on files in every writable folder."""
    made, held, why, end = 0, 0, [], time.monotonic() + SECONDS
    value = b"x" * 65536
    for folder in FOLDERS:
        try:
            for path in _names(folder, 20):
                os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
                for i in range(64):
                    if held >= CAP or time.monotonic() > end:
                        return {"bytes": held, "objects": made, "stopped": "cap" if held >= CAP else "time"}
                    os.setxattr(path, "user.%%d" %% i, value)
                    held += len(value)
                    made += 1
        except OSError as exc:
            why.append(_why(exc))
    return {"bytes": held, "objects": made, "stopped": " ".join(why)}


def tmpfs_files():
    """Data written to files in every writable folder: what their size= lets through."""
    held, why = 0, []
    for folder in FOLDERS:
        try:
            with open(os.path.join(folder, "hoard"), "wb") as f:
                while held < CAP:
                    f.write(b"x" * (1 << 20))
                    f.flush()
                    held += 1 << 20
        except OSError as exc:
            why.append(_why(exc))
    return {"bytes": held, "objects": len(FOLDERS), "stopped": " ".join(why)}


def page_tables():
    """Read-only anonymous mappings, populated: the zero page everywhere, so no RssAnon, and no
    RLIMIT_DATA (not writable); only page tables, 8 bytes per 4 KiB page."""
    size, why, end = 16 << 30, "cap", time.monotonic() + SECONDS
    try:
        while len(HELD) * size // 512 < CAP and time.monotonic() < end:
            HELD.append(mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | mmap.MAP_POPULATE,
                                  prot=mmap.PROT_READ))
        else:
            why = "time" if time.monotonic() >= end else "cap"
    except OSError as exc:
        why = _why(exc)
    return {"bytes": len(HELD) * size // 512, "objects": len(HELD), "stopped": why}


def epolls():
    """Half the descriptors epoll instances, half eventfds, every eventfd watched by every epoll."""
    import select
    eps, evs, watches, why = [], [], 0, "done"
    try:
        while len(eps) < 500:
            eps.append(select.epoll())
            evs.append(os.eventfd(0))
        for ep in eps:
            for ev in evs:
                ep.register(ev, select.EPOLLIN)
                watches += 1
    except (OSError, ValueError) as exc:
        why = _why(exc)
    HELD.append((eps, evs))
    return {"bytes": 0, "objects": watches, "stopped": why}


def inotify():
    """As many inotify instances as allowed, each watching every file it can reach."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    watches, why, end = 0, "done", time.monotonic() + SECONDS
    paths = []
    for top in ("/usr", "/lib", "/etc"):
        for where, dirs, files in os.walk(top):
            paths += [os.path.join(where, n) for n in files + dirs]
    for _ in range(1000):
        fd = libc.inotify_init1(0)
        if fd < 0:
            why = "init " + errno.errorcode.get(ctypes.get_errno(), "?")
            break
        HELD.append(fd)
        for path in paths:
            if libc.inotify_add_watch(fd, os.fsencode(path), 0x2) < 0:  # IN_MODIFY
                err = ctypes.get_errno()
                if err in (errno.ENOSPC, errno.EMFILE, errno.ENOMEM):
                    why = "watch " + errno.errorcode.get(err, "?")
                    return {"bytes": 0, "objects": watches, "stopped": why, "files": len(paths)}
                continue
            watches += 1
            if time.monotonic() > end:
                return {"bytes": 0, "objects": watches, "stopped": "time", "files": len(paths)}
    return {"bytes": 0, "objects": watches, "stopped": why, "files": len(paths)}


def timers():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    made, why, end = 0, "cap", time.monotonic() + SECONDS
    timer = ctypes.c_void_p()
    while made < 1_000_000 and time.monotonic() < end:
        if libc.timer_create(1, None, ctypes.byref(timer)) != 0:  # CLOCK_MONOTONIC, SIGALRM
            why = errno.errorcode.get(ctypes.get_errno(), "?")
            break
        made += 1
    else:
        why = "time" if made < 1_000_000 else "cap"
    return {"bytes": 0, "objects": made, "stopped": why}


def mappings():
    """As many mappings as the kernel allows, each a separate area (alternate ones readable)."""
    made, why = 0, "done"
    try:
        while made < 70000:
            prot = mmap.PROT_READ if made %% 2 else mmap.PROT_READ | mmap.PROT_WRITE
            HELD.append(mmap.mmap(-1, 4096, prot=prot))
            made += 1
    except OSError as exc:
        why = _why(exc)
    return {"bytes": 0, "objects": made, "stopped": why}


def own_pipes():
    """The worker's request pipe, reopened for writing (a new name for an old pipe), grown and filled."""
    fd = os.open("/proc/self/fd/3", os.O_WRONLY | os.O_NONBLOCK)
    HELD.append(fd)
    try:
        fcntl.fcntl(fd, F_SETPIPE_SZ, 1 << 20)
    except OSError:
        pass
    return {"bytes": _fill(fd, CAP), "objects": 1, "stopped": "full"}


def message_queues():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)

    class Attr(ctypes.Structure):
        _fields_ = [("flags", ctypes.c_long), ("maxmsg", ctypes.c_long), ("msgsize", ctypes.c_long),
                    ("curmsgs", ctypes.c_long), ("pad", ctypes.c_long * 4)]

    held, why = 0, "cap"
    for i in range(1000):
        attr = Attr(0, 10, 8192, 0)
        fd = libc.mq_open(b"/q%%d" %% i, os.O_CREAT | os.O_RDWR | os.O_NONBLOCK, 0o600, ctypes.byref(attr))
        if fd < 0:
            why = errno.errorcode.get(ctypes.get_errno(), "?")
            break
        for _ in range(10):
            if libc.mq_send(fd, b"x" * 8192, 8192, 0) == 0:
                held += 8192
        HELD.append(fd)
    return {"bytes": held, "objects": len(HELD), "stopped": why}
'''

NAMES = ("socketpairs", "pipes", "fifos", "semaphores", "tmpfs_files", "inodes", "xattrs", "page_tables", "epolls",
         "inotify", "timers", "mappings", "message_queues", "own_pipes")


class Meter:
    """Kernel memory (slab, page tables, pipe buffers, ...) and tmpfs pages charged to this
    process's own cgroup v1 memory cgroup, which its sandboxes inherit: other processes on the
    machine do not blur it. Elsewhere, the machine's MemAvailable (noisy on a busy machine)."""

    ROOT = Path("/sys/fs/cgroup/memory")

    def __init__(self) -> None:
        self.folder = None
        if (self.ROOT / "memory.kmem.usage_in_bytes").exists() and os.access(self.ROOT, os.W_OK):
            self.folder = self.ROOT / f"quizforge-bench-{os.getpid()}"
            self.folder.mkdir()
            (self.folder / "cgroup.procs").write_text(str(os.getpid()))

    @property
    def how(self) -> str:
        return "kmem + shmem of a cgroup v1" if self.folder else "MemAvailable"

    def read(self) -> int:
        if self.folder is None:
            with open("/proc/meminfo") as f:
                return -next(int(line.split()[1]) * 1024 for line in f if line.startswith("MemAvailable:"))
        kmem = int((self.folder / "memory.kmem.usage_in_bytes").read_text())
        stat = dict(line.split() for line in (self.folder / "memory.stat").read_text().splitlines())
        return kmem + int(stat["shmem"])

    def close(self) -> None:
        if self.folder is not None:
            (self.ROOT / "cgroup.procs").write_text(str(os.getpid()))
            for _ in range(50):  # the last sandbox may take a moment to go
                try:
                    self.folder.rmdir()
                    return
                except OSError:
                    time.sleep(0.1)


def _anon(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            return sum(int(line.split()[1]) * 1024 for line in f if line.startswith("RssAnon:"))
    except OSError:
        return 0


def polled(submission: IsolatedSubmission, meter: Meter) -> int:
    """What the judge's poll sees of the worker's tree now; against a cgroup, less RssAnon,
    which the cgroup's kmem and shmem do not count either."""
    root = submission._sandbox._init_pid or submission._sandbox.proc.pid
    pids = [root, *descendants(root)]
    seen = sum(_private_memory(pid) for pid in pids)
    return seen if meter.folder is None else seen - sum(_anon(pid) for pid in pids)


def measure(name: str, seconds: float, meter: Meter) -> dict:
    source = (HOARDS % {"cap": CAP, "seconds": seconds}).encode()
    submission = IsolatedSubmission(source, Limits(call_seconds=seconds + 30, total_seconds=600))
    try:
        submission.start()
        submission.call("nothing")
        time.sleep(1)
        before, seen_before = meter.read(), polled(submission, meter)
        try:
            report = submission.call(name)
        except Exception as exc:  # noqa: BLE001 - a refusal is an answer
            report = {"refused": str(exc)}
        time.sleep(1)
        after, seen_after = meter.read(), polled(submission, meter)
    finally:
        submission.close()
    return {"name": name, **report, "grew": after - before, "polled": seen_after - seen_before,
            "hidden": (after - before) - (seen_after - seen_before)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", default=list(NAMES), choices=NAMES)
    parser.add_argument("--seconds", type=float, default=20.0, help="how long each hoard may run")
    args = parser.parse_args()
    meter = Meter()
    print(f"measured by: {meter.how}")
    print(f"{'hoard':<15} {'held outside':>12} {'poll saw':>9} {'claimed':>9} {'objects':>8}  stopped by")
    try:
        results = [measure(name, args.seconds, meter) for name in args.only]
    finally:
        meter.close()
    for r in results:
        name = r["name"]
        if "refused" in r:
            print(f"{name:<15} {r['hidden'] / MiB:>8.1f} MiB {r['polled'] / MiB:>5.1f} MiB  refused: {r['refused']}")
            continue
        print(f"{name:<15} {r['hidden'] / MiB:>8.1f} MiB {r['polled'] / MiB:>5.1f} MiB "
              f"{r['bytes'] / MiB:>5.0f} MiB {r['objects']:>8}  {r['stopped']}")
    print(f"{'every hoard':<15} {sum(max(0, r['hidden']) for r in results) / MiB:>8.1f} MiB  (the sum: each ran alone)")


if __name__ == "__main__":
    main()
