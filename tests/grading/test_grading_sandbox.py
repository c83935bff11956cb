"""The sandbox around the worker: privileges, network, processes, the file system it
sees, and the handles on objects that live in the worker.

One probe submission, graded once against the test-only `probe` challenge, tries each
attack in its own test; a failed test there means the sandbox stopped the attempt.
Where this machine cannot build the sandbox, the probe asserts that grading refuses
(and the tests that read its results have nothing more to check): no quiet skips.
"""

import os
import socket
import sys
import uuid
from pathlib import Path

import pytest
import torch

from grading_support import (FIXTURES, NO_SANDBOX, fixture_challenge, is_root, namespaces_available, outcomes,
                             grade_unchecked, processes_with, write_submission)
from quizforge.grading.grade import grade
from quizforge.grading.judge.limits import Limits
from quizforge.grading.judge.request_submission import SubmissionError
from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission
from quizforge.grading.sandbox_host.sandbox import SandboxError, SandboxPolicy, descendants
from quizforge.grading.sandbox_inside.worker import NO_SOCKETS

REPO = Path(__file__).resolve().parents[2]
NAMESPACES = namespaces_available()

PROBE = '''
import os
import signal
import socket
import subprocess
import sys

PORT, JUDGE, MARKER = {port}, {judge}, {marker!r}
SUITE, SOLUTION, REPO, HOME = {suite!r}, {solution!r}, {repo!r}, {home!r}


def spawn_detached():
    sleeper = [sys.executable, "-c", "import time; time.sleep(1000)", MARKER]
    if os.fork() == 0:               # double fork, new session: not a child of the worker any more
        try:
            os.setsid()
            if os.fork() == 0:
                os.execv(sys.executable, sleeper)
        finally:
            os._exit(0)
    subprocess.Popen(sleeper, start_new_session=True)


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
    elif action == "read_home":
        open(os.path.join(HOME, ".ssh", "id_rsa")).read()
    elif action == "import_reference":
        sys.path.append(os.path.dirname(REPO))
        sys.path.append(REPO)
        reference = os.path.join(REPO, "quizforge", "reference", "attention.py")
        # What matters is the reference's names or bytes, not the name "quizforge": a clone in a
        # folder called quizforge, with the venv inside it, shows up as an empty namespace package.
        found = [name for name in sys.modules if name.startswith(("quizforge.reference", "quizforge.challenges"))]
        importer = __builtins__["__import__"] if isinstance(__builtins__, dict) else __builtins__.__import__
        for attempt_import in (lambda: importer("quizforge.reference.attention"),
                               lambda: importer("quizforge.challenges.checks"),
                               lambda: exec(open(reference).read(), {{}})):
            try:
                attempt_import()
                found.append("imported")
            except (ImportError, OSError):
                pass
        if found:
            return "done"
        raise RuntimeError("not found")
    elif action == "look":
        repo = sorted(os.listdir(REPO)) if os.path.isdir(REPO) else None
        raise RuntimeError(f"root={{sorted(os.listdir('/'))}} repo={{repo}}")
    elif action == "whoami":
        raise RuntimeError(f"uid={{os.getuid()}} groups={{os.getgroups()}} ppid={{os.getppid()}} "
                           f"home={{os.environ.get('HOME')}} cwd={{os.getcwd()}} files={{sorted(os.listdir('.'))}}")
    return "done"
'''


def grade_probe(folder: Path, home: Path) -> dict:
    """Grade the probe submission; its results and what the host saw meanwhile."""
    marker = f"quizforge-probe-{uuid.uuid4().hex[:12]}"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.setblocking(False)
    solution = REPO / "solutions" / "softmax.py"
    source = PROBE.format(port=listener.getsockname()[1], judge=os.getpid(), marker=marker,
                          suite=str(REPO / "exercises" / "softmax" / "meta"), solution=str(solution), repo=str(REPO), home=str(home))
    path = write_submission(folder, source)
    result = grade_unchecked(path, fixture_challenge("probe"))
    try:
        listener.accept()
        connected = True
    except BlockingIOError:
        connected = False
    listener.close()
    leftovers = processes_with(marker)
    for pid in leftovers:  # only if a test below fails
        os.kill(pid, 9)
    return {"result": outcomes(result), "connected": connected, "leftovers": leftovers, "marker": marker,
            "sandbox": result.sandbox}


def fake_home(folder: Path) -> Path:
    """A home folder with a private key in it, as a student's or a TA's would have."""
    (folder / ".ssh").mkdir(parents=True)
    (folder / ".ssh" / "id_rsa").write_text("PRIVATE KEY")
    return folder


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    home = fake_home(tmp_path_factory.mktemp("home"))
    if not NAMESPACES:
        # No quiet skip: without namespaces, grading must refuse and say which step failed.
        with pytest.raises(SandboxError, match="namespaces"):
            grade_probe(tmp_path_factory.mktemp("probe"), home)
        yield None
        return
    found = grade_probe(tmp_path_factory.mktemp("probe"), home)
    yield found
    for leftover in (Path("/tmp") / found["marker"], Path("/root") / found["marker"], REPO / found["marker"]):
        leftover.unlink(missing_ok=True)


def status(probe, action):
    return probe["result"][f"test_attempt[{action}]"]


def test_the_probe_was_graded_to_the_end(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    assert len(probe["result"]) == 15
    assert status(probe, "whoami")[0] == "failed" and "uid=" in status(probe, "whoami")[1]
    assert probe["sandbox"]["mode"] == "isolated"


def worker_uid(probe) -> int:
    return int(status(probe, "whoami")[1].split("uid=")[1].split()[0])


def test_the_worker_runs_as_an_unprivileged_uid_with_no_groups(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    assert worker_uid(probe) != 0 and worker_uid(probe) != os.getuid() or not is_root()
    if is_root():
        assert worker_uid(probe) >= 1_500_000_000 and probe["sandbox"]["uid"] == worker_uid(probe)
    assert "groups=[]" in status(probe, "whoami")[1]


def test_the_host_file_system_is_not_there(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    for action in ("read_shadow", "list_hidden_suite", "read_solution", "read_home"):
        state, message = status(probe, action)
        assert state == "failed" and message.startswith("FileNotFoundError"), (action, message)
    look = status(probe, "look")[1]
    root = eval(look.split("root=")[1].split(" repo=")[0])  # noqa: S307 - our own probe's list literal
    assert "home" not in root and "quizforge-sandbox" in root and "etc" in root
    assert set(root) <= {"bin", "sbin", "lib", "lib32", "lib64", "libx32", "usr", "etc", "dev", "proc", "sys", "tmp",
                         "quizforge-sandbox", *(Path(p).parts[1] for p in probe["sandbox"]["visible"])}
    # At most the path down to the venv's packages, when the venv lives in the checkout.
    repo = look.split("repo=")[1].split(" (line")[0]
    venv = Path(sys.prefix).relative_to(REPO).parts[0] if Path(sys.prefix).is_relative_to(REPO) else None
    assert repo in ("None", "[]", f"[{venv!r}]"), repo


def test_the_reference_cannot_be_imported_or_read_whatever_the_spelling(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    line = PROBE.lstrip().splitlines().index('        raise RuntimeError("not found")') + 1
    assert status(probe, "import_reference") == ("failed", f"RuntimeError: not found (line {line})")


def test_nothing_can_be_written_outside_the_scratch_folder_and_tmp(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    # A checkout under /tmp sits in the sandbox's own private /tmp, where writing is allowed and
    # reaches nothing of the host's: what matters is below, that the host's folders are unchanged.
    actions = ("write_root",) if REPO.is_relative_to("/tmp") else ("write_root", "write_repo")
    for action in actions:
        state, message = status(probe, action)
        assert state == "failed" and ("Read-only file system" in message or "No such file" in message), action
    assert not (Path("/root") / probe["marker"]).exists()
    assert not (REPO / probe["marker"]).exists()


def test_home_and_cwd_are_the_scratch_folder_holding_only_the_submission(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    message = status(probe, "whoami")[1]
    home = message.split("home=")[1].split()[0]
    cwd = message.split("cwd=")[1].split()[0]
    assert home == cwd == "/quizforge-sandbox/work"
    assert "files=['submission.py']" in message


def test_files_written_to_tmp_stay_in_the_sandbox(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    assert status(probe, "write_tmp") == ("passed", "")  # its own private /tmp
    assert not (Path("/tmp") / probe["marker"]).exists()


def test_connecting_to_a_local_port_fails(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    state, message = status(probe, "connect")
    # The seccomp filter refuses the socket itself, before the network namespace (no route) could.
    assert state == "failed" and NO_SOCKETS in message
    assert not probe["connected"]


def test_the_judge_survives_its_worker_trying_to_kill_it(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    # Still here to assert, and the worker's later tests were graded.
    assert status(probe, "kill_judge")[0] == "failed"  # no such process in its PID namespace
    assert status(probe, "read_home")[0] == "failed"  # graded after both attempts


def test_detached_children_do_not_outlive_grading(probe):
    if probe is None:
        pytest.skip(NO_SANDBOX)
    state, message = status(probe, "spawn_detached")  # the seccomp filter refuses the fork
    assert state == "failed" and "this challenge runs in one thread" in message
    assert probe["leftovers"] == []


def test_unsafe_mode_still_refuses_children_and_leaves_none(tmp_path):
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
    result = grade(path, fixture_challenge("double"), policy=SandboxPolicy(isolated=False), static_check=False)
    assert result.sandbox["mode"] == "unsafe"
    # The seccomp filter holds there too: the fork at import is refused, so nothing is graded.
    assert result.sandbox["seccomp"]["held"] and "clone" in result.sandbox["seccomp"]["refused"]
    assert result.score == 0
    assert all("this challenge runs in one thread" in t.message for t in result.tests)
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


@pytest.mark.parametrize("isolated", [True, False], ids=["isolated", "unsafe"])
def test_closing_leaves_no_process_and_no_scratch_folder(isolated):
    if isolated and not NAMESPACES:
        with pytest.raises(SandboxError):
            IsolatedSubmission(b"x = 1\n", Limits(call_seconds=5)).start()
        pytest.skip(NO_SANDBOX)
    submission = IsolatedSubmission(b"def nothing():\n    return None\n", Limits(call_seconds=5),
                                    policy=SandboxPolicy(isolated=isolated))
    submission.start()
    sandbox = submission._sandbox
    tree = [sandbox.proc.pid, *descendants(sandbox.proc.pid)]
    assert submission.call("nothing") is None
    assert len(tree) >= 2
    # Isolated, nothing of the sandbox is on the host's disk; unsafe, one folder until closed.
    base = sandbox.base
    assert (base is None) if isolated else Path(base).is_dir()
    submission.close()
    for pid in tree:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    assert base is None or not Path(base).exists()

