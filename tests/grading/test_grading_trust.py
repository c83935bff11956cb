"""The grader cannot be cheated: it fails closed, the worker cannot see the answer key, the
sandbox dies with its judge, and every real challenge is graded through the real sandbox.

Where this machine cannot build the sandbox, each test asserts that `quiz grade` refuses.
"""

from __future__ import annotations

import ast
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from grading_support import NO_SANDBOX, grade_unchecked, namespaces_available, write_submission
from signal_support import sigint_as_usual
from quizforge.challenges import challenge_ids, load_challenge
from quizforge.grading.grade import grade
from quizforge.grading.sandbox_host import sandbox as sandbox_module
from quizforge.grading.sandbox_host.sandbox import SandboxError, descendants

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "quizforge"
SANDBOXED = PACKAGE / "grading" / "sandbox_inside"
NAMESPACES = namespaces_available()
# Every challenge, found from its folder: each one's solution and first planted bug go through the sandbox.
CHALLENGES = challenge_ids()


def quiz(*args: str, timeout: float = 120, **kwargs) -> subprocess.CompletedProcess:
    """`quiz` as a user runs it: a separate process."""
    return subprocess.run([sys.executable, "-m", "quizforge", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=REPO, **kwargs)


def assert_refuses(path: Path, challenge: str = "softmax") -> None:
    """Without namespaces, `quiz grade` exits 1 with one line naming the step."""
    done = quiz("grade", str(path), "--challenge", challenge)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith("error: nothing was graded: the sandbox could not be built (namespaces)")
    assert len(done.stderr.strip().splitlines()) == 1


# --- the worker's own modules --------------------------------------------------------------

def test_the_worker_modules_import_only_the_standard_library_and_torch():
    modules = sandbox_module.worker_modules()
    # Its own folder, and the model descriptions the hidden suites import too (one file, both sides).
    assert modules == {**{p.name: str(p) for p in SANDBOXED.glob("*.py")},
                       "models.py": str(PACKAGE / "challenges" / "models.py")}
    allowed = set(sys.stdlib_module_names) | {"torch"}
    stems = {name.removesuffix(".py") for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(Path(path).read_text())):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level:
                # A relative import must find a module the worker holds, wherever the file came from.
                assert node.level == 1, (name, node.module)
                found = {node.module} if node.module else {a.name for a in node.names}
                assert found <= stems, (name, found)
                continue
            elif isinstance(node, ast.ImportFrom):
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert roots <= allowed, (name, roots)


def test_the_worker_file_system_holds_torch_but_nothing_of_quizforge():
    files = sandbox_module.worker_file_system()
    names = {Path(p).name.split("-")[0] for p in files["packages"]}
    assert {"torch", "numpy", "sympy"} <= names
    assert not names & {"quizforge", "pytest", "_pytest", "rich", "click"}
    for path in [*files["binds"], *files["packages"], *files["python_path"]]:
        assert not Path(path).is_relative_to(PACKAGE) and not Path(path).is_relative_to(REPO / "tests"), path


# --- the exploits from the report, end to end ------------------------------------------------

@pytest.mark.parametrize("source", [
    "from quizforge.reference.attention import scaled_dot_product_attention\n",
    "import torch\n\ndef softmax(x, dim=-1):\n    return torch.ops.aten.__getattr__('_soft' + 'max')(x, dim, False)\n",
    "def softmax(x, dim=-1):\n    return globals()['__buil' + 'tins__']['ev' + 'al']('x.softmax(dim)')\n",
])
def test_the_reported_exploits_score_nothing(tmp_path, source):
    path = write_submission(tmp_path, source)
    result = grade(path, "softmax")
    assert result.score == 0 and result.max_score == 28


@pytest.mark.parametrize("source", [
    # Every spelling of "use the reference", past the static check: nothing to import or read.
    "import quizforge.reference.attention as ref\n{fn}",
    "ref = __import__('quizforge.reference.attention', fromlist=['x'])\n{fn}",
    "import importlib\nref = importlib.import_module('quizforge.reference.attention')\n{fn}",
    "import sys\nsys.path[:0] = [{repo!r}, {site!r}]\nimport quizforge.reference.attention as ref\n{fn}",
    "ns = {{}}\nexec(open({file!r}).read(), ns)\nclass ref:\n    scaled_dot_product_attention = ns['scaled_dot_product_attention']\n{fn}",
])
def test_the_reference_is_not_in_the_sandbox_whatever_the_spelling(tmp_path, source):
    fn = ("def scaled_dot_product_attention(Q, K, V, mask=None):\n"
          "    return ref.scaled_dot_product_attention(Q, K, V, mask)\n")
    text = source.format(fn=fn, repo=str(REPO), site=str(Path(sys.prefix) / "lib"),
                         file=str(PACKAGE / "reference" / "attention.py"))
    path = write_submission(tmp_path, text)
    challenge = load_challenge("scaled_dot_product_attention")
    if not NAMESPACES:
        with pytest.raises(SandboxError):
            grade_unchecked(path, challenge)
        pytest.skip(NO_SANDBOX)
    result = grade_unchecked(path, challenge)
    assert result.score == 0
    assert all("could not be imported" in t.message for t in result.tests)
    assert any(word in result.tests[0].message for word in ("ModuleNotFoundError", "FileNotFoundError"))


def test_the_judge_reads_nothing_the_submission_can_write(tmp_path):
    """The rewrite of grading/exports/results.py that once turned `return x` into 28/28: the package is not
    there to write to, and the CLI has loaded what reports the result before anything runs
    (the table's module, cli/grade_view.py, included)."""
    target, view = PACKAGE / "grading" / "exports" / "results.py", PACKAGE / "cli" / "grade_view.py"
    before, view_before = target.read_bytes(), view.read_bytes()
    path = write_submission(tmp_path, f"""
        import os
        for name in ({str(target)!r}, {str(PACKAGE / "grading" / "judge" / "hidden_suite.py")!r}, {str(view)!r}):
            try:
                with open(name, "w") as f:
                    f.write("def gradescope(result, visibility=None):\\n    return {{'score': 28}}\\n")
            except OSError:
                pass

        def softmax(x, dim=-1):
            return x
    """)
    done = quiz("grade", str(path), "--challenge", "softmax", "--format", "json")
    if not NAMESPACES:
        assert done.returncode == 1
        pytest.skip(NO_SANDBOX)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["score"] < 28
    assert target.read_bytes() == before and view.read_bytes() == view_before
    table = quiz("grade", str(path), "--challenge", "softmax")
    assert table.returncode == 0, table.stderr
    assert "/28" in table.stdout and "28/28" not in table.stdout
    assert view.read_bytes() == view_before


# --- failing closed ----------------------------------------------------------------------

def _broken(**changes):
    """Sandbox._config with one isolation step made impossible."""
    original = sandbox_module.Sandbox._config

    def config(self):
        cfg, fds = original(self)
        cfg.update(changes)
        return cfg, fds

    return config


@pytest.mark.parametrize("changes, step", [
    ({"memory_bytes": -5}, "limits"),
    ({"uid": 0} if os.getuid() == 0 else {"python_path": ["/nonexistent"]}, "privileges"),
    ({"worker_files": {"worker.py": "/nonexistent/sandbox_inside/worker.py"}}, "starting the sandbox"),
], ids=["limits", "privileges", "worker-modules-missing"])
def test_a_failed_isolation_step_refuses_to_grade_in_one_line(run_quiz, tmp_path, monkeypatch, changes, step):
    if step == "privileges" and os.getuid() != 0:
        pytest.skip("the uid switch is a root-mode step; a non-root worker keeps the caller's own uid")
    path = write_submission(tmp_path, "def softmax(x, dim=-1):\n    return x\n")
    monkeypatch.setattr(sandbox_module.Sandbox, "_config", _broken(**changes))
    for fmt in ("table", "json", "junit"):
        code, out, err = run_quiz("grade", str(path), "--challenge", "softmax", "--format", fmt)
        assert code == 1 and out == ""
        expected = step if NAMESPACES else "namespaces"
        assert err.startswith(f"error: nothing was graded: the sandbox could not be built ({expected})"), err
        assert len(err.strip().splitlines()) == 1


def test_off_linux_grading_refuses_in_one_line(run_quiz, tmp_path, monkeypatch):
    path = write_submission(tmp_path, "def softmax(x, dim=-1):\n    return x\n")
    monkeypatch.setattr(sandbox_module.sys, "platform", "darwin")
    code, out, err = run_quiz("grade", str(path), "--challenge", "softmax")
    assert (code, out) == (1, "")
    assert err.startswith("error: nothing was graded: the sandbox could not be built (namespaces): "
                          "they exist on Linux only, not on darwin")
    assert len(err.strip().splitlines()) == 1


def test_without_namespaces_grading_refuses_unless_told_it_is_unsafe(tmp_path):
    path = write_submission(tmp_path, "import torch\n\ndef softmax(x, dim=-1):\n    return x\n")
    if not NAMESPACES:
        assert_refuses(path)
    done = quiz("grade", str(path), "--challenge", "softmax", "--unsafe-no-sandbox", "--format", "json")
    assert done.returncode == 0
    assert json.loads(done.stdout)["sandbox"]["mode"] == "unsafe"


# --- the sandbox dies with its judge ---------------------------------------------------------

# A submission may no longer import signal (the static check's import allow-list), so it cannot ignore SIGTERM.
HANG = "def softmax(x, dim=-1):\n    while True:\n        pass\n"


def _start_grading(path: Path, *extra: str) -> tuple[subprocess.Popen, list[int]]:
    """Start `quiz grade` on a hanging submission; return it once its worker is spinning."""
    judge = subprocess.Popen([sys.executable, "-m", "quizforge", "grade", str(path), "--challenge", "softmax", *extra],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO, text=True,
                             preexec_fn=sigint_as_usual)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        tree = descendants(judge.pid)
        busy = [pid for pid in tree if _cpu_seconds(pid) > 0.3 and _is_worker(pid)]
        if busy:
            return judge, tree
        time.sleep(0.1)
    judge.kill()
    raise AssertionError("the worker never started")


def _is_worker(pid: int) -> bool:
    try:
        return b"sandbox_inside import worker" in Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _gone_within(pids: list[int], seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    alive = pids
    while time.monotonic() < deadline:
        alive = [pid for pid in pids if Path(f"/proc/{pid}").exists() and _state(pid) != "Z"]
        if not alive:
            return []
        time.sleep(0.05)
    return alive


def _state(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return "?"


@pytest.mark.parametrize("mode", ["isolated", "unsafe"])
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM, signal.SIGINT], ids=["SIGKILL", "SIGTERM", "SIGINT"])
def test_the_sandbox_dies_with_its_judge(tmp_path, how, mode):
    path = write_submission(tmp_path, HANG)
    if mode == "isolated" and not NAMESPACES:
        assert_refuses(path)
        pytest.skip(NO_SANDBOX)
    before = set(Path(tempfile.gettempdir()).glob("quizforge-grade-*"))
    judge, tree = _start_grading(path, *(["--unsafe-no-sandbox"] if mode == "unsafe" else []))
    judge.send_signal(how)
    left = _gone_within(tree, 2.0)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == []
    code = judge.wait(10)
    if how == signal.SIGTERM:
        assert code == 143, judge.stderr.read()
    elif how == signal.SIGINT:
        assert code == 130, judge.stderr.read()
    assert _gone_within([judge.pid], 1.0) == []
    deadline = time.monotonic() + 2
    while set(Path(tempfile.gettempdir()).glob("quizforge-grade-*")) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert set(Path(tempfile.gettempdir()).glob("quizforge-grade-*")) - before == set()


# --- the real challenges through the real sandbox ----------------------------------------------

@pytest.mark.parametrize("challenge", CHALLENGES)
def test_each_solution_scores_full_marks_and_one_bug_scores_less(challenge, tmp_path):
    solution = REPO / "solutions" / f"{challenge}.py"
    bug = load_challenge(challenge).variants("bug")[0].write_to(tmp_path)
    if not NAMESPACES:
        assert_refuses(solution, challenge)
        pytest.skip(NO_SANDBOX)
    graded = grade(solution, challenge)
    assert graded.score == graded.max_score > 0, [t for t in graded.tests if t.status != "passed"]
    buggy = grade(bug, challenge)
    assert buggy.score < buggy.max_score


# --- non-root ---------------------------------------------------------------------------------

PROBE = """
import os, time

def softmax(x, dim=-1):
    e = (x - x.amax(dim=dim, keepdim=True)).exp()
    return e / e.sum(dim=dim, keepdim=True)

def look():
    found = {{"uid": os.getuid(), "root": sorted(os.listdir("/")), "home": os.path.exists({home!r}),
             "key": os.path.exists({key!r}), "repo_package": os.path.exists({package!r})}}
    count = 0
    try:  # a fork bomb: the seccomp filter refuses the first fork (RLIMIT_NPROC would stop a later one)
        while count < 3000:
            if os.fork() == 0:
                time.sleep(20)
                os._exit(0)
            count += 1
    except OSError:
        found["fork_bomb"] = f"stopped {{count}}"
    return str(found)
"""


AS_USER = r"""
import json, sys
from quizforge.grading.grade import grade
from quizforge.grading.judge.limits import Limits
from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission
result = grade(sys.argv[1], "softmax", static_check=False)  # the probe imports os and subprocess on purpose
sub = IsolatedSubmission(open(sys.argv[1], "rb").read(), Limits(memory=8 * 2**30, call_seconds=60))
try:
    sub.start()
    looked = sub.call("look")
finally:
    sub.close()
print(json.dumps({"score": result.score, "max": result.max_score, "sandbox": result.sandbox, "look": looked}))
"""


def _unprivileged_command(argv: list[str], uid: int) -> list[str]:
    """Run argv as `uid`, in a private mount namespace where the folders on the way to this
    interpreter, the venv and the checkout can be entered (tmpfs covers that keep only the way)."""
    needed = sorted({os.path.realpath(sys.executable), sys.prefix, str(REPO)})
    # Each folder the uid cannot enter, with every child on the way to something needed: one
    # cover per folder, shallowest first, so /root/.pyenv and /root/clone/.venv both stay reachable.
    keep: dict[str, set[str]] = {}
    for path in needed:
        parts = Path(path).parts
        for i in range(1, len(parts)):
            folder = str(Path(*parts[:i]))
            if not os.stat(folder).st_mode & 0o001:
                keep.setdefault(folder, set()).add(parts[i])
    script = ["set -e"]
    for n, folder in enumerate(sorted(keep, key=lambda f: len(Path(f).parts))):
        children = sorted(keep[folder])
        kept = [f"/tmp/quizforge-keep-{uid}-{n}-{i}" for i in range(len(children))]
        for child, place in zip(children, kept):
            script += [f"mkdir -p {place}", f"mount --bind {folder}/{child} {place}"]
        script.append(f"mount -t tmpfs -o mode=755 tmpfs {folder}")
        for child, place in zip(children, kept):
            script += [f"mkdir -p {folder}/{child}", f"mount --move {place} {folder}/{child}"]
    script.append('exec setpriv --reuid={0} --regid={0} --clear-groups "$@"'.format(uid))
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", "\n".join(script), "sh", *argv]


@pytest.fixture
def open_folder():
    """A temporary folder another uid can enter (pytest's own is private to its user)."""
    folder = Path(tempfile.mkdtemp(prefix="quizforge-test-"))
    folder.chmod(0o755)
    yield folder
    subprocess.run(["rm", "-rf", str(folder)], check=False)


def test_as_an_unprivileged_user_the_worker_sees_no_home_and_a_fork_bomb_is_contained(open_folder):
    tmp_path = open_folder
    if os.getuid() != 0:
        user_home = Path.home()
        uid_argv = None
    else:
        user_home = tmp_path / "home"
        uid_argv = 65534
    key = user_home / ".ssh" / "id_rsa"
    if os.getuid() == 0:
        key.parent.mkdir(parents=True)
        key.write_text("PRIVATE KEY")
        for p in (tmp_path, user_home, key.parent):
            p.chmod(0o755)
    path = write_submission(tmp_path, PROBE.format(home=str(user_home), key=str(key), package=str(PACKAGE)))
    path.chmod(0o644)
    runner = [sys.executable, "-c", AS_USER, str(path)]
    command = _unprivileged_command(runner, uid_argv) if uid_argv is not None else runner
    env = {"PATH": "/usr/bin:/bin", "HOME": str(user_home), "LANG": "C.UTF-8"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=180, env=env, cwd="/")
    if not NAMESPACES:
        assert done.returncode != 0  # grading refused (or, as root, even the wrapper's mount namespace)
        pytest.skip(NO_SANDBOX)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["score"] == report["max"] == 28
    assert "user" in report["sandbox"]["namespaces"]
    look = ast.literal_eval(report["look"])
    assert look["uid"] == (uid_argv if uid_argv is not None else os.getuid())
    assert not look["home"] and not look["key"] and not look["repo_package"]
    assert "home" not in look["root"]
    assert look["fork_bomb"] == "stopped 0"
