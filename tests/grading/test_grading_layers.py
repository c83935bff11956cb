"""Grading is a library without a screen: quizforge.grading imports no rich; the CLI draws
the table, and loads what draws it before any submission code runs."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from grading_support import write_submission
from quizforge.grading.judge.hidden_suite import SuiteResult
from quizforge.grading.judge.hidden_suite import TestResult as Case  # not "Test*": pytest would try to collect it

GRADING = Path(__file__).resolve().parents[2] / "quizforge" / "grading"
SCREEN = {"rich", "click", "prompt_toolkit"}


def test_no_grading_module_imports_rich_even_inside_a_function():
    for file in GRADING.rglob("*.py"):
        for node in ast.walk(ast.parse(file.read_text())):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level:
                roots = {(node.module or "").split(".")[0]}
            else:
                continue
            assert not roots & SCREEN, (file.name, roots)


def test_importing_every_grading_module_loads_no_rich():
    code = ("import importlib, pkgutil, sys, quizforge.grading as g\n"
            "names = [m.name for m in pkgutil.walk_packages(g.__path__, 'quizforge.grading.')]\n"
            "for name in names:\n"
            "    importlib.import_module(name)\n"
            "print(len(names), sorted({m.split('.')[0] for m in sys.modules} & {'rich', 'click', 'prompt_toolkit'}))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    count, loaded = done.stdout.split(" ", 1)
    assert int(count) >= 20   # results, judge, grade, sandbox, batch, … and the worker's modules
    assert loaded.strip() == "[]"


def test_quiz_grade_loads_the_table_before_grading(run_quiz, tmp_path, monkeypatch):
    """What draws the result is imported before the submission runs (see the README's
    'What grading guarantees'): here grade() checks that it is already loaded."""
    import quizforge.cli
    import quizforge.grading.grade as grade_module

    # Unloaded, so that only the command itself can load it again (its module-level imports: rich).
    monkeypatch.delitem(sys.modules, "quizforge.cli.grade_view", raising=False)
    monkeypatch.delattr(quizforge.cli, "grade_view", raising=False)
    loaded_first = []

    def fake_grade(path, challenge, **kwargs):
        loaded_first.append("quizforge.cli.grade_view" in sys.modules)
        return SuiteResult(challenge.id, tests=[Case("test_one", "passed", 2.0, 2.0), Case("test_two", "failed", 0.0,
                                                                                         3.0, "wrong")])

    monkeypatch.setattr(grade_module, "grade", fake_grade)
    path = write_submission(tmp_path, "def softmax(x, dim=-1):\n    return x\n")
    code, out, err = run_quiz("grade", str(path), "--challenge", "softmax")
    assert code == 0, err
    assert loaded_first == [True]
    assert "quiz grade: softmax" in out and "2/5" in out and "1/2 passed" in out


def _room(path: Path) -> str:
    """The folder of grading a file is in ("grade" for grade.py at the top)."""
    parts = path.relative_to(GRADING).parts
    return parts[0] if len(parts) > 1 else path.stem


def _rooms_imported(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                 else [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["quizforge", "grading"] and len(parts) > 2:
                found.add(parts[2])
            elif parts[0] == "quizforge" and path.is_relative_to(GRADING / "sandbox_inside"):
                found.add(name)  # the inside imports nothing of quizforge: any such name is out of place
    return found


def test_each_room_of_grading_imports_only_the_rooms_below_it():
    from quizforge.grading import LAYERS

    rank = {room: level for level, rooms in enumerate(LAYERS) for room in rooms}
    files = [f for f in GRADING.rglob("*.py") if f.parent != GRADING or f.name == "grade.py"]
    assert {_room(f) for f in files} == set(rank)
    for file in files:
        mine = rank[_room(file)]
        for room in _rooms_imported(file) - {_room(file)}:
            assert rank.get(room, mine) < mine, (file.relative_to(GRADING), room)


def test_no_two_files_of_grading_share_a_name():
    names = [f.name for f in GRADING.rglob("*.py") if f.name != "__init__.py"]
    assert sorted(set(names)) == sorted(names)
