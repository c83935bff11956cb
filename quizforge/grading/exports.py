"""Autograders for the platforms courses already grade on: a Gradescope autograder zip and a
GitHub Classroom template repository, both running `quiz grade` on the student's file and
both installing the quizforge they carry, never one fetched by name from an index.

Gradescope: the zip holds setup.sh (run once when the image is built: a venv, torch's CPU
build, then quizforge from the package copy inside the zip) and run_autograder (run for
each submission: autograder.py writes /autograder/results/results.json). GitHub Classroom:
a workflow whose step runs `quiz grade --fail-under 100` and whose reporter posts the
points, the format GitHub Classroom's own autograding actions read; the template around it
holds the statement, starter.py, the public tests and a wheel of this quizforge, whose
sha256 the workflow checks before installing it.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import shlex
import stat
import zipfile
from importlib import metadata
from pathlib import Path

from quizforge.challenges import Challenge
from quizforge.errors import InputError

TORCH_PIN = "torch==2.13.0"
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
PACKAGE = Path(__file__).resolve().parent.parent
SOURCE_DIR = "quizforge_src"
VENDOR_DIR = "vendor"
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


def _package_files() -> list[tuple[str, bytes]]:
    """(path inside the package, bytes) of every file of this quizforge, in a fixed order: its own
    folder, and each challenge's shipped files as exercises/<id>/... (as the wheel lays them out)."""
    from quizforge.challenges import SHIPPED, challenge_ids, exercises_root

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


# --- GitHub Classroom: a template repository that installs only what it holds ---------

def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel(version: str | None = None) -> tuple[str, bytes]:
    """(file name, bytes) of a wheel of this quizforge: pure Python, so the package's files
    plus the three metadata files pip reads (PEP 427). Built here rather than by setuptools
    so that exporting needs no build tools and gives the same bytes, hence the same hash,
    every time."""
    dist = metadata.distribution("quizforge")
    version = version or dist.version
    info = f"quizforge-{version}.dist-info"
    requires = "".join(f"Requires-Dist: {r}\n" for r in (dist.requires or []) if "extra ==" not in r)
    files = [(f"quizforge/{name}", data) for name, data in _package_files()]
    files += [
        (f"{info}/METADATA", (f"Metadata-Version: 2.1\nName: quizforge\nVersion: {version}\n"
                              f"Requires-Python: >=3.11\n{requires}").encode()),
        (f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: quizforge export\nRoot-Is-Purelib: true\n"
                          b"Tag: py3-none-any\n"),
        (f"{info}/entry_points.txt", b"[console_scripts]\nquiz = quizforge.cli:main\n"),
    ]
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in files) + f"{info}/RECORD,,\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in [*files, (f"{info}/RECORD", record.encode())]:
            _add(archive, name, data)
    return f"quizforge-{version}-py3-none-any.whl", buffer.getvalue()


def vendored_install(wheel_name: str, digest: str) -> str:
    """The workflow's install commands: the wheel in the template, checked against its hash
    first, and torch's CPU build pinned from PyTorch's own index. quizforge is never asked
    of an index by name (on PyPI, that name is someone else's project)."""
    return (f'echo "{digest}  {VENDOR_DIR}/{wheel_name}" | sha256sum --check --strict\n'
            f"pip install {TORCH_PIN} --index-url {TORCH_INDEX}\n"
            f"pip install ./{VENDOR_DIR}/{wheel_name}")


def classroom_workflow(challenge: Challenge, max_score: float, install: str, student_file: str) -> str:
    step = challenge.id.replace("_", "-")
    env_name = challenge.id.upper() + "_RESULTS"
    command = f"quiz grade {shlex.quote(student_file)} --challenge {challenge.id} --fail-under 100"
    install_lines = "".join(f"\n          {line}" for line in install.splitlines())
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
      - name: Install quizforge from this repository (pinned by its hash) and torch's CPU build
        run: |{install_lines}
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


TEMPLATE_FILES = ("README.md", "starter.py", "test_public.py")
WORKFLOW = ".github/workflows/classroom.yml"


def check_template_folder(folder: Path, force: bool) -> None:
    """Refuse, before anything is written, a folder that is not one, a missing parent, or
    (without `force`) files of a template already there."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"{folder} exists and is not a folder", param="output")
    if not folder.exists() and not folder.parent.is_dir():
        raise InputError(f"{folder.parent} does not exist: create it first (no folder is created for you)",
                         param="output")
    clashes = [n for n in (*TEMPLATE_FILES, WORKFLOW, VENDOR_DIR) if (folder / n).exists()]
    if clashes and not force:
        raise InputError(f"{', '.join(clashes)} already in {folder}: not overwriting (--force replaces them)",
                         param="output")


def write_classroom_template(challenge: Challenge, folder: Path, max_score: float, install: str | None = None,
                             student_file: str = "starter.py", force: bool = False) -> list[Path]:
    """A complete template repository for GitHub Classroom: the statement (README.md), starter.py,
    the public tests, quizforge as a wheel in vendor/, and the workflow that installs that wheel
    after checking its hash (or runs `install`, the instructor's own command) and grades
    `student_file`. Returns the files written."""
    check_template_folder(folder, force)
    source = challenge.folder
    missing = [n for n in TEMPLATE_FILES if not (source / n).is_file()]
    if missing:
        raise InputError(f"the exercise {challenge.id} has no {', '.join(missing)} in {source}")
    wheel_name, wheel_bytes = wheel()
    if install is None:
        install = vendored_install(wheel_name, hashlib.sha256(wheel_bytes).hexdigest())
    folder.mkdir(exist_ok=True)
    files = [*((name, (source / name).read_bytes()) for name in TEMPLATE_FILES),
             (f"{VENDOR_DIR}/{wheel_name}", wheel_bytes),
             (WORKFLOW, classroom_workflow(challenge, max_score, install, student_file).encode())]
    for name, data in files:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)  # inside the folder, which exists
        _write_bytes(folder / name, data)
    return [folder / name for name, _ in files]
