"""The sandbox around the worker: privileges, network, processes, hidden files, and the
handles on objects that live in the worker.

One probe submission, graded once against the test-only `probe` challenge, tries each
attack in its own test; a failed test there means the sandbox stopped the attempt.
"""

import os
import socket
import uuid
from pathlib import Path

import pytest
import torch

from grading_support import (FIXTURES, fixture_challenge, is_root, namespaces_available, outcomes,
                             processes_with, uid_can_be_dropped, write_submission)
from quizforge.grading.grade import grade
from quizforge.grading.isolated import IsolatedSubmission
from quizforge.grading.limits import Limits
from quizforge.grading.sandbox import SandboxPolicy, descendants
from quizforge.grading.submission import SubmissionError

REPO = Path(__file__).resolve().parent.parent
NAMESPACES = namespaces_available()
needs_namespaces = pytest.mark.skipif(not NAMESPACES, reason="this machine does not allow the namespaces")

PROBE = '''
import os
import signal
import socket
import subprocess
import sys

PORT, JUDGE, MARKER = {port}, {judge}, {marker!r}
SUITE, SOLUTION, REPO = {suite!r}, {solution!r}, {repo!r}


def spawn_detached():
    if os.fork() == 0:               # double fork, new session: not a child of the worker any more
        os.setsid()
        if os.fork() == 0:
            os.execv("/bin/sleep", ["sleep", "1000." + MARKER])
        os._exit(0)
    subprocess.Popen(["sleep", "2000." + MARKER], start_new_session=True)


def attempt(action):
    if action == "read_shadow":
        open("/etc/shadow").read()
    elif action == "write_root":
        open("/root/" + MARKER, "w").write("x")
    elif action == "write_repo":
        open(os.path.join(REPO, MARKER), "w").write("x")
    elif action == "write_tmp":
        open("/tmp/" + MARKER, "w").write("x")
    elif action == "connect":
        socket.create_connection(("127.0.0.1", PORT), timeout=3).close()
    elif action == "kill_parent":
        os.kill(os.getppid(), signal.SIGKILL)
    elif action == "kill_judge":
        os.kill(JUDGE, signal.SIGKILL)
    elif action == "signal_everyone":
        os.kill(-1, signal.SIGKILL)
    elif action == "list_hidden_suite":
        os.listdir(SUITE)
    elif action == "read_solution":
        open(SOLUTION).read()
    elif action == "spawn_detached":
        spawn_detached()
    elif action == "whoami":
        raise RuntimeError(f"uid={{os.getuid()}} groups={{os.getgroups()}} ppid={{os.getppid()}} "
                           f"home={{os.environ.get('HOME')}} cwd={{os.getcwd()}} files={{sorted(os.listdir('.'))}}")
    return "done"
'''


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    """Grade the probe once; hand the tests its results and what the host saw meanwhile."""
    if not (NAMESPACES or uid_can_be_dropped()):
        pytest.skip("without namespaces, and with no other uid able to run the interpreter, the worker "
                    "keeps the judge's uid: the probe's attacks on the judge would succeed")
    marker = f"quizforge-probe-{uuid.uuid4().hex[:12]}"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    solution = REPO / "solutions" / "softmax.py"
    source = PROBE.format(port=listener.getsockname()[1], judge=os.getpid(), marker=marker,
                          suite=str(FIXTURES / "probe"), solution=str(solution), repo=str(REPO))
    path = write_submission(tmp_path_factory.mktemp("probe"), source)
    result = grade(path, fixture_challenge("probe"))
    try:
        listener.accept()
        connected = True
    except BlockingIOError:
        connected = False
    listener.close()
    leftovers = processes_with(marker)
    yield {"result": outcomes(result), "connected": connected, "leftovers": leftovers, "marker": marker}
    for pid in leftovers:  # only if the test below failed
        os.kill(pid, 9)
    for leftover in (Path("/tmp") / marker, Path("/root") / marker, REPO / marker):
        leftover.unlink(missing_ok=True)


def status(probe, action):
    return probe["result"][f"test_attempt[{action}]"]


def test_the_probe_was_graded_to_the_end(probe):
    assert len(probe["result"]) == 12
    assert status(probe, "whoami")[0] == "failed" and "uid=" in status(probe, "whoami")[1]


def worker_uid(probe) -> int:
    return int(status(probe, "whoami")[1].split("uid=")[1].split()[0])


def needs_dropped_privileges(probe) -> None:
    if not is_root():
        pytest.skip("dropping to another uid needs the judge to run as root")
    if worker_uid(probe) == 0:
        pytest.skip("the worker kept uid 0: no mount namespace to open the interpreter's folders to another uid")


def test_the_worker_runs_as_an_unprivileged_uid_with_no_groups(probe):
    needs_dropped_privileges(probe)
    assert worker_uid(probe) > 0
    assert "groups=[]" in status(probe, "whoami")[1]


def test_root_only_files_cannot_be_read(probe):
    needs_dropped_privileges(probe)
    state, message = status(probe, "read_shadow")
    assert state == "failed" and message.startswith("PermissionError: [Errno 13] Permission denied: '/etc/shadow' (line ")


def test_the_home_directory_and_the_repository_cannot_be_written(probe):
    needs_dropped_privileges(probe)
    for action in ("write_root", "write_repo"):
        state, message = status(probe, action)
        assert state == "failed" and ("Permission denied" in message or "Read-only file system" in message), action
    assert not (Path("/root") / probe["marker"]).exists()
    assert not (REPO / probe["marker"]).exists()


def test_home_and_cwd_are_the_scratch_folder_holding_only_the_submission(probe):
    message = status(probe, "whoami")[1]
    home = message.split("home=")[1].split()[0]
    cwd = message.split("cwd=")[1].split()[0]
    assert home == cwd and "quizforge-grade-" in cwd
    assert "files=['submission.py']" in message
    assert not Path(cwd).exists()  # removed after grading


@needs_namespaces
def test_files_written_to_tmp_stay_in_the_sandbox(probe):
    assert status(probe, "write_tmp") == ("passed", "")  # its own private /tmp
    assert not (Path("/tmp") / probe["marker"]).exists()


@needs_namespaces
def test_connecting_to_a_local_port_fails(probe):
    state, message = status(probe, "connect")
    assert state == "failed" and "Network is unreachable" in message
    assert not probe["connected"]


def test_the_judge_survives_its_worker_trying_to_kill_it(probe):
    # Still here to assert, and the worker's later tests were graded.
    assert status(probe, "kill_judge")[0] == "failed"  # no such process in its PID namespace, or not permitted
    assert status(probe, "spawn_detached") == ("passed", "")  # graded after both attempts


@needs_namespaces
def test_the_hidden_suite_and_the_solutions_are_out_of_sight(probe):
    for action in ("list_hidden_suite", "read_solution"):
        state, message = status(probe, action)
        assert state == "failed" and "Permission denied" in message, (action, message)


def test_detached_children_do_not_outlive_grading(probe):
    assert status(probe, "spawn_detached") == ("passed", "")
    assert probe["leftovers"] == []


def test_without_namespaces_the_subreaper_still_kills_detached_children(tmp_path):
    marker = f"quizforge-orphan-{uuid.uuid4().hex[:12]}"
    path = write_submission(tmp_path, f"""
        import os
        import subprocess

        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["sleep", "3000.{marker}"])
            os._exit(0)

        def double(x):
            subprocess.Popen(["sleep", "4000.{marker}"], start_new_session=True)
            return x * 2
    """)
    result = grade(path, fixture_challenge("double"), policy=SandboxPolicy(namespaces=False))
    assert result.score == 6
    leftovers = processes_with(marker)
    for pid in leftovers:
        os.kill(pid, 9)
    assert leftovers == []


def test_objects_live_in_the_worker_and_die_with_it(tmp_path):
    source = b'''
import os
import torch

class Scale(torch.nn.Module):
    def __init__(self, n):
        super().__init__()
        self.proj = torch.nn.Linear(n, n, bias=False)
        self.eps = 1e-5
        self.label = "scale"

    def forward(self, x):
        return self.proj(x) * 2

def die():
    os._exit(7)
'''
    submission = IsolatedSubmission(source, Limits(call_seconds=10))
    try:
        scale = submission.new("Scale", 3)
        assert scale.parameter_shapes() == {"proj.weight": [3, 3]}
        assert scale.submodule_types() == {"proj": "torch.nn.modules.linear.Linear"}
        assert scale.attribute("eps") == 1e-5 and scale.attribute("label") == "scale"
        with pytest.raises(SubmissionError) as missing:
            scale.attribute("nope")
        assert missing.value.kind == "missing"
        weight = torch.eye(3)
        scale.load_state_dict({"proj.weight": weight})
        assert torch.equal(scale.state_dict()["proj.weight"], weight)
        x = torch.arange(6.0).reshape(2, 3)
        assert torch.equal(scale(x), 2 * x)
        grads = scale.backward([x], torch.ones(2, 3))
        assert torch.equal(grads["inputs"][0], torch.full((2, 3), 2.0))
        assert torch.equal(grads["params"]["proj.weight"], 2 * torch.ones(2, 3).T @ x)
        assert submission.has("Scale") and not submission.has("Nope")
        with pytest.raises(SubmissionError) as crash:
            submission.call("die")
        assert crash.value.kind == "crash" and "exited (status 7)" in crash.value.message
        with pytest.raises(SubmissionError) as stale:
            scale(x)
        assert stale.value.kind == "crash" and "restarted" in stale.value.message
        fresh = submission.new("Scale", 2)  # a new worker, started on demand
        assert fresh.parameter_shapes() == {"proj.weight": [2, 2]}
        assert submission.starts == 2
    finally:
        submission.close()


def test_closing_leaves_no_process_and_no_scratch_folder():
    submission = IsolatedSubmission(b"def nothing():\n    return None\n", Limits(call_seconds=5))
    submission.start()
    sandbox = submission._sandbox
    tree = [sandbox.proc.pid, *descendants(sandbox.proc.pid)]
    scratch = Path(sandbox.scratch)
    assert submission.call("nothing") is None
    assert len(tree) >= 2 and scratch.is_dir()
    submission.close()
    for pid in tree:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert not scratch.exists()
