"""A memory cgroup per worker where cgroup v2 is delegated (quizforge/grading/sandbox_host/memory_cgroup.py).

Where this machine has none (cgroup v1 or hybrid, a container), grading falls back to
rlimit + no memfd + sized tmpfs, and the sandbox info says so. The search for a delegated
folder and the cleanup of stale cgroups are tested on fake cgroup trees; how the launcher and
the zygote's init get into a cgroup, with a stand-in cgroup; the kernel's own enforcement only
where a real delegated cgroup2 exists.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from grading_support import namespaces_available, write_submission
from quizforge.grading.grade import grade
from quizforge.grading.judge.limits import Limits
from quizforge.grading.judge.request_submission import SubmissionError
from quizforge.grading.sandbox_host import memory_cgroup
from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission
from quizforge.grading.sandbox_host.memory_cgroup import MemoryCgroup, find_parent, remove_stale
from quizforge.grading.sandbox_host.sandbox import SandboxError
from quizforge.grading.sandbox_host.zygote_control import Zygote

NAMESPACES = namespaces_available()
needs_sandbox = pytest.mark.skipif(not NAMESPACES, reason="no namespaces here: grading refuses (test_grading_trust)")
SOFTMAX = "import torch\n\ndef softmax(x, dim=-1):\n    e = (x - x.amax(dim, keepdim=True)).exp()\n" \
          "    return e / e.sum(dim, keepdim=True)\n"


def _tree(root: Path, folders: dict[str, tuple[str, str]]) -> None:
    """Fake cgroup folders: relative path -> (cgroup.controllers, cgroup.subtree_control)."""
    for rel, (controllers, subtree) in folders.items():
        folder = root / rel
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "cgroup.controllers").write_text(controllers)
        (folder / "cgroup.subtree_control").write_text(subtree)


def _mountinfo(root: Path) -> str:
    return (f"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
            f"41 31 0:38 / {root} rw,relatime - cgroup2 cgroup2 rw\n")


def test_the_nearest_delegated_ancestor_is_chosen(tmp_path):
    _tree(tmp_path, {".": ("cpu memory pids", "cpu memory pids"),
                     "user.slice": ("memory pids", "memory pids"),
                     "user.slice/app": ("memory pids", ""),
                     "user.slice/app/term.scope": ("", "")})
    parent = find_parent(_mountinfo(tmp_path), "0::/user.slice/app/term.scope\n")
    # app offers memory and, with no processes of its own here, hands it down when asked.
    assert parent == tmp_path / "user.slice" / "app"
    assert (parent / "cgroup.subtree_control").read_text() == "+memory"


def test_a_folder_without_the_memory_controller_is_passed_over(tmp_path):
    _tree(tmp_path, {".": ("cpu memory", "cpu memory"), "a": ("cpu", "cpu"), "a/b": ("cpu", "")})
    assert find_parent(_mountinfo(tmp_path), "0::/a/b\n") == tmp_path


def test_no_cgroup2_mount_or_no_memory_anywhere_means_the_fallback(tmp_path):
    _tree(tmp_path, {".": ("cpu pids", "cpu pids"), "a": ("cpu", "")})
    assert find_parent(_mountinfo(tmp_path), "0::/a\n") is None
    assert find_parent("31 23 0:28 / /sys/fs/cgroup rw - tmpfs tmpfs rw\n", "0::/a\n") is None
    assert find_parent(_mountinfo(tmp_path), "4:memory:/x\n") is None  # v1 only
    assert find_parent(_mountinfo(tmp_path), "0::/../../etc\n") is None


def test_stale_cgroups_of_dead_judges_are_removed(tmp_path):
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead_pid = int(gone.stdout)
    stale = tmp_path / f"quizforge-{dead_pid}-1-abcd"
    ours = tmp_path / f"quizforge-{os.getpid()}-1-abcd"
    other = tmp_path / "someone-else"
    for folder in (stale, ours, other):
        folder.mkdir()
    remove_stale(tmp_path)
    assert not stale.exists() and ours.exists() and other.exists()


class StandInCgroup(MemoryCgroup):
    """A folder standing in for a cgroup: what was moved in is recorded, nothing is enforced."""
    made: list["StandInCgroup"] = []
    refuse = False

    def __init__(self, path: Path):
        super().__init__(path)
        self.moved: list[int] = []
        (path / "cgroup.procs").write_text("")
        StandInCgroup.made.append(self)

    def add(self, pid: int) -> None:
        if StandInCgroup.refuse:
            raise PermissionError(13, "Permission denied")
        self.moved.append(pid)

    def remove(self, wait: float = 2.0) -> None:
        shutil.rmtree(self.path, ignore_errors=True)


@pytest.fixture
def stand_in(tmp_path, monkeypatch):
    folder = tmp_path / "cgroups"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    counter = iter(range(1, 1000))
    StandInCgroup.made, StandInCgroup.refuse = [], False

    def create(cls, limit, parent=None):
        path = folder / f"quizforge-{os.getpid()}-{next(counter)}"
        path.mkdir()
        path.chmod(0o777)
        return StandInCgroup(path)

    monkeypatch.setattr(MemoryCgroup, "create", classmethod(create))
    return StandInCgroup


@needs_sandbox
def test_the_launcher_joins_its_cgroup_before_anything_forks_and_the_cgroup_goes_with_the_worker(tmp_path, stand_in):
    result = grade(write_submission(tmp_path, SOFTMAX), "softmax")
    assert result.score == result.max_score
    assert result.sandbox["memory"] == memory_cgroup.CGROUP
    (cgroup,) = stand_in.made
    # A real cgroup.procs would have moved the writer; the stand-in keeps what the launcher wrote.
    assert not cgroup.path.exists()  # removed with the worker


@needs_sandbox
def test_the_launcher_writes_0_into_cgroup_procs(tmp_path, stand_in, monkeypatch):
    kept = []
    monkeypatch.setattr(StandInCgroup, "remove", lambda self, wait=2.0: kept.append(self.path))
    grade(write_submission(tmp_path, SOFTMAX), "softmax")
    assert [(p / "cgroup.procs").read_text() for p in kept] == ["0"]


@needs_sandbox
def test_a_forked_worker_waits_until_the_judge_has_moved_its_init(tmp_path, stand_in):
    zygote = Zygote(Limits())
    zygote.start()
    try:
        submission = IsolatedSubmission(SOFTMAX.encode(), Limits(call_seconds=10), zygote=zygote)
        try:
            submission.start()
            init = submission._sandbox._init_pid
            assert submission.info.memory == memory_cgroup.CGROUP
        finally:
            submission.close()
        (cgroup,) = stand_in.made
        assert cgroup.moved == [init]
        assert not cgroup.path.exists()

        stand_in.refuse = True  # a move the kernel refuses: no worker, grading stops
        refused = IsolatedSubmission(SOFTMAX.encode(), Limits(call_seconds=10), zygote=zygote)
        try:
            with pytest.raises((SandboxError, SubmissionError), match="memory cgroup"):
                refused.start()
        finally:
            refused.close()
    finally:
        zygote.close()


@needs_sandbox
def test_the_init_forks_no_worker_before_the_go(stand_in, monkeypatch):
    import select
    import time

    from quizforge.grading.judge.output import CapturedOutput
    from quizforge.grading.sandbox_host.sandbox import descendants
    from quizforge.grading.sandbox_host.zygote_control import ForkedSandbox

    monkeypatch.setattr(ForkedSandbox, "_into_cgroup", lambda self: None)  # moved, but no go yet
    zygote = Zygote(Limits())
    zygote.start()
    sandbox = zygote.sandbox(SOFTMAX.encode(), (), Limits(), CapturedOutput())
    try:
        sandbox.launch()
        end = time.monotonic() + 10
        while sandbox._init_pid is None and time.monotonic() < end:
            select.select([sandbox._status_r], [], [], 0.1)
            sandbox._read_status()
        assert sandbox._init_pid is not None
        time.sleep(1.0)
        assert descendants(sandbox._init_pid) == []  # still waiting
        sandbox._status_sock.send(b"g")
        sandbox.wait_ready(time.monotonic() + 30)
        assert len(descendants(sandbox._init_pid)) == 1  # the worker, said hello
    finally:
        sandbox.kill()
        zygote.close()


@needs_sandbox
def test_without_a_delegated_cgroup_the_info_names_the_fallback(tmp_path, monkeypatch):
    monkeypatch.setattr(MemoryCgroup, "create", classmethod(lambda cls, limit, parent=None: None))
    result = grade(write_submission(tmp_path, SOFTMAX), "softmax")
    assert result.sandbox["memory"] == "rlimit + no memfd + sized tmpfs"


# --- the kernel's own enforcement, where a delegated cgroup2 exists -------------------------

REAL_PARENT = find_parent()


@pytest.mark.skipif(REAL_PARENT is None, reason="no delegated cgroup2 with the memory controller here")
def test_a_real_cgroup_holds_the_limit_and_is_removed():
    cgroup = MemoryCgroup.create(256 * 2**20, REAL_PARENT)
    assert cgroup is not None
    try:
        assert (cgroup.path / "memory.max").read_text().strip() == str(256 * 2**20)
        swap = cgroup.path / "memory.swap.max"
        assert not swap.exists() or swap.read_text().strip() == "0"
    finally:
        cgroup.remove()
    assert not cgroup.path.exists()


@needs_sandbox
@pytest.mark.skipif(REAL_PARENT is None, reason="no delegated cgroup2 with the memory controller here")
@pytest.mark.parametrize("forked", [False, True], ids=["launched", "forked"])
def test_shared_memory_the_rlimit_does_not_count_is_stopped_at_the_limit(tmp_path, forked):
    """A shared anonymous mapping escapes RLIMIT_DATA; the cgroup stops it at the limit."""
    source = textwrap.dedent("""
        import mmap

        def hoard():
            held = mmap.mmap(-1, 3 << 30, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
            for offset in range(0, 3 << 30, 4096):
                held[offset] = 1
            return "held"
    """).encode()
    zygote = Zygote(Limits(memory=1 << 30)) if forked else None
    if zygote is not None:
        zygote.start()
    submission = IsolatedSubmission(source, Limits(memory=1 << 30, call_seconds=60), zygote=zygote)
    try:
        submission.start()
        assert submission.info.memory == memory_cgroup.CGROUP
        with pytest.raises(SubmissionError) as stopped:
            submission.call("hoard")
        assert stopped.value.kind == "memory"
    finally:
        submission.close()
        if zygote is not None:
            zygote.close()
