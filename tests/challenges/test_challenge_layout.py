"""One folder per challenge (issue #25): every folder is complete, challenge.toml is checked
against its schema with errors naming file and line, the challenges never import the grader,
and a plain wheel ships what students and the grader need and nothing of the answers."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from quizforge.challenges import SHIPPED, challenge_ids, load_challenge, read_challenge
from quizforge.datafiles import ContentError

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "quizforge"


# --- every folder is a whole challenge ----------------------------------------------------------

@pytest.mark.parametrize("folder", sorted(p for p in (REPO / "exercises").iterdir()
                                           if p.is_dir() and not p.name.startswith((".", "__"))),
                         ids=lambda p: p.name)
def test_every_challenge_folder_is_complete(folder):
    assert (folder / "meta" / "challenge.toml").is_file(), "a folder under exercises/ is a challenge"
    challenge = load_challenge(folder.name)
    for name in SHIPPED:
        assert (folder / name).is_file(), name
    assert (REPO / "solutions" / f"{folder.name}.py").is_file()
    bugs = {v.name for v in challenge.variants("bug")}
    assert len(bugs) >= 3 and len(challenge.variants("ok")) >= 1
    assert set(challenge.diagnoses) == bugs
    assert all(words.strip() for words in challenge.diagnoses.values())
    others = {p.name for p in (folder / "meta" / "variants").iterdir()} - {
        v.source.name for v in challenge.variants("bug") + challenge.variants("ok")} - {"__pycache__"}
    assert not others, f"meta/variants/ holds only bug_* and ok_*, each a .py or a .patch: {others}"


def test_every_solution_has_its_challenge():
    assert sorted(p.stem for p in (REPO / "solutions").glob("*.py")) == challenge_ids()


# --- challenge.toml's schema ----------------------------------------------------------------------

@pytest.fixture
def softmax_copy(tmp_path) -> Path:
    folder = tmp_path / "softmax"
    shutil.copytree(REPO / "exercises" / "softmax", folder, ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


def broken(folder: Path, old: str, new: str) -> tuple[str, str]:
    """Replace `old` in the copy's challenge.toml; return the ContentError's message and the new text."""
    toml = folder / "meta" / "challenge.toml"
    text = toml.read_text(encoding="utf-8")
    assert old in text
    toml.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(ContentError) as caught:
        read_challenge(folder)
    return str(caught.value), toml.read_text(encoding="utf-8")


def test_the_copy_reads_as_the_real_one(softmax_copy):
    copy, real = read_challenge(softmax_copy), load_challenge("softmax")
    assert (copy.title, copy.names, copy.weights, copy.diagnoses) == (real.title, real.names, real.weights,
                                                                      real.diagnoses)
    assert copy.diagnoses["bug_no_max_shift"] == "overflows" and copy.broken_starter is None
    assert load_challenge("fix_broken_attention").broken_starter == "both planted bugs are still there"


def test_an_unknown_field_names_file_and_line(softmax_copy):
    message, text = broken(softmax_copy, 'title = ', 'titel = ')
    toml = softmax_copy / "meta" / "challenge.toml"
    assert message.startswith(f"{toml}:{line_of(text, 'titel')}: unknown field 'titel'")


def test_a_wrong_type_names_its_line(softmax_copy):
    message, text = broken(softmax_copy, "call_timeout = 10.0", 'call_timeout = "ten"')
    assert message == (f"{softmax_copy / 'meta' / 'challenge.toml'}:{line_of(text, 'call_timeout')}: "
                       "'call_timeout' must be a positive number of seconds")



def test_names_must_be_a_list(softmax_copy):
    message, text = broken(softmax_copy, 'names = ["softmax"]', 'names = "softmax"')
    assert message == (f"{softmax_copy / 'meta' / 'challenge.toml'}:{line_of(text, 'names')}: "
                       "'names' must be a list of non-empty strings")


def test_a_weight_that_is_not_a_number_names_its_line_in_the_table(softmax_copy):
    message, text = broken(softmax_copy, "test_large_logits = 3", 'test_large_logits = "3"')
    assert message == (f"{softmax_copy / 'meta' / 'challenge.toml'}:{line_of(text, 'test_large_logits')}: "
                       "[weights]: the weight of 'test_large_logits' must be a number of points, 0 or more")


def test_a_diagnosis_without_its_bug_file(softmax_copy):
    (softmax_copy / "meta" / "variants" / "bug_global_max.py").unlink()
    with pytest.raises(ContentError) as caught:
        read_challenge(softmax_copy)
    text = (softmax_copy / "meta" / "challenge.toml").read_text()
    assert str(caught.value) == (f"{softmax_copy / 'meta' / 'challenge.toml'}:{line_of(text, 'bug_global_max')}: "
                                 "[diagnoses]: 'bug_global_max' has no file meta/variants/bug_global_max.py "
                                 "(or bug_global_max.patch)")


def test_a_bug_file_without_its_diagnosis(softmax_copy):
    (softmax_copy / "meta" / "variants" / "bug_new.py").write_text("def softmax(x, dim=-1):\n    return x\n")
    with pytest.raises(ContentError, match=r"challenge\.toml:\d+: \[diagnoses\]: no diagnosis for "
                                           r"meta/variants/bug_new\.py"):
        read_challenge(softmax_copy)


def test_a_diagnosis_must_be_words_for_a_planted_bug(softmax_copy):
    message, text = broken(softmax_copy, 'bug_no_max_shift = "overflows"', 'bug_no_max_shift = 3')
    assert message.endswith(f":{line_of(text, 'bug_no_max_shift')}: [diagnoses]: the diagnosis of "
                            "'bug_no_max_shift' must be a non-empty string")
    message, _ = broken(softmax_copy, 'bug_no_max_shift = 3', 'ok_movedim = "fine"')
    assert "'ok_movedim' is not a planted bug" in message


def test_syntax_errors_and_a_missing_suite(softmax_copy):
    message, text = broken(softmax_copy, "[weights]", "[weights")
    assert message.startswith(f"{softmax_copy / 'meta' / 'challenge.toml'}:{line_of(text, '[weights')}: "
                              "not valid TOML")
    (softmax_copy / "meta" / "challenge.toml").write_text(text.replace("[weights", "[weights]"))
    (softmax_copy / "meta" / "test_hidden.py").unlink()
    with pytest.raises(ContentError, match=r"meta/test_hidden\.py: missing"):
        read_challenge(softmax_copy)


def test_an_installed_copy_without_variants_still_loads(softmax_copy):
    shutil.rmtree(softmax_copy / "meta" / "variants")  # as in the wheel
    challenge = read_challenge(softmax_copy)
    assert challenge.diagnoses == load_challenge("softmax").diagnoses and challenge.variants("bug") == []


# --- the import map: challenges -> grading never ------------------------------------------------

def imported_modules(path: Path, where: Path | None = None) -> set[str]:
    """Every module a file imports, at the top or inside a function, relative imports resolved
    as if the file lived at `where` (default: where it is)."""
    package = ".".join((where or path).relative_to(REPO).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            found |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return found


def package_edges(package: str) -> set[str]:
    """The quizforge subpackages (or top-level modules) that modules of `package` import."""
    edges = set()
    for path in (PACKAGE / package).rglob("*.py"):
        for name in imported_modules(path):
            parts = name.split(".")
            if parts[0] == "quizforge" and len(parts) > 1 and parts[1] != package:
                edges.add(parts[1])
    return edges


def test_the_challenges_never_import_the_grader():
    for path in sorted((PACKAGE / "challenges").rglob("*.py")):
        assert not {m for m in imported_modules(path) if m == "quizforge.grading"
                    or m.startswith("quizforge.grading.")}, path.name
    # Grading reads the challenges; the arrow goes one way only, so there is no cycle.
    assert "grading" not in package_edges("challenges")
    assert "challenges" in package_edges("grading")


def test_the_import_check_sees_every_spelling(tmp_path):
    fake = REPO / "quizforge" / "challenges" / "example.py"  # a path inside the package, never written
    sources = ["from quizforge.grading.judge.hidden_suite import run_suite", "import quizforge.grading",
               "from quizforge import grading", "def f():\n    from ..grading import sandbox"]
    for source in sources:
        path = tmp_path / "example.py"
        path.write_text(source + "\n")
        found = {m for m in imported_modules(path, where=fake) if m.startswith("quizforge.grading")}
        assert found, source


# --- a hidden suite imports the suites' API only -------------------------------------------------

SUITE_ROOTS = set(sys.stdlib_module_names) | {"torch", "pytest"}


def suite_imports(path: Path) -> set[str]:
    """What a suite imports, as dotted names: `from quizforge import x` reads as quizforge.x, and a
    relative import keeps its dots (a suite is not in a package, so none is allowed)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level:
            found.add("." * node.level + (node.module or ""))
        elif isinstance(node, ast.ImportFrom):
            found |= ({f"quizforge.{alias.name}" for alias in node.names} if node.module == "quizforge"
                      else {node.module})
    return found


def refused_suite_imports(path: Path) -> set[str]:
    return {name for name in suite_imports(path) if name.split(".")[0] not in SUITE_ROOTS
            and name != "quizforge.challenges" and not name.startswith("quizforge.challenges.")}


@pytest.mark.parametrize("challenge", challenge_ids())
def test_every_hidden_suite_imports_only_the_suites_api(challenge):
    """quizforge.challenges, torch, pytest and the standard library: never the grader (its worker's
    modules included), nor the rest of quizforge."""
    path = REPO / "exercises" / challenge / "meta" / "test_hidden.py"
    assert refused_suite_imports(path) == set()
    assert "quizforge.challenges" in suite_imports(path)


def test_the_suite_import_check_refuses_what_the_suites_once_imported(tmp_path):
    path = tmp_path / "test_hidden.py"
    refused = {"from quizforge.grading.sandbox_inside.models import TableLM": "quizforge.grading.sandbox_inside.models",
               "from quizforge.grading.sandbox_inside import models": "quizforge.grading.sandbox_inside",
               "from quizforge import grading": "quizforge.grading",
               "def f():\n    import quizforge.reference.mha": "quizforge.reference.mha",
               "from quizforge.reference.attention import causal_mask": "quizforge.reference.attention",
               "import numpy": "numpy",
               "from . import helpers": "."}
    for source, name in refused.items():
        path.write_text(source + "\n")
        assert refused_suite_imports(path) == {name}, source
    path.write_text("from __future__ import annotations\nimport math\nimport torch.nn.functional as F\n"
                    "import pytest\nfrom quizforge.challenges import checks, models\n"
                    "from quizforge.challenges.models import TableLM\nfrom quizforge import challenges\n")
    assert refused_suite_imports(path) == set()


def test_the_models_the_worker_builds_are_the_suites_own():
    """One definition on both sides: the hidden suites import quizforge.challenges.models, and that file
    is what the worker holds as its models.py (see test_grading_trust for the worker's own imports)."""
    from quizforge.challenges import models
    from quizforge.grading.sandbox_host.sandbox import worker_modules

    assert Path(worker_modules()["models.py"]) == Path(models.__file__)
    assert not (PACKAGE / "grading" / "sandbox_inside" / "models.py").exists()
    assert not {m for m in imported_modules(Path(models.__file__)) if m.startswith("quizforge")}


# --- what a plain wheel carries -----------------------------------------------------------------

def test_a_plain_wheel_ships_the_challenges_but_not_the_answers(tmp_path):
    """`pip install .` (not editable), with no quizforge/exercises link: the wheel holds what `quiz
    challenges start` copies and what `quiz grade` runs, the worker's modules, and pytest as a
    runtime dependency; never the planted bugs or the reference solutions."""
    # From a copy: setuptools packs whatever a checkout's build/ already holds, stale files included.
    source = tmp_path / "source"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis",
        "*.tar.gz"))
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(tmp_path), str(source)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    wheel = next(tmp_path.glob("quizforge-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    for challenge in challenge_ids():
        for name in SHIPPED:
            assert f"quizforge/exercises/{challenge}/{name}" in names, (challenge, name)
    shipped = {n for n in names if n.startswith("quizforge/exercises/")}
    assert len(shipped) == len(SHIPPED) * len(challenge_ids())
    assert not any("variants" in n.split("/") or n.startswith("solutions/") or "/solutions/" in n for n in names)
    for module in ("sandbox_host/launcher.py", "sandbox_inside/__init__.py", "sandbox_inside/worker.py",
                   "sandbox_inside/protocol.py", "sandbox_inside/guards.py"):
        assert f"quizforge/grading/{module}" in names, module
    assert "quizforge/grading/judge/pytest.ini" in names and "quizforge/challenges/submission.py" in names
    for module in ("answers/grammar.py", "answers/matrices.py", "render/terminal.py", "render/question.py"):
        assert f"quizforge/{module}" in names, module
    # the browser mock's page and everything it loads, KaTeX's fonts included
    for asset in ("web/templates/exam.html", "web/static/exam.js", "web/static/keypad.js", "web/static/calculator.js",
                  "web/static/gate.css", "web/static/katex/katex.min.js", "web/static/katex/LICENSE"):
        assert f"quizforge/{asset}" in names, asset
    assert any(n.startswith("quizforge/web/static/katex/fonts/") and n.endswith(".woff2") for n in names)
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    text = zipfile.ZipFile(wheel).read(metadata).decode()
    assert "Requires-Python: >=3.11" in text
    assert any(line.startswith("Requires-Dist: pytest") and "extra" not in line for line in text.splitlines())


# --- the README says where things are ------------------------------------------------------------

def test_every_path_the_readme_layout_names_exists():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    firsts = [line.split()[0] for line in block.splitlines() if line.strip() and not line.startswith(" ")]
    assert "exercises/<id>/" in firsts and "solutions/<id>.py" in firsts
    for first in firsts:
        for challenge in (challenge_ids() if "<id>" in first else [None]):
            path = REPO / first.replace("<id>", challenge or "")
            assert path.exists(), first
    assert not (PACKAGE / "exercises").exists() and not (REPO / "tests" / "challenge_variants").exists()


def test_no_hidden_suite_reads_a_file():
    # What the README promises of the wheel: grading needs no solutions/ (nor the variants), as
    # no suite opens a file; their expected answers are computed.
    for challenge in challenge_ids():
        tree = ast.parse(load_challenge(challenge).suite_files[0].read_text(encoding="utf-8"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
        attributes = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        modules = {m.split(".")[0] for m in imported_modules(load_challenge(challenge).suite_files[0])}
        assert not names & {"open", "__file__"}, challenge
        assert not attributes & {"read_text", "read_bytes", "open", "load"}, challenge
        assert not modules & {"os", "pathlib", "importlib", "io", "runpy"}, challenge
