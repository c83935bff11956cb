"""Isolation steps shared by the launcher (quizforge/grading/sandbox_host/launcher.py) and the zygote.

Thin ctypes wrappers over the Linux calls that build a sandbox (unshare, mount, prctl,
capset) and the steps made of them. Every step either holds or raises StepFailed naming
it; nothing here ever carries on with less. Standard library only.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x00020000, 0x04000000, 0x08000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_NOATIME, MS_NODIRATIME, MS_BIND = 32, 1024, 2048, 4096
MS_REC, MS_PRIVATE, MS_RELATIME = 16384, 1 << 18, 1 << 21
ST_RELATIME = 4096  # statvfs's bit; MS_RELATIME is another
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_READ, PR_CAPBSET_DROP = 1, 4, 23, 24
PR_SET_NO_NEW_PRIVS, PR_SET_CHILD_SUBREAPER = 38, 36
PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 47, 4

libc = ctypes.CDLL(None, use_errno=True)


class StepFailed(Exception):
    """An isolation step that did not hold. Reported, never worked around."""

    def __init__(self, step: str, message: str, hint: str = ""):
        super().__init__(f"{step}: {message}")
        self.step, self.message, self.hint = step, message, hint


def errno_text() -> str:
    return os.strerror(ctypes.get_errno())


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = (lambda s: None if s is None else s.encode())
    if libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)) != 0:
        raise OSError(ctypes.get_errno(), f"mount {target}: {errno_text()}")


def prctl(option: int, arg: int = 0) -> int:
    return libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))


class Status:
    def __init__(self, fd: int):
        self.fd = fd

    def send(self, **event) -> None:
        try:
            os.write(self.fd, (json.dumps(event) + "\n").encode())
        except OSError:
            pass  # the judge is gone; nothing to tell



def follow_parent(parent: int, signum: int = signal.SIGKILL) -> None:
    """Be sent `signum` when the parent exits; exit now if it already has."""
    if prctl(PR_SET_PDEATHSIG, signum) != 0:
        raise StepFailed("parent-death signal", f"prctl(PR_SET_PDEATHSIG) failed: {errno_text()}")
    if os.getppid() != parent:
        os._exit(0)  # the judge died before the signal was armed: nobody to grade for



SANDBOX_NAMESPACES = CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWUTS


def enter_namespaces(force_user: bool = False) -> bool:
    """New PID, network, mount, IPC and UTS namespaces: directly as root, else (or when
    `force_user`) inside a new user namespace mapping only our own ids to themselves.
    Returns whether a user namespace was made."""
    uid, gid = os.getuid(), os.getgid()
    if uid == 0 and not force_user:
        if libc.unshare(SANDBOX_NAMESPACES) != 0:
            raise StepFailed("namespaces", f"unshare failed ({errno_text()})",
                             "run where root may create namespaces (in Docker: --privileged or a seccomp "
                             "profile that allows unshare and mount)")
        return False
    if libc.unshare(SANDBOX_NAMESPACES | CLONE_NEWUSER) != 0:
        raise StepFailed("namespaces", f"unshare of a user namespace failed ({errno_text()})",
                         "enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
                         "user.max_user_namespaces > 0, or AppArmor's restrict_unprivileged_userns=0)")
    try:
        # Only our own ids, mapped to themselves: the worker is an ordinary user in there too.
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    except OSError as exc:
        raise StepFailed("namespaces", f"cannot map ids in the user namespace ({exc.strerror})") from None
    return True


def mount_flags(path: str) -> int:
    """The flags a read-only remount must keep (the kernel refuses to drop locked ones)."""
    have = os.statvfs(path).f_flag
    flags = have & (MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_NOATIME | MS_NODIRATIME)
    return flags | (MS_RELATIME if have & ST_RELATIME else 0)


def make_read_only(target: str) -> None:
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | mount_flags(target))



class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def capabilities() -> int:
    """This process's effective | permitted | inheritable capability bits."""
    header, data = CapHeader(0x20080522, 0), (CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        raise StepFailed("privileges", f"capget failed ({errno_text()})")
    return sum((d.effective | d.permitted | d.inheritable) << (32 * i) for i, d in enumerate(data))


def drop_privileges(drop_to: int | None, allow_root: bool = False) -> None:
    """No capabilities now or after exec, no way to gain any, and (as root) another uid."""
    for cap in range(64):
        if prctl(PR_CAPBSET_READ, cap) < 0:
            break
        if prctl(PR_CAPBSET_DROP, cap) != 0:
            raise StepFailed("privileges", f"cannot drop capability {cap} from the bounding set ({errno_text()})")
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    if drop_to is not None:
        try:
            os.setgroups([])
            os.setresgid(drop_to, drop_to, drop_to)
            os.setresuid(drop_to, drop_to, drop_to)
        except OSError as exc:
            raise StepFailed("privileges", f"cannot switch to uid {drop_to} ({exc.strerror})") from None
        if os.getresuid() != (drop_to,) * 3 or os.getresgid() != (drop_to,) * 3:
            raise StepFailed("privileges", f"uid {drop_to} did not stick")
        if capabilities() != 0:
            raise StepFailed("privileges", "capabilities remain after the uid change")
    elif os.getuid() == 0 and not allow_root:
        raise StepFailed("privileges", "the worker would keep uid 0")
    # In a user namespace of its own the process holds every capability there until an exec
    # clears them; a forked worker never execs, so clear them here, and check.
    header, data = CapHeader(0x20080522, 0), (CapData * 2)()
    if libc.capset(ctypes.byref(header), data) != 0 or capabilities() != 0:
        raise StepFailed("privileges", f"cannot clear the capabilities ({errno_text()})")
    if prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
        raise StepFailed("privileges", f"cannot set no_new_privs ({errno_text()})")


def set_limits(cfg: dict, nproc: int | None) -> None:
    def cap(which: int, name: str, value: int) -> None:
        if type(value) is not int or value < 0:
            raise StepFailed("limits", f"{name} of {value!r} is not a limit")
        _soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        try:
            resource.setrlimit(which, (value, value))
        except (ValueError, OSError) as exc:
            raise StepFailed("limits", f"cannot set {name} ({exc})") from None

    cap(resource.RLIMIT_DATA, "RLIMIT_DATA", cfg["memory_bytes"])
    cap(resource.RLIMIT_CORE, "RLIMIT_CORE", 0)
    cap(resource.RLIMIT_FSIZE, "RLIMIT_FSIZE", 64 * 2**20)
    cap(resource.RLIMIT_NOFILE, "RLIMIT_NOFILE", 1024)
    # Each POSIX timer and queued signal is kernel memory; at the default (~96,000) timers held 36 MiB.
    cap(resource.RLIMIT_SIGPENDING, "RLIMIT_SIGPENDING", 64)
    if nproc is not None:
        cap(resource.RLIMIT_NPROC, "RLIMIT_NPROC", nproc)


