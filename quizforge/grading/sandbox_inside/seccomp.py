"""A seccomp filter for the worker: one thread, no new processes, no memory that hides.

Installed by worker.serve() once torch is imported and its thread pools are set to one,
and before any submission code runs. From then on the kernel refuses, with EPERM, the
system calls that would start a thread or a process (clone, fork, vfork, execve, ...),
give memory a place outside the memory limit (memfd_create, SysV IPC, new sockets, pipes,
FIFOs and epoll instances) or reach past the sandbox (mount, unshare, setns, ptrace, bpf
and the like).
clone3 gets ENOSYS instead, so the C library falls back to clone, which gets EPERM:
clone3 passes its flags in memory, where a filter cannot read them.

The filter is a classic BPF program of our own, loaded with the seccomp() system call
for every thread of the process (TSYNC). A system call of another ABI than the
process's own (i386 or x32 on x86_64, AArch32 on aarch64) kills the process: this filter
only knows the numbers of the native one, and i386's socketcall (every socket call behind
one number) is never reached. An architecture it does not know is refused with
StepFailed("seccomp"), never run unfiltered. Standard library only.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform

from .isolation import PR_SET_NO_NEW_PRIVS, StepFailed, libc, prctl

# Refused with EPERM, by name. Each architecture's numbers are below; a name an
# architecture lacks (fork, pipe, mknod, epoll_create on aarch64) simply does not exist there.
REFUSED = (
    # threads and processes
    "clone", "fork", "vfork", "execve", "execveat",
    # memory that no process maps, so neither RLIMIT_DATA nor the RSS poll sees it
    "memfd_create", "memfd_secret", "shmget", "shmat", "shmctl", "shmdt", "msgget", "msgsnd", "msgrcv", "msgctl",
    "semget", "semop", "semtimedop", "semctl",  # 2 MiB of kernel memory per set, 32,000 sets
    # kernel buffers, unmapped too: 200 filled socket pairs held 1.5 GiB, a pipe holds up to 1 MiB.
    # The worker's channel (fds 3 and 4, its output) is inherited already open: it needs no new one.
    # mknod makes FIFOs (a pipe each); an epoll's watches cost the square of the open files (50 MiB).
    "socket", "socketpair", "pipe", "pipe2", "mknod", "mknodat", "epoll_create", "epoll_create1",
    # namespaces, mounts and the root
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree", "move_mount", "fsopen",
    "fsconfig", "fsmount", "fspick", "mount_setattr", "name_to_handle_at", "open_by_handle_at",
    # other processes' memory, the kernel's extension points, keys
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd", "kcmp",
    "bpf", "userfaultfd", "perf_event_open", "io_uring_setup", "io_uring_enter", "io_uring_register",
    "add_key", "request_key", "keyctl", "kexec_load", "kexec_file_load", "init_module", "finit_module",
    "delete_module", "seccomp", "personality", "fanotify_init", "lookup_dcookie",
    # the machine itself
    "swapon", "swapoff", "reboot", "sethostname", "setdomainname", "acct", "quotactl", "vhangup",
    "iopl", "ioperm", "modify_ldt", "uselib",
)
# Refused with ENOSYS, so the C library falls back to a call the filter can judge.
MISSING = ("clone3",)

_X86_64 = {
    "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "execveat": 322, "clone3": 435,
    "memfd_create": 319, "memfd_secret": 447, "shmget": 29, "shmat": 30, "shmctl": 31, "shmdt": 67,
    "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semget": 64, "semop": 65, "semtimedop": 220,
    "semctl": 66, "socket": 41, "socketpair": 53, "pipe": 22, "pipe2": 293, "mknod": 133, "mknodat": 259,
    "epoll_create": 213, "epoll_create1": 291,
    "unshare": 272, "setns": 308, "mount": 165, "umount2": 166, "pivot_root": 155, "chroot": 161,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "name_to_handle_at": 303, "open_by_handle_at": 304,
    "ptrace": 101, "process_vm_readv": 310, "process_vm_writev": 311, "process_madvise": 440,
    "pidfd_getfd": 438, "kcmp": 312, "bpf": 321, "userfaultfd": 323, "perf_event_open": 298,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "add_key": 248, "request_key": 249, "keyctl": 250, "kexec_load": 246, "kexec_file_load": 320,
    "init_module": 175, "finit_module": 313, "delete_module": 176, "seccomp": 317, "personality": 135,
    "fanotify_init": 300, "lookup_dcookie": 212,
    "swapon": 167, "swapoff": 168, "reboot": 169, "sethostname": 170, "setdomainname": 171, "acct": 163,
    "quotactl": 179, "vhangup": 153, "iopl": 172, "ioperm": 173, "modify_ldt": 154, "uselib": 134,
}
_AARCH64 = {
    "clone": 220, "execve": 221, "execveat": 281, "clone3": 435,
    "memfd_create": 279, "memfd_secret": 447, "shmget": 194, "shmat": 196, "shmctl": 195, "shmdt": 197,
    "msgget": 186, "msgsnd": 189, "msgrcv": 188, "msgctl": 187, "semget": 190, "semop": 193, "semtimedop": 192,
    "semctl": 191, "socket": 198, "socketpair": 199, "pipe2": 59, "mknodat": 33, "epoll_create1": 20,
    "unshare": 97, "setns": 268, "mount": 40, "umount2": 39, "pivot_root": 41, "chroot": 51,
    "open_tree": 428, "move_mount": 429, "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433,
    "mount_setattr": 442, "name_to_handle_at": 264, "open_by_handle_at": 265,
    "ptrace": 117, "process_vm_readv": 270, "process_vm_writev": 271, "process_madvise": 440,
    "pidfd_getfd": 438, "kcmp": 272, "bpf": 280, "userfaultfd": 282, "perf_event_open": 241,
    "io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427,
    "add_key": 217, "request_key": 218, "keyctl": 219, "kexec_load": 104, "kexec_file_load": 294,
    "init_module": 105, "finit_module": 273, "delete_module": 106, "seccomp": 277, "personality": 92,
    "fanotify_init": 262, "lookup_dcookie": 18,
    "swapon": 224, "swapoff": 225, "reboot": 142, "sethostname": 161, "setdomainname": 162, "acct": 89,
    "quotactl": 60, "vhangup": 58,
}
# machine -> (AUDIT_ARCH_* value, syscall numbers, the bit that marks another ABI's calls or None)
ARCHITECTURES = {
    "x86_64": (0xC000003E, _X86_64, 0x40000000),   # x32 calls carry this bit
    "aarch64": (0xC00000B7, _AARCH64, None),
    "arm64": (0xC00000B7, _AARCH64, None),
}
SYS_SECCOMP = {"x86_64": 317, "aarch64": 277, "arm64": 277}

# Classic BPF, as linux/filter.h and linux/seccomp.h define it.
_LD_W_ABS, _JEQ_K, _JGE_K, _RET_K = 0x20, 0x15, 0x35, 0x06
RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS = 0x7FFF0000, 0x00050000, 0x80000000
_NR_OFFSET, _ARCH_OFFSET = 0, 4   # in struct seccomp_data
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1
MAX_JUMP = 255


class _Instruction(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint16), ("jt", ctypes.c_uint8), ("jf", ctypes.c_uint8), ("k", ctypes.c_uint32)]


class _Program(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_Instruction))]


def machine() -> str:
    return platform.machine()


def program(arch: str) -> list[tuple[int, int, int, int]]:
    """The filter for `arch` as (code, jt, jf, k) instructions. StepFailed for an unknown one."""
    if arch not in ARCHITECTURES:
        raise StepFailed("seccomp", f"the filter does not know the system calls of {arch or 'this machine'}",
                         "grade on x86_64 or aarch64")
    audit_arch, numbers, foreign_abi_bit = ARCHITECTURES[arch]
    refused = sorted({numbers[name] for name in REFUSED if name in numbers})
    missing = sorted({numbers[name] for name in MISSING if name in numbers})
    # (code, k, where a true test jumps, where a false one jumps); None: the next instruction.
    # Every jump goes forward, to one of the four verdicts at the end.
    checks: list[tuple[int, int, str | None, str | None]] = [
        (_LD_W_ABS, _ARCH_OFFSET, None, None),
        (_JEQ_K, audit_arch, None, "kill"),
        (_LD_W_ABS, _NR_OFFSET, None, None),
    ]
    if foreign_abi_bit is not None:
        checks.append((_JGE_K, foreign_abi_bit, "kill", None))
    checks += [(_JEQ_K, nr, "enosys", None) for nr in missing]
    checks += [(_JEQ_K, nr, "eperm", None) for nr in refused]
    verdicts = [("allow", RET_ALLOW), ("eperm", RET_ERRNO | errno.EPERM),
                ("enosys", RET_ERRNO | errno.ENOSYS), ("kill", RET_KILL_PROCESS)]
    at = {name: len(checks) + i for i, (name, _) in enumerate(verdicts)}

    def offset(i: int, target: str | None) -> int:
        jump = 0 if target is None else at[target] - i - 1
        if not 0 <= jump <= MAX_JUMP:
            raise StepFailed("seccomp", "the filter is too long for its jumps")
        return jump

    out = [(code, offset(i, jt), offset(i, jf), k) for i, (code, k, jt, jf) in enumerate(checks)]
    return out + [(_RET_K, 0, 0, value) for _, value in verdicts]


def refused_calls(arch: str | None = None) -> list[str]:
    """The names of the calls the filter refuses on `arch` (default: this machine)."""
    numbers = ARCHITECTURES.get(arch or machine(), (0, {}, None))[1]
    return [name for name in (*REFUSED, *MISSING) if name in numbers]


def install() -> list[str]:
    """Filter every thread of this process from now on; returns what is refused. StepFailed if
    the filter cannot be installed or does not hold."""
    arch = machine()
    instructions = program(arch)
    array = (_Instruction * len(instructions))(*(_Instruction(*i) for i in instructions))
    prog = _Program(len(instructions), array)
    # Already set by drop_privileges in the sandbox; without it an unprivileged process may not filter.
    if prctl(PR_SET_NO_NEW_PRIVS, 1) != 0:
        raise StepFailed("seccomp", f"cannot set no_new_privs ({os.strerror(ctypes.get_errno())})")
    result = libc.syscall(ctypes.c_long(SYS_SECCOMP[arch]), ctypes.c_uint(SECCOMP_SET_MODE_FILTER),
                          ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC), ctypes.byref(prog))
    if result != 0:
        why = f"thread {result} could not be synchronised" if result > 0 else os.strerror(ctypes.get_errno())
        raise StepFailed("seccomp", f"the kernel refused the filter ({why})",
                         "run on a kernel with seccomp filters (CONFIG_SECCOMP_FILTER), outside a container "
                         "profile that forbids installing them")
    _check_it_holds()
    return refused_calls(arch)


def _check_it_holds() -> None:
    """Every thread is filtered, and a refused call is refused."""
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/status") as f:
                mode = next((line.split()[1] for line in f if line.startswith("Seccomp:")), None)
        except OSError:
            continue  # the thread ended meanwhile
        if mode is not None and mode != "2":
            raise StepFailed("seccomp", f"thread {tid} is not filtered (mode {mode})")
    try:
        fd = os.memfd_create("quizforge-seccomp-check")
    except PermissionError:
        return
    os.close(fd)
    raise StepFailed("seccomp", "the filter is installed but memfd_create still works")
