"""`quiz export gradescope` and `quiz export github-classroom`, and `quiz grade --fail-under`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grading_support import namespaces_available, write_submission

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    """The exported zip, unpacked as Gradescope would into ROOT/source."""
    from quizforge.challenges import load_challenge
    from quizforge.grading.exports import gradescope_zip

    root = tmp_path_factory.mktemp("autograder")
    path = gradescope_zip(load_challenge("softmax"), root / "autograder.zip")
    with zipfile.ZipFile(path) as archive:
        archive.extractall(root / "source")
        modes = {i.filename: i.external_attr >> 16 for i in archive.infolist()}
    return root, path, modes


def run_autograder(root: Path, submission: str, name: str = "softmax.py") -> dict:
    folder = root / "submission"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    (folder / name).write_text(submission)
    env = dict(os.environ, QUIZFORGE_AUTOGRADER_ROOT=str(root), QUIZFORGE_PYTHON=sys.executable)
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text())


def test_the_zip_holds_the_scripts_and_the_package(autograder):
    root, path, modes = autograder
    assert modes["setup.sh"] & 0o111 and modes["run_autograder"] & 0o111
    names = set(modes)
    assert "quizforge_src/pyproject.toml" in names
    assert "quizforge_src/quizforge/grading/sandboxed/worker.py" in names
    for name in ("README.md", "starter.py", "test_public.py", "meta/challenge.toml", "meta/test_hidden.py"):
        assert f"quizforge_src/quizforge/exercises/softmax/{name}" in names, name
    # The planted bugs and the reference solutions stay in the checkout.
    assert not any("/variants/" in n or "solutions" in n for n in names)
    assert not any("__pycache__" in n for n in names)
    setup = (root / "source" / "setup.sh").read_text()
    assert "pip install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in setup
    assert "pip install -q /autograder/source/quizforge_src" in setup
    import tomllib

    project = tomllib.loads((root / "source" / "quizforge_src" / "pyproject.toml").read_text())["project"]
    assert any(d.startswith("pytest") for d in project["dependencies"])


def test_exporting_twice_gives_the_same_bytes(autograder, tmp_path):
    from quizforge.challenges import load_challenge
    from quizforge.grading.exports import gradescope_zip

    _, path, _ = autograder
    again = gradescope_zip(load_challenge("softmax"), tmp_path / "again.zip")
    assert again.read_bytes() == path.read_bytes()


def test_run_autograder_writes_gradescope_results(autograder):
    root, _, _ = autograder
    results = run_autograder(root, (REPO / "solutions" / "softmax.py").read_text())
    if not namespaces_available():
        assert results["score"] == 0 and "sandbox could not be built" in results["output"]
        return
    assert results["score"] == results["max_score"] == 28
    assert results["stdout_visibility"] == "hidden" and results["sandbox"]["mode"] == "isolated"
    assert {t["visibility"] for t in results["tests"]} == {"after_due_date"}
    assert {"name", "score", "max_score", "status", "output"} <= set(results["tests"][0])


def test_run_autograder_always_writes_results(autograder):
    root, _, _ = autograder
    folder = root / "submission"
    folder.mkdir(exist_ok=True)
    for old in folder.iterdir():
        old.unlink()
    env = dict(os.environ, QUIZFORGE_AUTOGRADER_ROOT=str(root), QUIZFORGE_PYTHON=sys.executable)
    subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, check=True, timeout=300)
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["output"].startswith("No submission found")


def test_the_github_classroom_workflow_runs_quiz_grade(tmp_path, run_quiz):
    code, out, err = run_quiz("export", "github-classroom", "softmax", "-o", str(tmp_path), "--install",
                              "pip install ./quizforge")
    assert code == 0, err
    text = (tmp_path / ".github" / "workflows" / "classroom.yml").read_text()
    assert "uses: classroom-resources/autograding-command-grader@v1" in text
    assert "command: quiz grade starter.py --challenge softmax --fail-under 100" in text
    assert "max-score: 28" in text
    assert 'SOFTMAX_RESULTS: "${{steps.softmax.outputs.result}}"' in text
    assert "runners: softmax" in text
    assert "        run: |\n          pip install ./quizforge\n" in text  # the instructor's own command
    assert "\t" not in text and all(len(line) - len(line.lstrip()) in range(0, 13, 2) for line in text.splitlines())


def test_fail_under_exits_3_below_the_threshold(tmp_path):
    path = write_submission(tmp_path, "import torch\n\ndef softmax(x, dim=-1):\n    return x\n")
    done = subprocess.run([sys.executable, "-m", "quizforge", "grade", str(path), "--challenge", "softmax",
                           "--fail-under", "100", "--format", "json"], capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    assert done.returncode == (3 if namespaces_available() else 1)
    done = subprocess.run([sys.executable, "-m", "quizforge", "grade", str(REPO / "solutions" / "softmax.py"),
                           "--challenge", "softmax", "--fail-under", "100"], capture_output=True, text=True,
                          cwd=REPO, timeout=300)
    assert done.returncode == (0 if namespaces_available() else 1)


def test_the_package_copy_in_the_zip_builds_into_a_wheel(autograder, tmp_path):
    root, _, _ = autograder
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                           str(tmp_path), str(root / "source" / "quizforge_src")], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    names = set(zipfile.ZipFile(next(tmp_path.glob("quizforge-*.whl"))).namelist())
    assert "quizforge/grading/sandboxed/zygote.py" in names and "quizforge/exercises/softmax/starter.py" in names


def _install_step(workflow: str) -> list[str]:
    """The commands of the workflow's install step, read as YAML where PyYAML is installed, else
    from the text (the step's `run: |` block)."""
    try:
        import yaml
    except ImportError:
        lines = workflow.splitlines()
        start = next(i for i, line in enumerate(lines) if line.strip() == "run: |" and "Install" in lines[i - 1])
        block = []
        for line in lines[start + 1:]:
            if not line.startswith(" " * 10):
                break
            block.append(line.strip())
        return block
    steps = yaml.safe_load(workflow)["jobs"]["run-autograding-tests"]["steps"]
    return next(s["run"] for s in steps if s["name"].startswith("Install")).splitlines()


def test_the_github_classroom_template_installs_only_the_wheel_it_holds(tmp_path, run_quiz):
    """Issue #20, item 14: the template is a whole repository, and its workflow installs the quizforge
    it carries, checked against its hash; nothing is asked of an index by the name quizforge."""
    import hashlib
    import shlex
    import sysconfig

    repo = tmp_path / "repo"
    code, out, err = run_quiz("export", "github-classroom", "softmax", "-o", str(repo))
    assert code == 0, err
    exercise = REPO / "exercises" / "softmax"
    for name in ("README.md", "starter.py", "test_public.py"):
        assert (repo / name).read_bytes() == (exercise / name).read_bytes()
    workflow = (repo / ".github" / "workflows" / "classroom.yml").read_text()
    check, *installs = _install_step(workflow)
    digest, wheel_path = shlex.split(check.split("|")[0])[1].split("  ")
    assert check.endswith("| sha256sum --check --strict") and wheel_path.startswith("vendor/quizforge-")
    assert hashlib.sha256((repo / wheel_path).read_bytes()).hexdigest() == digest
    assert [p.name for p in (repo / "vendor").iterdir()] == [wheel_path.split("/")[1]]
    wheel_names = zipfile.ZipFile(repo / wheel_path).namelist()
    assert "quizforge/exercises/softmax/meta/test_hidden.py" in wheel_names
    assert not any("/variants/" in n or "solutions" in n for n in wheel_names)
    for line in installs:  # every pip argument: a flag, the torch pin and its index, or the vendored wheel
        args = shlex.split(line)
        assert args[:2] == ["pip", "install"], line
        for before, arg in zip(args[1:], args[2:]):
            assert (arg.startswith("-") or arg == "torch==2.13.0" or arg == f"./{wheel_path}"
                    or (before == "--index-url" and arg == "https://download.pytorch.org/whl/cpu")), line
    assert "quizforge==" not in workflow and f"pip install ./{wheel_path}" in installs
    # The hash check passes as written, and fails for a wheel that is not the one exported.
    assert subprocess.run(["bash", "-c", check], cwd=repo, capture_output=True).returncode == 0
    tampered = tmp_path / "tampered"
    tampered.mkdir()
    (tampered / "vendor").mkdir()
    (tampered / wheel_path).write_bytes((repo / wheel_path).read_bytes() + b"\0")
    assert subprocess.run(["bash", "-c", check], cwd=tampered, capture_output=True).returncode != 0

    # The install and grading steps, run as the workflow would, offline: a fresh venv gets the
    # vendored wheel (--no-deps: its dependencies are lent from this venv), then the grading command.
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    site = next((venv / "lib").glob("python3*/site-packages"))
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-q",
                           "--no-deps", "--no-index", "--ignore-installed", f"./{wheel_path}"],
                          cwd=repo, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    where = subprocess.run([str(venv / "bin" / "python"), "-c", "import quizforge; print(quizforge.__file__)"],
                           capture_output=True, text=True, check=True, cwd=repo).stdout
    assert where.startswith(str(site))  # the wheel's copy, not this checkout
    # The installed copy starts a challenge from its own files, with nothing of meta/.
    started = subprocess.run([str(venv / "bin" / "python"), "-m", "quizforge", "challenges", "start", "softmax",
                              str(tmp_path / "started")], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert started.returncode == 0, started.stderr[-2000:]
    assert sorted(p.name for p in (tmp_path / "started").iterdir()) == ["README.md", "starter.py", "test_public.py"]
    assert (tmp_path / "started" / "starter.py").read_bytes() == (exercise / "starter.py").read_bytes()
    (repo / "starter.py").write_text((REPO / "solutions" / "softmax.py").read_text())
    command = next(line.split("command: ", 1)[1] for line in workflow.splitlines() if "command: quiz" in line)
    done = subprocess.run(shlex.split(command), cwd=repo, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PATH=f"{venv / 'bin'}:{os.environ['PATH']}"))
    if not namespaces_available():
        assert done.returncode == 1
        return
    assert done.returncode == 0, done.stdout + done.stderr
    assert "28/28" in done.stdout


def test_the_wheel_is_the_same_bytes_every_time():
    from quizforge.grading.exports import wheel

    assert wheel() == wheel()
