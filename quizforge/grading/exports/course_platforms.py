"""Autograders for the platforms courses already grade on: a Gradescope autograder zip and a
GitHub Classroom template repository.

Gradescope: the zip holds setup.sh (run once when the image is built: a venv, torch's CPU
build, then quizforge from the package copy inside the zip, hidden suites included: only the
instructor uploads it) and run_autograder (run for each submission: gradescope_autograder.py writes
/autograder/results/results.json with `quiz grade`'s result). quizforge is installed from
that copy, never fetched by name from an index.

GitHub Classroom: the template is what every student's repository starts as, so it holds
only what students may read: the statement, starter.py and the public tests, which import
nothing but torch and the starter. Its workflow installs torch's CPU build and pytest, runs
each public test as one GitHub Classroom test worth a point, and its reporter posts the
points. No quizforge is in it, so no hidden suite either.
"""

from __future__ import annotations

import ast
import io
import os
import shlex
import stat
import zipfile
from importlib import metadata
from pathlib import Path

from quizforge.challenges import SHIPPED, Challenge, challenge_ids, exercises_root
from quizforge.errors import InputError

TORCH_PIN = "torch==2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
PACKAGE = Path(__file__).resolve().parents[2]  # quizforge/
SOURCE_DIR = "quizforge_src"
# A fixed time for every zip entry, so that exporting twice gives the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def _pyproject() -> str:
    """A pyproject.toml for the package copy in the zip, from this installation's own metadata."""
    dist = metadata.distribution("quizforge")
    requires = [r for r in (dist.requires or []) if "extra ==" not in r]
    deps = "".join(f"    {r!r},\n".replace("'", '"') for r in requires)
    return (
        '[build-system]\nrequires = ["setuptools>=68"]\nbuild-backend = "setuptools.build_meta"\n\n'
        f'[project]\nname = "quizforge"\nversion = "{dist.version}"\nrequires-python = ">=3.11"\n'
        f"dependencies = [\n{deps}]\n\n"
        '[project.scripts]\nquiz = "quizforge.cli:main"\n\n'
        '[tool.setuptools.packages.find]\ninclude = ["quizforge*"]\n\n'
        '[tool.setuptools.package-data]\nquizforge = ["**/*"]\n'
    )


def setup_sh() -> str:
    return f"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image.
set -euo pipefail
python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' || {{
    echo "quizforge needs Python 3.11 or newer: choose Gradescope's Ubuntu 24.04 base image" >&2; exit 1; }}
apt-get update -q && apt-get install -y -q python3-venv
python3 -m venv /autograder/venv
/autograder/venv/bin/pip install -q {TORCH_PIN} --index-url {TORCH_INDEX}
/autograder/venv/bin/pip install -q /autograder/source/{SOURCE_DIR}
"""


def run_autograder(challenge_id: str, unsafe: bool) -> str:
    flag = " --unsafe-no-sandbox" if unsafe else ""
    return f"""#!/usr/bin/env bash
# Gradescope runs this for each submission; it always writes results/results.json.
ROOT="${{QUIZFORGE_AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{QUIZFORGE_PYTHON:-$ROOT/venv/bin/python}}"
export QUIZFORGE_AUTOGRADER_ROOT="$ROOT"
exec "$PYTHON" -m quizforge.grading.exports.gradescope_autograder {shlex.quote(challenge_id)}{flag}
"""


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, ZIP_TIME)
    info.external_attr = (0o755 if executable else 0o644) << 16 | stat.S_IFREG << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def _package_files() -> list[tuple[str, bytes]]:
    """(path inside the package, bytes) of every file of this quizforge, in a fixed order: its own
    folder, and each challenge's shipped files as exercises/<id>/... (as the wheel lays them out)."""
    root = exercises_root()
    files = []
    for folder, dirs, names in os.walk(PACKAGE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and Path(folder, d) != PACKAGE / "exercises")
        files += [((Path(folder) / n).relative_to(PACKAGE).as_posix(), Path(folder) / n)
                  for n in names if not n.endswith((".pyc", ".pyo"))]
    files += [(f"exercises/{cid}/{name}", root / cid / name)
              for cid in challenge_ids() for name in SHIPPED if (root / cid / name).is_file()]
    return [(name, path.read_bytes()) for name, path in sorted(files)]


def check_output_file(out: Path) -> None:
    """Refuse, before anything is built, an output file that cannot be written where asked."""
    if out.is_dir():
        raise InputError(f"{out} is a folder: give the file's name, e.g. {out / 'autograder.zip'}", param="output")
    if not out.parent.is_dir():
        raise InputError(f"{out.parent} does not exist: create it first (no folder is created for you)",
                         param="output")


def _write_bytes(out: Path, data: bytes) -> None:
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, out)


def gradescope_zip(challenge: Challenge, out: Path, unsafe: bool = False) -> Path:
    """Write the autograder zip for `challenge` to `out` (whose folder must exist)."""
    check_output_file(out)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        _add(archive, "setup.sh", setup_sh().encode(), executable=True)
        _add(archive, "run_autograder", run_autograder(challenge.id, unsafe).encode(), executable=True)
        _add(archive, f"{SOURCE_DIR}/pyproject.toml", _pyproject().encode())
        for name, data in _package_files():
            _add(archive, f"{SOURCE_DIR}/quizforge/{name}", data)
    _write_bytes(out, buffer.getvalue())
    return out


# --- GitHub Classroom: a template repository of what students may read ----------------

PYTEST_PIN = "pytest==9.2.0"
TEMPLATE_FILES = ("README.md", "starter.py", "test_public.py")
WORKFLOW = ".github/workflows/classroom.yml"
# What the templates of earlier versions vendored: a wheel of quizforge, hidden suites and all.
OLD_VENDORED = "vendor/quizforge-*.whl"


def public_tests(challenge: Challenge) -> list[str]:
    """The test functions of the challenge's test_public.py, in file order: the top-level
    functions whose names start with `test`, as pytest collects them."""
    path = challenge.folder / "test_public.py"
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}") from None
    except SyntaxError as exc:
        raise InputError(f"{path}:{exc.lineno}: not valid Python ({exc.msg})") from None
    names = [node.name for node in tree.body
             if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test")]
    if not names:
        raise InputError(f"{path} has no test functions: the template would have nothing to run")
    return names


def default_install() -> str:
    """The workflow's install commands: torch's CPU build pinned from PyTorch's own index, and pytest."""
    return f"pip install {TORCH_PIN} --index-url {TORCH_INDEX}\npip install {PYTEST_PIN}"


def public_test_command(name: str) -> str:
    return f"python -m pytest -q test_public.py::{name}"


def classroom_workflow(challenge: Challenge, install: str) -> str:
    """One command-grader step per public test, worth one point when that test passes; the
    reporter reads each step's result from the environment variable <STEP ID>_RESULTS, with
    the id upper-cased as it is written (so a test's name serves as both)."""
    names = public_tests(challenge)
    timeout = max(1, int(challenge.total_timeout // 60) + 2)
    install_lines = "".join(f"\n          {line}" for line in install.splitlines())
    steps = "".join(f"""      - name: {name}
        id: {name}
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: {name}
          setup-command: ""
          command: {public_test_command(name)}
          timeout: {timeout}
          max-score: 1
""" for name in names)
    env = "".join(f'          {name.upper()}_RESULTS: "${{{{steps.{name}.outputs.result}}}}"\n' for name in names)
    return f"""name: Autograding Tests
on: [push, workflow_dispatch, repository_dispatch]
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-24.04
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Checkout code
        uses: actions/checkout@v4
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: "3.11"
      - name: Install torch's CPU build and pytest
        run: |{install_lines}
{steps}      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
{env}        with:
          runners: {",".join(names)}
"""


def old_vendored_wheels(folder: Path) -> list[Path]:
    return sorted(folder.glob(OLD_VENDORED))


def check_template_folder(folder: Path, force: bool) -> None:
    """Refuse, before anything is written, a folder that is not one, a missing parent, or
    (without `force`) files of a template already there, an old template's vendored wheel included."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} exists and is not a folder", param="output")
    if not folder.exists() and not folder.parent.is_dir():
        raise InputError(f"{folder.parent} does not exist: create it first (no folder is created for you)",
                         param="output")
    clashes = [n for n in (*TEMPLATE_FILES, WORKFLOW) if (folder / n).exists()]
    clashes += [p.relative_to(folder).as_posix() for p in old_vendored_wheels(folder)]
    if clashes and not force:
        raise InputError(f"{', '.join(clashes)} already in {folder}: not overwriting (--force replaces them)",
                         param="output")


def write_classroom_template(challenge: Challenge, folder: Path, install: str | None = None,
                             force: bool = False) -> tuple[list[Path], list[Path]]:
    """A complete template repository for GitHub Classroom: the statement (README.md), starter.py,
    the public tests and the workflow that installs torch and pytest (or runs `install`, the
    instructor's own command) and runs the public tests. With `force`, an earlier template's
    vendored quizforge wheel is removed: it held every hidden suite. Returns the files written
    and the files removed."""
    check_template_folder(folder, force)
    source = challenge.folder
    missing = [n for n in TEMPLATE_FILES if not (source / n).is_file()]
    if missing:
        raise InputError(f"the exercise {challenge.id} has no {', '.join(missing)} in {source}")
    workflow = classroom_workflow(challenge, default_install() if install is None else install)
    folder.mkdir(exist_ok=True)
    files = [*((name, (source / name).read_bytes()) for name in TEMPLATE_FILES), (WORKFLOW, workflow.encode())]
    for name, data in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)  # inside the folder, which exists
        _write_bytes(folder / name, data)
    removed = old_vendored_wheels(folder)
    for path in removed:
        path.unlink()
    if removed and not any(removed[0].parent.iterdir()):
        removed[0].parent.rmdir()
    return [folder / name for name, _ in files], removed
