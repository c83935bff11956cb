"""`quiz export gradescope` and `quiz export github-classroom`, and `quiz grade --fail-under`.

The Gradescope zip carries quizforge with its hidden suites (only the instructor uploads it); the
GitHub Classroom template is what students read, so it holds the public tests and nothing more."""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grading_support import NO_SANDBOX, namespaces_available, write_submission
from quizforge.challenges import challenge_ids

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    """The exported zip, unpacked as Gradescope would into ROOT/source."""
    from quizforge.challenges import load_challenge
    from quizforge.grading.exports.course_platforms import gradescope_zip

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
    assert "quizforge_src/quizforge/grading/sandbox_inside/worker.py" in names
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
    from quizforge.grading.exports.course_platforms import gradescope_zip

    _, path, _ = autograder
    again = gradescope_zip(load_challenge("softmax"), tmp_path / "again.zip")
    assert again.read_bytes() == path.read_bytes()


def test_run_autograder_writes_gradescope_results(autograder):
    root, _, _ = autograder
    results = run_autograder(root, (REPO / "solutions" / "softmax.py").read_text())
    if not namespaces_available():
        assert results["score"] == 0 and "sandbox could not be built" in results["output"]
        pytest.skip(NO_SANDBOX)
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
    assert "quizforge/grading/sandbox_inside/zygote.py" in names and "quizforge/exercises/softmax/starter.py" in names


# --- GitHub Classroom: the template students get ---------------------------------------------

TEMPLATE = {"README.md", "starter.py", "test_public.py", ".github/workflows/classroom.yml"}
GRADER = "classroom-resources/autograding-command-grader@v1"
REPORTER = "classroom-resources/autograding-grading-reporter@v1"


def defined_tests(path: Path) -> set[str]:
    return {node.name for node in ast.parse(path.read_text()).body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test")}


def hidden_only_tests(challenge: str) -> set[str]:
    """The hidden suite's test functions that the public tests do not share a name with."""
    folder = REPO / "exercises" / challenge
    return defined_tests(folder / "meta" / "test_hidden.py") - defined_tests(folder / "test_public.py")


def every_text(folder: Path) -> dict[str, str]:
    """Every file under `folder` as text, path -> text, and every member of any zip archive among
    them (a wheel is one) as 'archive!member'."""
    found = {}
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        name = path.relative_to(folder).as_posix()
        found[name] = path.read_bytes().decode("utf-8", "replace")
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                for member in archive.namelist():
                    found[f"{name}!{member}"] = archive.read(member).decode("utf-8", "replace")
    return found


def read_steps(workflow: str) -> list[dict]:
    """The workflow's steps, as YAML reads them. Without PyYAML (not a test dependency), from the
    text: the export writes each step as `      - key: value` lines with one level of nesting
    (`with`, `env`) below, and `run: |` blocks."""
    steps: list[dict] = []
    block: list[str] | None = None
    for line in workflow.split("\n    steps:\n", 1)[1].splitlines():
        indent = len(line) - len(line.lstrip())
        if block is not None and indent >= 10:
            block.append(line.strip())
            continue
        if line.startswith("      - "):
            steps.append({})
            line = "        " + line[8:]
            indent = 8
        key, _, value = line.strip().partition(":")
        value = value.strip()
        if value.startswith('"') and value.endswith('"'):
            value = value[1:-1]
        elif value.isdigit():
            value = int(value)
        if indent == 8:
            steps[-1][key] = {} if value == "" else value
            block = None
            if value == "|":
                block = []
                steps[-1][key] = block
        else:
            nested = steps[-1][next(reversed(steps[-1]))]
            nested[key] = value
    for step in steps:
        if isinstance(step.get("run"), list):
            step["run"] = "".join(line + "\n" for line in step["run"])
    try:
        import yaml
    except ImportError:
        return steps
    parsed = yaml.safe_load(workflow)["jobs"]["run-autograding-tests"]["steps"]
    assert parsed == steps  # the reader above reads what YAML reads
    return parsed


def export_template(run_quiz, challenge: str, folder: Path, *options: str) -> str:
    code, out, err = run_quiz("export", "github-classroom", challenge, "-o", str(folder), *options)
    assert code == 0, err
    return out


@pytest.mark.parametrize("challenge", challenge_ids())
def test_the_github_classroom_template_holds_no_hidden_suite(tmp_path, run_quiz, challenge):
    """Issue #30: every student's repository starts as this template, so it holds the statement,
    the starter, the public tests and the workflow, byte for byte, and nothing of a hidden suite:
    no quizforge wheel, no test_hidden.py, no hidden test's name in any file or archive member."""
    out = export_template(run_quiz, challenge, tmp_path)
    assert out == f"wrote {tmp_path}: README.md, starter.py, test_public.py, .github/workflows/classroom.yml\n"
    texts = every_text(tmp_path)
    assert set(texts) == TEMPLATE
    for name in ("README.md", "starter.py", "test_public.py"):
        assert (tmp_path / name).read_bytes() == (REPO / "exercises" / challenge / name).read_bytes()
    hidden = hidden_only_tests(challenge)
    assert len(hidden) >= 3
    for name, text in texts.items():
        parts = set(name.replace("!", "/").split("/"))
        assert not parts & {"meta", "test_hidden.py", "solutions", "variants", "quizforge"}, name
        assert [test for test in hidden if re.search(rf"\b{test}\b", text)] == [], name
    workflow = texts[".github/workflows/classroom.yml"]
    assert "quizforge" not in workflow and "quiz grade" not in workflow and "vendor" not in workflow


def test_the_hidden_test_names_are_found_where_a_hidden_suite_is(autograder):
    """The search above would find a hidden suite inside an archive: the Gradescope zip, which
    keeps one, shows every name it looks for."""
    root, path, _ = autograder
    folder = root / "archive-only"
    folder.mkdir(exist_ok=True)
    shutil.copyfile(path, folder / path.name)
    suite = every_text(folder)["autograder.zip!quizforge_src/quizforge/exercises/softmax/meta/test_hidden.py"]
    assert all(re.search(rf"\b{test}\b", suite) for test in hidden_only_tests("softmax"))


@pytest.mark.parametrize("challenge", ["softmax", "scaled_dot_product_attention"])
def test_the_github_classroom_workflow_runs_each_public_test_for_a_point(tmp_path, run_quiz, challenge):
    export_template(run_quiz, challenge, tmp_path)
    steps = read_steps((tmp_path / ".github" / "workflows" / "classroom.yml").read_text())
    install = next(s for s in steps if s["name"].startswith("Install"))
    assert install["run"].splitlines() == [
        "pip install torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu", "pip install pytest==9.2.0"]
    graders = [s for s in steps if s.get("uses") == GRADER]
    # The tests pytest itself collects from the template as shipped, each one step, in order.
    collected = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider",
                                "test_public.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    nodes = [line for line in collected.stdout.splitlines() if line.startswith("test_public.py::")]
    assert [s["id"] for s in graders] == [n.split("::")[1] for n in nodes]
    assert len(graders) == len(defined_tests(REPO / "exercises" / challenge / "test_public.py")) >= 3
    for step in graders:
        assert step["name"] == step["id"] == step["with"]["test-name"]
        assert step["with"]["command"] == f"python -m pytest -q test_public.py::{step['id']}"
        assert step["with"]["max-score"] == 1 and step["with"]["timeout"] >= 1
    reporter = next(s for s in steps if s.get("uses") == REPORTER)
    ids = [s["id"] for s in graders]
    assert reporter["with"]["runners"].split(",") == ids
    # The reporter reads <runner id, upper-cased as written>_RESULTS.
    assert reporter["env"] == {f"{i.upper()}_RESULTS": f"${{{{steps.{i}.outputs.result}}}}" for i in ids}
    assert [s["name"] for s in steps] == ["Checkout code", "Set up Python", install["name"], *ids,
                                         "Autograding Reporter"]


def test_the_github_classroom_workflow_gives_points_for_the_public_tests_passed(tmp_path, run_quiz):
    """Each grading command run as the workflow runs it: every point for the solution; the starter,
    which raises NotImplementedError, earns none."""
    export_template(run_quiz, "softmax", tmp_path)
    graders = [s for s in read_steps((tmp_path / ".github" / "workflows" / "classroom.yml").read_text())
               if s.get("uses") == GRADER]
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ['PATH']}",
               PYTEST_ADDOPTS="-p no:cacheprovider")

    def points() -> int:
        runs = [subprocess.run(shlex.split(s["with"]["command"]), cwd=tmp_path, env=env, capture_output=True,
                               text=True, timeout=120) for s in graders]
        return sum(s["with"]["max-score"] for s, run in zip(graders, runs) if run.returncode == 0)

    assert points() == 0
    (tmp_path / "starter.py").write_text((REPO / "solutions" / "softmax.py").read_text())
    assert points() == len(graders) == 4


def test_the_instructors_install_command_replaces_the_default(tmp_path, run_quiz):
    export_template(run_quiz, "softmax", tmp_path, "--install", "pip install -r requirements.txt")
    workflow = (tmp_path / ".github" / "workflows" / "classroom.yml").read_text()
    assert "        run: |\n          pip install -r requirements.txt\n      - name: test_" in workflow
    assert next(s for s in read_steps(workflow) if s["name"].startswith("Install"))["run"] == \
        "pip install -r requirements.txt\n"


def test_an_earlier_templates_wheel_is_refused_then_removed_with_force(tmp_path, run_quiz):
    """Templates of earlier versions vendored a wheel of quizforge that held every hidden suite:
    exporting over one refuses without --force, and --force removes the wheel (nothing else)."""
    repo = tmp_path / "repo"
    (repo / "vendor").mkdir(parents=True)
    (repo / "vendor" / "quizforge-0.1.0-py3-none-any.whl").write_bytes(b"PK")
    (repo / "vendor" / "notes.txt").write_text("the instructor's own\n")
    code, out, err = run_quiz("export", "github-classroom", "softmax", "-o", str(repo))
    assert code == 2 and out == ""
    assert err == (f"error: --output: vendor/quizforge-0.1.0-py3-none-any.whl already in {repo}: not overwriting "
                   "(--force replaces them)\n")
    out = export_template(run_quiz, "softmax", repo, "--force")
    assert out.splitlines()[1] == ("removed an earlier template's wheel of quizforge, which held the hidden suites: "
                                   "vendor/quizforge-0.1.0-py3-none-any.whl")
    assert sorted(p.name for p in (repo / "vendor").iterdir()) == ["notes.txt"]
    (repo / "vendor" / "notes.txt").unlink()
    (repo / "vendor" / "quizforge-0.1.0-py3-none-any.whl").write_bytes(b"PK")
    export_template(run_quiz, "softmax", repo, "--force")
    assert not (repo / "vendor").exists()  # emptied by the removal: gone with it
    assert set(every_text(repo)) == TEMPLATE


def test_a_template_over_its_own_files_needs_force(tmp_path, run_quiz):
    export_template(run_quiz, "softmax", tmp_path)
    code, out, err = run_quiz("export", "github-classroom", "softmax", "-o", str(tmp_path))
    assert code == 2 and err == (f"error: --output: README.md, starter.py, test_public.py, "
                                 f".github/workflows/classroom.yml already in {tmp_path}: not overwriting "
                                 "(--force replaces them)\n")
    (tmp_path / "starter.py").write_text("# a student's work\n")
    export_template(run_quiz, "softmax", tmp_path, "--force")
    assert (tmp_path / "starter.py").read_bytes() == (REPO / "exercises" / "softmax" / "starter.py").read_bytes()


@pytest.mark.parametrize("source, message", [
    ("def test_one(:\n", "test_public.py:1: not valid Python"),
    ("import torch\n\ndef helper():\n    pass\n", "test_public.py has no test functions"),
])
def test_public_tests_that_cannot_be_read_are_one_line(tmp_path, source, message):
    import dataclasses

    from quizforge.challenges import load_challenge
    from quizforge.errors import InputError
    from quizforge.grading.exports.course_platforms import public_tests

    (tmp_path / "test_public.py").write_text(source)
    challenge = dataclasses.replace(load_challenge("softmax"), folder=tmp_path)
    with pytest.raises(InputError) as raised:
        public_tests(challenge)
    assert message in str(raised.value) and "\n" not in str(raised.value)
