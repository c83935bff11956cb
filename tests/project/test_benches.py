"""The bench scripts are not run by the suite (they take minutes), so a rename in quizforge can
leave one broken until someone needs its figures. Every name a bench imports from quizforge
must still exist, and each must still parse its own --help."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"
SCRIPTS = sorted(BENCH.glob("bench_*.py"))


def quizforge_imports(script: Path) -> list[tuple[str, str | None]]:
    """(module, name) for each `from quizforge… import name` and (module, None) for `import quizforge…`,
    wherever in the file it is (benches import inside main, after parsing their options)."""
    found = []
    for node in ast.walk(ast.parse(script.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("quizforge"):
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names if alias.name.startswith("quizforge")]
    return found


def test_there_are_benches_to_check():
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_every_name_a_bench_imports_from_quizforge_exists(script):
    missing = []
    for module, name in quizforge_imports(script):
        loaded = importlib.import_module(module)
        if name is not None and not hasattr(loaded, name):
            try:
                importlib.import_module(f"{module}.{name}")  # `from package import submodule`
            except ImportError:
                missing.append(f"{module}.{name}")
    assert not missing, f"{script.name} imports names that no longer exist: {missing}"


def test_the_check_finds_a_name_that_is_gone(tmp_path):
    script = tmp_path / "bench_gone.py"
    script.write_text("def main():\n    from quizforge.problemsets.variants import Assigner\n")
    assert quizforge_imports(script) == [("quizforge.problemsets.variants", "Assigner")]
    assert not hasattr(importlib.import_module("quizforge.problemsets.variants"), "Assigner")


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_every_bench_prints_its_help(script):
    done = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-500:]
    assert "usage:" in done.stdout
