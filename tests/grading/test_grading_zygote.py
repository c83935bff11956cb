"""The zygote: workers forked from one torch import, each still in a sandbox of its own.

Where this machine cannot build the sandbox, starting a zygote must refuse.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
import torch

from grading_support import NO_SANDBOX, namespaces_available
from quizforge.grading.judge.limits import Limits
from quizforge.grading.judge.request_submission import SubmissionError
from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission
from quizforge.grading.sandbox_host.sandbox import SandboxError
from quizforge.grading.sandbox_host.zygote_control import Zygote
from quizforge.grading.sandbox_inside.worker import NO_SOCKETS

REPO = Path(__file__).resolve().parents[2]

WRITER = '''
import os, sys, torch

def attempt(action):
    torch.LEFT_BEHIND = 1
    sys.modules["left_behind"] = sys
    torch.set_default_dtype(torch.float64)
    torch.manual_seed(1234)
    open("/tmp/left_behind", "w").write("x")
    open("left_behind.txt", "w").write("x")
    return "written"
'''

READER = '''
import os, sys, torch

def attempt(action):
    return repr({"torch_attribute": hasattr(torch, "LEFT_BEHIND"), "module": "left_behind" in sys.modules,
                 "dtype": str(torch.get_default_dtype()), "tmp": os.path.exists("/tmp/left_behind"),
                 "scratch": sorted(os.listdir(".")), "seed": torch.initial_seed(),
                 "uid": os.getuid(), "pid": os.getpid(), "package": os.path.exists(%r),
                 "root": sorted(os.listdir("/"))})
''' % str(REPO / "quizforge")


@pytest.fixture(scope="module")
def zygote():
    z = Zygote(Limits())
    if not namespaces_available():
        with pytest.raises(SandboxError, match="namespaces"):
            z.start()
        yield None
        return
    z.start()
    yield z
    z.close()


def run(zygote: Zygote, source: str) -> str:
    submission = IsolatedSubmission(source.encode(), Limits(call_seconds=10), zygote=zygote)
    try:
        return submission.call("attempt", "go")
    finally:
        submission.close()


def test_nothing_one_student_leaves_behind_reaches_the_next(zygote):
    if zygote is None:
        pytest.skip(NO_SANDBOX)
    assert run(zygote, WRITER) == "written"
    seen = ast.literal_eval(run(zygote, READER))
    assert seen["torch_attribute"] is False and seen["module"] is False
    assert seen["dtype"] == "torch.float32" and seen["tmp"] is False
    assert seen["scratch"] == ["submission.py"]
    assert seen["seed"] != 1234  # the zygote's own seed, not the writer's


def test_a_forked_worker_is_isolated_like_any_other(zygote):
    if zygote is None:
        pytest.skip(NO_SANDBOX)
    seen = ast.literal_eval(run(zygote, READER))
    assert seen["package"] is False and "home" not in seen["root"] and "quizforge-sandbox" in seen["root"]
    assert seen["pid"] == 2  # under the init of a PID namespace of its own
    if os.getuid() == 0:
        assert seen["uid"] >= 1_500_000_000


def test_each_worker_gets_its_own_namespaces_and_limits(zygote):
    if zygote is None:
        pytest.skip(NO_SANDBOX)
    submission = IsolatedSubmission(READER.encode(), Limits(memory=512 * 2**20, call_seconds=10), zygote=zygote)
    try:
        submission.start()
        info = submission.info
    finally:
        submission.close()
    assert set(info.namespaces) == {"user", "pid", "net", "mnt", "ipc", "uts"}
    assert dict(info.limits)["memory_bytes"] == 512 * 2**20
    assert info.visible == zygote.info.visible and info.visible


def test_a_forked_worker_can_start_nothing_and_dies_whole(zygote):
    if zygote is None:
        pytest.skip(NO_SANDBOX)
    from quizforge.grading.sandbox_host.sandbox import descendants

    source = ("import subprocess, sys\n"
              "def attempt(action):\n"
              "    subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(100)'], start_new_session=True)\n"
              "    return 'started'\n")
    submission = IsolatedSubmission(source.encode(), Limits(call_seconds=10), zygote=zygote)
    submission.start()
    with pytest.raises(SubmissionError, match="this challenge runs in one thread"):
        submission.call("attempt", "go")  # the forked worker's seccomp filter refuses the child
    init = submission._sandbox._init_pid
    tree = [init, *descendants(init)]
    assert len(tree) == 2  # the init and the worker: no sleeper
    submission.close()
    for pid in tree:
        assert not Path(f"/proc/{pid}").exists() or Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def test_the_sandbox_probe_through_a_forked_worker(zygote, tmp_path):
    """The attacks of test_grading_sandbox.py's probe, against a worker the zygote forked."""
    if zygote is None:
        pytest.skip(NO_SANDBOX)
    import socket
    import uuid

    from grading_support import FIXTURES, fixture_challenge, grade_unchecked, outcomes, processes_with
    from test_grading_sandbox import PROBE

    marker = f"quizforge-probe-{uuid.uuid4().hex[:12]}"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    source = PROBE.format(port=listener.getsockname()[1], judge=os.getpid(), marker=marker,
                          suite=str(FIXTURES / "probe" / "meta"), solution=str(REPO / "solutions" / "softmax.py"),
                          repo=str(REPO), home=str(tmp_path))
    path = tmp_path / "probe.py"
    path.write_text(source)
    found = outcomes(grade_unchecked(path, fixture_challenge("probe"), zygote=zygote))
    listener.close()
    status = {name.split("[")[1].rstrip("]"): value for name, value in found.items()}
    for action in ("read_shadow", "list_hidden_suite", "read_solution", "import_reference"):
        assert status[action][0] == "failed", (action, status[action])
    assert NO_SOCKETS in status["connect"][1]  # the filter refuses the socket before the network namespace could
    assert status["kill_judge"][0] == "failed"
    assert status["write_tmp"] == ("passed", "") and not Path(f"/tmp/{marker}").exists()
    assert status["spawn_detached"][0] == "failed" and "runs in one thread" in status["spawn_detached"][1]
    assert processes_with(marker) == []


LAZY_IMPORTER = """
import importlib, os, sys

def attempt(action):
    missing = [p for p in sys.path if not os.path.exists(p)]
    importlib.import_module("torch.fx.experimental.symbolic_shapes")   # imported lazily, from disk, now
    return str(missing)
"""


def test_a_forked_worker_still_sees_its_python_path_and_imports_lazily(zygote):
    """Each worker gets a fresh /tmp. A clone under /tmp with its venv inside (the natural
    place) has torch bound under /tmp: the fresh tmpfs must keep those binds, or every lazy
    import of a torch submodule fails after the fork."""
    if zygote is None:
        pytest.skip(NO_SANDBOX)
    assert run(zygote, LAZY_IMPORTER) == "[]"
