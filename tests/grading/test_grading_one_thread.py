"""One thread, no helper processes, no memory that hides (issue #20, items 1, 2 and 7).

The worker installs a seccomp filter (quizforge/grading/sandbox_inside/seccomp.py) before any
submission code runs. Each attack here scored full marks before it; graded with the static
check bypassed (grade_unchecked), it must now score no more than the honest "zeros with the
right shapes" floor, whatever the static check would have said. One end-to-end `quiz grade`
per attack checks the whole path, where either layer may refuse it.
"""

from __future__ import annotations

import json
import mmap
import os
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grading_support import grade_unchecked, namespaces_available, write_submission, zygote  # noqa: F401 - zygote is a fixture
from quizforge.challenges import challenge_ids, load_challenge
from quizforge.grading.grade import grade
from quizforge.grading.judge.limits import Limits
from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission
from quizforge.grading.sandbox_host.launcher import TMPFS_INODES
from quizforge.grading.sandbox_host.sandbox import SandboxPolicy
from quizforge.grading.sandbox_inside import seccomp
from quizforge.grading.sandbox_inside.isolation import StepFailed
from quizforge.grading.sandbox_inside.worker import NO_MEMFD, NO_SOCKETS, ONE_THREAD

ROOT = Path(__file__).resolve().parents[2]
NAMESPACES = namespaces_available()
needs_sandbox = pytest.mark.skipif(not NAMESPACES, reason="no namespaces here: grading refuses (test_grading_trust)")
# The honest floor: zeros of the right shapes.
FLOOR = {"softmax": 0, "layer_norm": 2, "scaled_dot_product_attention": 3}


# --- the filter on its own --------------------------------------------------------------

def _header_numbers(path: Path, prefixes: tuple[str, ...]) -> dict[str, int]:
    found = {}
    for line in path.read_text().splitlines():
        match = re.match(r"#define __NR(?:3264)?_(\w+)\s+(\d+)\s*$", line)
        if match and line.startswith(prefixes):
            found[match.group(1)] = int(match.group(2))
    return found


@pytest.mark.parametrize("arch, header", [
    ("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
    ("aarch64", "/usr/include/asm-generic/unistd.h"),
])
def test_the_system_call_numbers_match_the_kernel_headers(arch, header):
    if not Path(header).exists():
        pytest.skip(f"{header} is not installed")
    known = _header_numbers(Path(header), ("#define __NR",))
    table = seccomp.ARCHITECTURES[arch][1]
    assert set(seccomp.REFUSED + seccomp.MISSING) >= set(table)
    for name, number in table.items():
        assert known.get(name) == number, (arch, name)


def test_an_unknown_architecture_is_refused_not_run_unfiltered():
    with pytest.raises(StepFailed) as refused:
        seccomp.program("riscv64")
    assert refused.value.step == "seccomp" and "riscv64" in refused.value.message


def test_the_program_ends_in_its_four_verdicts_and_every_jump_lands_on_one():
    program = seccomp.program("x86_64")
    verdicts = [k for code, _, _, k in program[-4:]]
    assert verdicts == [seccomp.RET_ALLOW, seccomp.RET_ERRNO | 1, seccomp.RET_ERRNO | 38, seccomp.RET_KILL_PROCESS]
    first_verdict = len(program) - 4
    for i, (code, jt, jf, _k) in enumerate(program[:first_verdict]):
        for jump in (jt, jf):
            assert jump == 0 or i + 1 + jump >= first_verdict, (i, jt, jf)


FILTERED = r"""
import ctypes, errno, json, os, select, socket, subprocess, sys, threading
from quizforge.grading.sandbox_inside import seccomp
from quizforge.grading.sandbox_inside.worker import _refused_by_the_filter
import torch
torch.set_num_threads(1)
refused = seccomp.install()
libc = ctypes.CDLL(None, use_errno=True)
seen, messages = {}, {}
def attempt(name, call):
    try:
        call()
        seen[name] = "ran"
    except RuntimeError as exc:
        seen[name] = str(exc)
        messages[name] = _refused_by_the_filter(exc)
    except OSError as exc:
        seen[name] = errno.errorcode.get(exc.errno, exc.errno)
        messages[name] = _refused_by_the_filter(exc)
attempt("thread", lambda: threading.Thread(target=print).start())
attempt("fork", lambda: os.fork())
attempt("popen", lambda: subprocess.Popen(["/bin/true"]))
attempt("posix_spawn", lambda: os.posix_spawn("/bin/true", ["true"], {}))
attempt("memfd", lambda: os.memfd_create("hoard"))
attempt("execv", lambda: os.execv("/bin/true", ["true"]))
attempt("socket", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM))
attempt("socketpair", socket.socketpair)
attempt("pipe", lambda: os.pipe())
attempt("pipe2", lambda: os.pipe2(0))
attempt("fifo", lambda: os.mkfifo(os.path.join(os.path.dirname(__file__), "fifo")))
attempt("epoll", lambda: select.epoll())
seen["system"] = os.system("true")
def raw(number, *args):
    if libc.syscall(ctypes.c_long(number), *args) == -1:
        return errno.errorcode[ctypes.get_errno()]
    return "ran"
numbers = seccomp.ARCHITECTURES[seccomp.machine()][1]
seen["clone3"] = raw(435, ctypes.c_void_p(0), ctypes.c_size_t(0))
seen["shmget"] = raw(numbers["shmget"], 0, 1 << 20, 0o1600)
seen["semget"] = raw(numbers["semget"], 0, 32000, 0o600)
seen["unshare"] = raw(numbers["unshare"], 0x20000)
ends = (ctypes.c_int * 2)()
seen["raw pipe"] = raw(numbers["pipe"], ends) if "pipe" in numbers else "EPERM"  # aarch64 has pipe2 alone
seen["raw socketpair"] = raw(numbers["socketpair"], 1, 1, 0, ends)  # AF_UNIX, SOCK_STREAM
x = torch.randn(64, 64, requires_grad=True)
(x @ x).softmax(-1).sum().backward()  # torch still works, in this one thread
with open("/dev/null", "w") as f:
    f.write("fine")
seen["torch"] = bool(x.grad is not None)
print(json.dumps({"refused": refused, "seen": seen, "messages": messages}))
"""


def _run_filtered(code: str, folder: Path) -> subprocess.CompletedProcess:
    """`code` run from a file, so that the worker's messages can read the line a call was on."""
    script = folder / "filtered.py"
    script.write_text(code)
    env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120, env=env)


def test_the_filter_refuses_threads_processes_memfds_sockets_and_pipes_and_leaves_torch_working(tmp_path):
    if seccomp.machine() not in seccomp.ARCHITECTURES:
        pytest.skip(f"no filter for {seccomp.machine()} (grading refuses there)")
    done = _run_filtered(FILTERED, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"clone", "clone3", "execve", "memfd_create", "shmget", "semget", "unshare", "ptrace", "bpf",
            "socket", "socketpair", "pipe2", "mknodat", "epoll_create1"} <= set(report["refused"])
    assert report["seen"] == {
        "thread": "can't start new thread", "fork": "EPERM", "popen": "EPERM", "posix_spawn": "EPERM",
        "memfd": "EPERM", "execv": "EPERM", "socket": "EPERM", "socketpair": "EPERM", "pipe": "EPERM",
        "pipe2": "EPERM", "fifo": "EPERM", "epoll": "EPERM",
        "system": 127 << 8,  # the C library's "no shell could be started"
        "clone3": "ENOSYS", "shmget": "EPERM", "semget": "EPERM", "unshare": "EPERM", "raw pipe": "EPERM",
        "raw socketpair": "EPERM", "torch": True,
    }
    # What the student reads for each (subprocess makes its pipes first: still "one thread").
    assert report["messages"] == {
        "thread": ONE_THREAD, "fork": ONE_THREAD, "popen": ONE_THREAD, "posix_spawn": ONE_THREAD,
        "memfd": NO_MEMFD, "execv": ONE_THREAD, "socket": NO_SOCKETS, "socketpair": NO_SOCKETS,
        "pipe": NO_SOCKETS, "pipe2": NO_SOCKETS, "fifo": NO_SOCKETS, "epoll": NO_SOCKETS,
    }


def test_a_system_call_of_another_abi_kills_the_process(tmp_path):
    if seccomp.machine() != "x86_64":
        pytest.skip("the x32 ABI exists on x86_64 only")
    code = ("import ctypes\nfrom quizforge.grading.sandbox_inside import seccomp\nseccomp.install()\n"
            "libc = ctypes.CDLL(None)\nlibc.syscall(ctypes.c_long(0x40000000 | 39))\nprint('survived')\n")
    done = _run_filtered(code, tmp_path)
    assert done.returncode == -signal.SIGSYS and "survived" not in done.stdout


# i386's socketcall (102), through int 0x80: every socket call behind one number the filter does not list.
SOCKETCALL = r"""
import ctypes, mmap, sys
from quizforge.grading.sandbox_inside import seccomp
if sys.argv[1] == "filtered":
    seccomp.install()
page = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(bytes([0xB8, 102, 0, 0, 0, 0xCD, 0x80, 0xC3]))  # mov eax, 102; int 0x80; ret
call = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(page)))
print("survived", call())
"""


def test_i386_socketcall_kills_the_process(tmp_path):
    if seccomp.machine() != "x86_64":
        pytest.skip("i386 system calls reach an x86_64 kernel only")
    script = tmp_path / "socketcall.py"
    script.write_text(SOCKETCALL)
    env = {"PATH": "/usr/bin:/bin"}
    plain = subprocess.run([sys.executable, str(script), "plain"], capture_output=True, text=True, timeout=60, env=env)
    if plain.returncode != 0:
        pytest.skip("this kernel runs no i386 system calls (no IA32 emulation)")
    assert plain.stdout.strip() == "survived -22"  # unfiltered, socketcall runs: EINVAL for its empty arguments
    done = subprocess.run([sys.executable, str(script), "filtered"], capture_output=True, text=True, timeout=60,
                          env=env)
    assert done.returncode == -signal.SIGSYS and "survived" not in done.stdout


# --- the attacks, through the sandbox ------------------------------------------------------

THREAD_SOFTMAX = """
import threading

import torch

T = (torch,)[0]


def softmax(x, dim=-1):
    box = []
    helper = threading.Thread(target=lambda: box.append(T.ops.aten._softmax(x, dim, False)))
    helper.start()
    helper.join()
    return box[0]
"""

THREAD_LAYER_NORM = """
import threading

import torch
from torch import nn

T = (torch,)[0]


class LayerNorm(nn.Module):
    def __init__(self, d_model, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(d_model))
        self.bias = nn.Parameter(torch.zeros(d_model))

    def forward(self, x):
        box = []
        shape = [x.shape[-1]]
        helper = threading.Thread(
            target=lambda: box.append(T.ops.aten.native_layer_norm(x, shape, self.weight, self.bias, self.eps)[0]))
        helper.start()
        helper.join()
        return box[0]
"""

THREAD_SDPA = """
import math
import threading

import torch

T = (torch,)[0]


def scaled_dot_product_attention(Q, K, V, mask=None):
    scores = Q @ K.transpose(-2, -1) / math.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    box = []
    helper = threading.Thread(target=lambda: box.append(T.ops.aten.scaled_dot_product_attention(Q, K, V, mask)))
    helper.start()
    helper.join()
    return box[0], weights
"""

# A fresh interpreter with the worker's sys.path: an unguarded torch (28/28 before the filter).
POPEN_SOFTMAX = """
import io
import os
import subprocess
import sys

import torch

CHILD = ("import io, sys, torch\\n"
         "x = torch.load(io.BytesIO(sys.stdin.buffer.read()))\\n"
         "out = io.BytesIO()\\n"
         "torch.save(torch.softmax(x, int(sys.argv[1])), out)\\n"
         "sys.stdout.buffer.write(out.getvalue())\\n")


class _Helper(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, dim):
        sent = io.BytesIO()
        torch.save(x.detach(), sent)
        env = {"PYTHONPATH": os.pathsep.join(p for p in sys.path if p), "OMP_NUM_THREADS": "1"}
        got = subprocess.run([sys.executable, "-c", CHILD, str(dim)], input=sent.getvalue(),
                             capture_output=True, env=env, check=True).stdout
        y = torch.load(io.BytesIO(got))
        ctx.save_for_backward(y)
        ctx.dim = dim
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return y * (g - (g * y).sum(ctx.dim, keepdim=True)), None


def softmax(x, dim=-1):
    return _Helper.apply(x, dim)
"""

# The same helper through os.fork, multiprocessing and os.posix_spawn. (os.system needs a shell,
# which the sandbox does not hold; test_the_filter_refuses_... checks it where one exists.)
# The forked helper answers through a file: a pipe would be refused before the fork is tried.
FORK_SOFTMAX = """
import os
import pickle

import torch


def softmax(x, dim=-1):
    pid = os.fork()
    if pid == 0:
        with open("helper.pickle", "wb") as f:
            pickle.dump(torch.softmax(x.detach(), dim), f)
        os._exit(0)
    os.waitpid(pid, 0)
    with open("helper.pickle", "rb") as f:
        return pickle.load(f)
"""

MULTIPROCESSING_SOFTMAX = """
import multiprocessing

import torch


def _helper(x, dim):
    return torch.softmax(x, dim)


def softmax(x, dim=-1):
    with multiprocessing.get_context("fork").Pool(1) as pool:
        return pool.apply(_helper, (x.detach(), dim))
"""

POSIX_SPAWN_SOFTMAX = """
import os
import sys

import torch


def softmax(x, dim=-1):
    os.posix_spawn(sys.executable, [sys.executable, "-c", "pass"], {})
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
"""

# 3 GiB in unmapped memfds under a 2 GiB limit: neither RLIMIT_DATA nor the RSS poll saw them.
MEMFD_HOARD = """
import mmap
import os

import torch

HELD = []
for _ in range(48):
    fd = os.memfd_create("hoard")
    os.ftruncate(fd, 64 << 20)
    os.write(fd, b"x" * (64 << 20))
    HELD.append(fd)


def softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
"""

# SysV shared memory: a segment detached from every process keeps its pages.
SHM_HOARD = """
import ctypes

import torch

SIZE = 3 << 30
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
segment = libc.shmget(0, ctypes.c_size_t(SIZE), 0o1600)
if segment < 0:
    raise OSError(ctypes.get_errno(), "shmget refused")
address = libc.shmat(segment, None, 0)
ctypes.memset(address, 1, SIZE)
libc.shmdt(ctypes.c_void_p(address))


def softmax(x, dim=-1):
    e = torch.exp(x - x.amax(dim=dim, keepdim=True))
    return e / e.sum(dim=dim, keepdim=True)
"""

ATTACKS = {
    "thread_softmax": ("softmax", THREAD_SOFTMAX, ONE_THREAD),
    "thread_layer_norm": ("layer_norm", THREAD_LAYER_NORM, ONE_THREAD),
    "thread_sdpa": ("scaled_dot_product_attention", THREAD_SDPA, ONE_THREAD),
    "popen": ("softmax", POPEN_SOFTMAX, ONE_THREAD),
    "fork": ("softmax", FORK_SOFTMAX, ONE_THREAD),
    "multiprocessing": ("softmax", MULTIPROCESSING_SOFTMAX, ONE_THREAD),
    "posix_spawn": ("softmax", POSIX_SPAWN_SOFTMAX, ONE_THREAD),
    "memfd_hoard": ("softmax", MEMFD_HOARD, NO_MEMFD),
    "shm_hoard": ("softmax", SHM_HOARD, "shmget refused"),
}




def _assert_filtered(sandbox: dict) -> None:
    assert sandbox["seccomp"]["held"] is True
    assert {"clone", "clone3", "fork", "execve", "memfd_create"} <= set(sandbox["seccomp"]["refused"])


@needs_sandbox
@pytest.mark.parametrize("name", list(ATTACKS))
def test_the_attack_scores_no_more_than_the_floor_with_the_static_check_bypassed(name, tmp_path, zygote):
    challenge_id, source, message = ATTACKS[name]
    path = write_submission(tmp_path, source, name=f"{name}.py")
    # The thread attacks through a launched worker, the others through forked ones: both paths filter.
    result = grade_unchecked(path, load_challenge(challenge_id), zygote=None if name.startswith("thread") else zygote)
    _assert_filtered(result.sandbox)
    assert result.score <= FLOOR[challenge_id], [(t.name, t.status, t.message) for t in result.tests]
    failed = [t for t in result.tests if t.status == "failed"]
    assert failed
    assert all(message in t.message for t in failed), {t.message for t in failed}


@needs_sandbox
@pytest.mark.parametrize("name", list(ATTACKS))
def test_the_attack_scores_no_more_than_the_floor_through_quiz_grade(name, tmp_path, run_quiz):
    challenge_id, source, _ = ATTACKS[name]
    path = write_submission(tmp_path, source, name=f"{name}.py")
    code, out, err = run_quiz("grade", str(path), "--challenge", challenge_id, "--format", "json",
                              "--memory-limit", "2GiB")
    assert code in (0, 1), err
    report = json.loads(out)
    assert report["score"] <= FLOOR[challenge_id]
    assert report["max_score"] > 0
    if report["sandbox"]:  # else the static check refused it before any worker ran
        assert report["sandbox"]["seccomp"]["held"] is True


@needs_sandbox
def test_every_format_says_the_filter_held_and_what_bounds_memory(tmp_path, run_quiz):
    path = write_submission(tmp_path, "import torch\n\ndef softmax(x, dim=-1):\n    return x\n")
    code, out, err = run_quiz("grade", str(path), "--challenge", "softmax", "--format", "json")
    assert code == 0, err
    box = json.loads(out)["sandbox"]
    assert box["seccomp"]["held"] is True and "clone" in box["seccomp"]["refused"]
    assert box["memory"] in ("cgroup v2", "rlimit + no memfd + sized tmpfs")
    code, out, err = run_quiz("grade", str(path), "--challenge", "softmax")
    flat = " ".join(out.split())
    assert "one thread (seccomp)" in flat and f"memory bound: {box['memory']}" in flat


@needs_sandbox
@pytest.mark.parametrize("where", ["/dev/shm", "/tmp"])
@pytest.mark.parametrize("forked", [False, True], ids=["launched", "forked"])
def test_a_tmpfs_hoard_stops_at_the_tmpfs_size(where, forked, zygote):
    source = textwrap.dedent(f"""
        def hoard():
            written = 0
            with open("{where}/hoard", "wb") as f:
                try:
                    while written < (3 << 30):
                        f.write(b"x" * (1 << 20))
                        f.flush()
                        written += 1 << 20
                except OSError as exc:
                    return [exc.errno, written]
            return [0, written]
    """).encode()
    submission = IsolatedSubmission(source, Limits(call_seconds=20), zygote=zygote if forked else None)
    try:
        submission.start()
        error, written = submission.call("hoard")
    finally:
        submission.close()
    assert error == 28  # ENOSPC
    assert written <= 16 << 20


@needs_sandbox
@pytest.mark.parametrize("forked", [False, True], ids=["launched", "forked"])
def test_files_and_xattrs_stop_at_the_tmpfs_inode_limit(forked, zygote):
    """Empty files and extended attributes are kernel memory that a tmpfs's size does not count
    (932 MiB of files in 20 s, 1 GiB of xattrs, before): nr_inodes bounds both."""
    source = textwrap.dedent("""
        import os

        def hoard():
            found = []
            for folder in ("/tmp", "."):
                made = 0
                try:
                    while made < 100_000:
                        os.close(os.open(f"{folder}/{made}", os.O_CREAT | os.O_WRONLY, 0o600))
                        made += 1
                except OSError as exc:
                    found.append([exc.errno, made])
            held = 0
            try:
                with open("/dev/shm/x", "w"):
                    pass
                while held < (1 << 30):
                    os.setxattr("/dev/shm/x", f"user.{held}", b"x" * 65536)
                    held += 65536
            except OSError as exc:
                found.append([exc.errno, held])
            return found
    """).encode()
    submission = IsolatedSubmission(source, Limits(call_seconds=30), zygote=zygote if forked else None)
    try:
        submission.start()
        found = submission.call("hoard")
    finally:
        submission.close()
    assert [error for error, _ in found] == [28, 28, 28]  # ENOSPC
    (_, files_in_tmp), (_, files_in_scratch), (_, xattr_bytes) = found
    assert 900 <= files_in_tmp <= TMPFS_INODES and 900 <= files_in_scratch <= TMPFS_INODES
    assert 0 < xattr_bytes <= TMPFS_INODES * 1024


def test_the_memory_poll_counts_page_tables():
    """Read-only mappings of the zero page: page tables alone, neither resident nor under
    RLIMIT_DATA (513 MiB of them in a minute, before the poll counted VmPTE)."""
    from quizforge.grading.sandbox_host.sandbox import _private_memory

    def anon() -> int:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("RssAnon:"))

    before, anon_before = _private_memory(os.getpid()), anon()
    block = mmap.mmap(-1, 2 << 30, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, prot=mmap.PROT_READ)
    try:
        block.madvise(mmap.MADV_NOHUGEPAGE)  # else one huge zero page needs no page table
        block.madvise(22)                    # MADV_POPULATE_READ (Linux 5.14): 4 MiB of page tables
        grew, anon_grew = _private_memory(os.getpid()) - before, anon() - anon_before
    except OSError as exc:
        pytest.skip(f"cannot populate a mapping here ({exc})")
    finally:
        block.close()
    assert 3.5 * 2**20 <= grew <= 8 * 2**20
    assert anon_grew < 2**20


@needs_sandbox
def test_posix_timers_stop_at_the_pending_signal_limit(zygote):
    """Each POSIX timer is kernel memory (96,365 of them held 36 MiB): RLIMIT_SIGPENDING bounds them."""
    source = textwrap.dedent("""
        import ctypes

        def hoard():
            libc = ctypes.CDLL(None, use_errno=True)
            timer = ctypes.c_void_p()
            made = 0
            while made < 100_000 and libc.timer_create(1, None, ctypes.byref(timer)) == 0:
                made += 1
            return [ctypes.get_errno(), made]
    """).encode()
    submission = IsolatedSubmission(source, Limits(call_seconds=30), zygote=zygote)
    try:
        submission.start()
        error, made = submission.call("hoard")
    finally:
        submission.close()
    assert error == 11 and 0 < made <= 64  # EAGAIN


@needs_sandbox
def test_unsafe_mode_filters_too_and_says_so(tmp_path):
    path = write_submission(tmp_path, THREAD_SOFTMAX)
    result = grade(path, "softmax", policy=SandboxPolicy(isolated=False), static_check=False)
    assert result.sandbox["mode"] == "unsafe"
    _assert_filtered(result.sandbox)
    assert result.score == 0


@needs_sandbox
def test_every_solution_and_other_correct_style_keeps_full_marks(zygote, tmp_path):
    paths = [(c, p) for c in challenge_ids()
             for p in (ROOT / "solutions" / f"{c}.py",
                       *(v.write_to(tmp_path / c) for v in load_challenge(c).variants("ok")))]
    assert len(paths) >= 30
    lost = {}
    for challenge_id, path in paths:
        result = grade(path, challenge_id, zygote=zygote)
        _assert_filtered(result.sandbox)
        if result.score != result.max_score:
            lost[f"{challenge_id}/{path.name}"] = [(t.name, t.message) for t in result.tests if t.status != "passed"]
    assert lost == {}


# --- failing closed ---------------------------------------------------------------------

def test_a_refused_step_in_the_hello_stops_grading_with_its_name():
    from quizforge.grading.sandbox_host.sandbox import _refused_step

    hello = {"id": 0, "ok": False, "kind": "sandbox", "step": "seccomp",
             "message": "the kernel refused the filter (Invalid argument)", "hint": "run on a kernel with seccomp"}
    assert _refused_step(hello) == ("the sandbox could not be built (seccomp): the kernel refused the filter "
                                    "(Invalid argument); to enable it: run on a kernel with seccomp")
    assert _refused_step({"id": 0, "ok": True, "value": {}}) is None
    assert _refused_step({"id": 3, "ok": False, "kind": "error", "message": "x"}) is None


def test_a_worker_that_cannot_filter_refuses_to_serve(tmp_path):
    """worker.serve on an architecture the filter does not know: the hello is the refusal."""
    code = textwrap.dedent("""
        import os, sys
        from quizforge.grading.sandbox_inside import protocol, seccomp, worker
        seccomp.machine = lambda: "sparc64"
        read, write = os.pipe()
        if write != worker.REPLY_FD:
            os.dup2(write, worker.REPLY_FD)
            os.close(write)
        pid = os.fork()
        if pid == 0:
            worker.serve(sys.argv[1], {}, 0.0)
        _, status = os.waitpid(pid, 0)
        os.close(worker.REPLY_FD)
        print(os.waitstatus_to_exitcode(status), protocol.read_frame(read))
    """)
    path = write_submission(tmp_path, "raise SystemExit('never imported')\n")
    env = {"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120,
                          env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    status, reply = done.stdout.strip().split(" ", 1)
    assert status == "111"
    assert "'step': 'seccomp'" in reply and "sparc64" in reply and "'ok': False" in reply


def test_only_a_refused_thread_or_process_gets_the_one_thread_message():
    from quizforge.grading.sandbox_inside.worker import _refused_by_the_filter

    def raised(error):
        try:
            raise error
        except BaseException as exc:  # noqa: BLE001
            return exc

    assert _refused_by_the_filter(raised(RuntimeError("can't start new thread"))) == ONE_THREAD
    assert _refused_by_the_filter(raised(PermissionError(1, "Operation not permitted", "/etc/x"))) is None
    assert _refused_by_the_filter(raised(PermissionError(13, "Permission denied"))) is None
    assert _refused_by_the_filter(raised(RuntimeError("something else"))) is None
