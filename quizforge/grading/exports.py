"""Autograders for the platforms courses already grade on: a Gradescope autograder zip and a
GitHub Classroom workflow, both running `quiz grade` on the student's file.

Gradescope: the zip holds setup.sh (run once when the image is built: a venv, torch's CPU
build, then quizforge from the package copy inside the zip) and run_autograder (run for
each submission: autograder.py writes /autograder/results/results.json). GitHub Classroom:
a workflow whose step runs `quiz grade --fail-under 100` and whose reporter posts the
points, the format GitHub Classroom's own autograding actions read.
"""

from __future__ import annotations

import io
import os
import shlex
import stat
import zipfile
from importlib import metadata
from pathlib import Path

from quizforge.challenges import Challenge
from quizforge.grading.gradebook import write_atomically

TORCH_PIN = "torch==2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
PACKAGE = Path(__file__).resolve().parent.parent
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
exec "$PYTHON" -m quizforge.grading.autograder {shlex.quote(challenge_id)}{flag}
"""


def _add(archive: zipfile.ZipFile, name: str, data: bytes, executable: bool = False) -> None:
    info = zipfile.ZipInfo(name, ZIP_TIME)
    info.external_attr = (0o755 if executable else 0o644) << 16 | stat.S_IFREG << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    archive.writestr(info, data)


def gradescope_zip(challenge: Challenge, out: Path, unsafe: bool = False) -> Path:
    """Write the autograder zip for `challenge` to `out`."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        _add(archive, "setup.sh", setup_sh().encode(), executable=True)
        _add(archive, "run_autograder", run_autograder(challenge.id, unsafe).encode(), executable=True)
        _add(archive, f"{SOURCE_DIR}/pyproject.toml", _pyproject().encode())
        files = []
        for folder, dirs, names in os.walk(PACKAGE, followlinks=True):  # exercises/ is a link
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            files += [Path(folder) / n for n in names if not n.endswith((".pyc", ".pyo"))]
        for path in sorted(files):
            _add(archive, f"{SOURCE_DIR}/quizforge/{path.relative_to(PACKAGE).as_posix()}", path.read_bytes())
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(buffer.getvalue())
    os.replace(tmp, out)
    return out


def classroom_workflow(challenge: Challenge, max_score: float, install: str, student_file: str) -> str:
    step = challenge.id.replace("_", "-")
    env_name = challenge.id.upper() + "_RESULTS"
    command = f"quiz grade {shlex.quote(student_file)} --challenge {challenge.id} --fail-under 100"
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
      - name: Allow the sandbox's user namespaces
        run: sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 || true
      - name: Install quizforge
        run: pip install {TORCH_PIN} --index-url {TORCH_INDEX} && {install}
      - name: {challenge.id}
        id: {step}
        uses: classroom-resources/autograding-command-grader@v1
        with:
          test-name: {challenge.id}
          setup-command: ""
          command: {command}
          timeout: {max(1, int(challenge.total_timeout // 60) + 2)}
          max-score: {max_score:g}
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          {env_name}: "${{{{steps.{step}.outputs.result}}}}"
        with:
          runners: {step}
"""


def write_classroom_workflow(challenge: Challenge, folder: Path, max_score: float, install: str,
                             student_file: str = "starter.py") -> Path:
    path = folder / ".github" / "workflows" / "classroom.yml"
    write_atomically(path, classroom_workflow(challenge, max_score, install, student_file))
    return path


def default_install() -> str:
    return f"pip install quizforge=={metadata.version('quizforge')}"
