"""A memory cgroup (cgroup v2) per worker, where this machine delegates one to us.

RLIMIT_DATA and the judge's RSS poll see only memory a process maps. A cgroup's
memory.max counts every page charged to it: anonymous memory, shared memory, tmpfs
files and memfds, mapped or not. With memory.swap.max = 0 none of it can move to swap
either, and memory.oom.group = 1 makes the kernel kill the whole tree at the limit.

Usable where some cgroup2 folder on the way from ours up to the mount's root offers the
memory controller and lets us make a child there: as root on a cgroup2 host, or under a
delegated systemd user slice (`systemd-run --user --scope -p Delegate=yes quiz grade ...`).
Elsewhere (a cgroup v1 or hybrid host, a container without a delegated cgroup) there is
none, and the sandbox relies on the rest: RLIMIT_DATA, the poll of resident memory and
page tables, memfd_create, SysV IPC, new sockets, pipes and FIFOs refused by the worker's
seccomp filter, and tmpfs folders limited in size and inodes.

Each cgroup is named after the judge's pid, so the next judge to start removes what one
that was SIGKILLed left behind. Standard library only.
"""

from __future__ import annotations

import functools
import itertools
import os
import secrets
import time
from pathlib import Path

PREFIX = "quizforge-"
CGROUP = "cgroup v2"
FALLBACK = "rlimit + no memfd + sized tmpfs"
_counter = itertools.count(1)


def _cgroup2_mount(mountinfo: str) -> Path | None:
    for line in mountinfo.splitlines():
        left, sep, right = line.partition(" - ")
        if sep and right.split()[:1] == ["cgroup2"]:
            return Path(left.split()[4])
    return None


def _own_cgroup(proc_cgroup: str) -> str | None:
    for line in proc_cgroup.splitlines():
        if line.startswith("0::"):
            return line[3:]
    return None


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def usable(folder: Path) -> bool:
    """Whether children of `folder` can get the memory controller, and we may make them."""
    if "memory" not in _read(folder / "cgroup.controllers").split() or not os.access(folder, os.W_OK | os.X_OK):
        return False
    if "memory" in _read(folder / "cgroup.subtree_control").split():
        return True
    try:  # only a cgroup without processes of its own (or the root) may hand controllers down
        (folder / "cgroup.subtree_control").write_text("+memory")
    except OSError:
        return False
    return True


def find_parent(mountinfo: str | None = None, proc_cgroup: str | None = None) -> Path | None:
    """The nearest cgroup2 folder, from our own cgroup's parent up to the root, where we may
    make memory-limited children; None where there is none."""
    mount = _cgroup2_mount(mountinfo if mountinfo is not None else _read(Path("/proc/self/mountinfo")))
    own = _own_cgroup(proc_cgroup if proc_cgroup is not None else _read(Path("/proc/self/cgroup")))
    if mount is None or own is None:
        return None
    here = mount / own.lstrip("/")
    if not here.is_relative_to(mount) or ".." in Path(own).parts:
        return None
    candidates = [here] if here == mount else []
    folder = here
    while folder != mount:
        folder = folder.parent
        candidates.append(folder)
    return next((c for c in candidates if usable(c)), None)


@functools.lru_cache(maxsize=1)
def _parent() -> Path | None:
    parent = find_parent()
    if parent is not None:
        remove_stale(parent)
    return parent


def _swap_in_use() -> bool:
    return len(_read(Path("/proc/swaps")).strip().splitlines()) > 1


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class MemoryCgroup:
    def __init__(self, path: Path):
        self.path = path

    @classmethod
    def create(cls, limit: int, parent: Path | None = None) -> "MemoryCgroup | None":
        """A fresh cgroup holding at most `limit` bytes, or None where none can be made."""
        parent = parent if parent is not None else _parent()
        if parent is None:
            return None
        path = parent / f"{PREFIX}{os.getpid()}-{next(_counter)}-{secrets.token_hex(4)}"
        try:
            path.mkdir(mode=0o755)
        except OSError:
            return None
        cgroup = cls(path)
        try:
            (path / "memory.max").write_text(str(limit))
            if (path / "memory.swap.max").exists():
                (path / "memory.swap.max").write_text("0")
            elif _swap_in_use():
                raise OSError("swap is on but cannot be limited")
            if (path / "memory.oom.group").exists():
                (path / "memory.oom.group").write_text("1")
            if _read(path / "memory.max").strip() != str(limit):
                raise OSError("memory.max did not stick")
        except OSError:
            cgroup.remove()
            return None
        return cgroup

    def add(self, pid: int) -> None:
        """Move `pid` in (0: the caller). OSError if the kernel refuses."""
        (self.path / "cgroup.procs").write_text(str(pid))

    def oom_killed(self) -> bool:
        for line in _read(self.path / "memory.events").splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill" and value.strip() not in ("", "0"):
                return True
        return False

    def remove(self, wait: float = 2.0) -> None:
        """Kill what is left inside and remove the cgroup; best effort, never raises."""
        end = time.monotonic() + wait
        while True:
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                pass
            if time.monotonic() > end:
                return
            try:
                (self.path / "cgroup.kill").write_text("1")
            except OSError:
                pass
            time.sleep(0.01)


def remove_stale(parent: Path) -> None:
    """The cgroups of judges that are gone (SIGKILL leaves them behind)."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        name = entry.name
        if not name.startswith(PREFIX) or not entry.is_dir():
            continue
        try:
            pid = int(name[len(PREFIX):].split("-", 1)[0])
        except ValueError:
            continue
        if not _alive(pid):
            MemoryCgroup(entry).remove(wait=0.5)
