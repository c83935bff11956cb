"""The import graph of quizforge/, read with `ast` (every import, at a file's top or inside a
function, but for those under `if TYPE_CHECKING:`): no cycle between files, and no import from a
lower layer up to a higher one. The checks are tried on planted violations too."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "quizforge"

# Lowest first: a module may import its own layer and those before it, never one after it.
# A layer is a list of module prefixes; the longest prefix that names a module decides its layer.
LAYERS = [
    ("shared", ["quizforge", "quizforge.errors", "quizforge.datafiles", "quizforge.suggest", "quizforge.threads",
                "quizforge.torch_import"]),
    ("text", ["quizforge.text"]),                               # Markdown with TeX, for every medium
    ("reference", ["quizforge.reference"]),
    ("accounting", ["quizforge.accounting"]),
    ("answer grammar", ["quizforge.answers"]),                  # numbers, units, keys, choices, matrices
    ("hand calculations", ["quizforge.handcalc"]),
    ("question model", ["quizforge.bank.question"]),
    ("answer checking", ["quizforge.answers.question_keys", "quizforge.answers.matrix_questions",
                         "quizforge.answers.verdict", "quizforge.answers.check"]),
    ("bank", ["quizforge.bank"]),
    ("challenges", ["quizforge.challenges"]),
    ("grading", ["quizforge.grading"]),
    ("maintainer tools", ["quizforge.maintainer"]),             # measure_ops, measure_loopholes, readme_challenges
    ("engines", ["quizforge.practice", "quizforge.problemsets"]),
    ("terminal drawing", ["quizforge.render"]),
    ("terminal screens", ["quizforge.tui"]),
    ("browser", ["quizforge.web"]),
    ("command line", ["quizforge.cli", "quizforge.__main__"]),
]

# (importer prefix, imported prefix): never, whatever the layers say.
FORBIDDEN = [
    ("quizforge.challenges", "quizforge.grading"),   # a hidden suite's API knows nothing of the judge
]

# What runs inside the sandbox imports nothing of quizforge but itself: nothing else is there
# (README, "What grading guarantees"; challenges/models.py is copied in as a file, not imported).
SANDBOXED = "quizforge.grading.sandbox_inside"
SANDBOX_MAY_IMPORT = [SANDBOXED]

ENGINES = ["quizforge.practice"]
SCREEN_LIBRARIES = ["rich", "prompt_toolkit"]


# --------------------------------------------------------------------------- the graph

def module_files(root: Path) -> dict[str, Path]:
    """Dotted module name → file, for every .py under `root` (a package folder)."""
    names = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        names[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return names


def _type_checking_only(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_names(name: str, path: Path, files: dict[str, Path]) -> set[str]:
    """Every dotted name `path` imports, relative imports resolved: `from a import b` is a.b when
    that is a module of `files`, else a."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking_only(child):
                for other in child.orelse:
                    visit_node(other)
            else:
                visit_node(child)

    def visit_node(node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(parts + ([node.module] if node.module else []))
            found.update(f"{base}.{alias.name}" if f"{base}.{alias.name}" in files else base for alias in node.names)
        else:
            visit(node)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


def import_graph(root: Path) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(module → the modules of `root` it imports, module → the outside top-level packages it imports)."""
    files = module_files(root)
    inside: dict[str, set[str]] = {}
    outside: dict[str, set[str]] = {}
    for name, path in files.items():
        inside[name] = set()
        for dotted in imported_names(name, path, files):
            if dotted.split(".")[0] != root.name:
                outside.setdefault(name, set()).add(dotted.split(".")[0])
                continue
            while dotted not in files:    # a name inside a module: the module
                dotted = dotted.rpartition(".")[0]
            if dotted != name:
                inside[name].add(dotted)
    return inside, outside


# --------------------------------------------------------------------------- the checks

def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import each other, directly or not (Tarjan's strongly
    connected components of more than one module)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def layer_of(module: str, layers=LAYERS) -> int | None:
    best, best_len = None, -1
    for rank, (_, prefixes) in enumerate(layers):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    return best


def _under(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_violations(graph: dict[str, set[str]], layers=LAYERS, forbidden=FORBIDDEN) -> list[str]:
    """One line per import that goes up the layers or is forbidden outright."""
    found = []
    for module, targets in sorted(graph.items()):
        rank = layer_of(module, layers)
        for target in sorted(targets):
            up = layer_of(target, layers)
            if rank is not None and up is not None and up > rank:
                found.append(f"{module} ({layers[rank][0]}) imports {target} ({layers[up][0]})")
            found += [f"{module} imports {target}: {a} never imports {b}"
                      for a, b in forbidden if _under(module, a) and _under(target, b)]
    return found


def sandbox_violations(graph: dict[str, set[str]]) -> list[str]:
    return [f"{module} imports {target}, which the sandbox does not hold"
            for module, targets in sorted(graph.items()) if _under(module, SANDBOXED)
            for target in sorted(targets) if not any(_under(target, p) for p in SANDBOX_MAY_IMPORT)]


# --------------------------------------------------------------------------- quizforge itself

@pytest.fixture(scope="module")
def graph():
    return import_graph(PACKAGE)


def test_every_module_has_a_layer(graph):
    inside, _ = graph
    assert [m for m in inside if layer_of(m) is None] == []
    assert all(any(layer_of(m) == rank for m in inside) for rank in range(len(LAYERS))), "a layer names nothing"


def test_no_file_imports_itself_back_through_others(graph):
    inside, _ = graph
    assert cycles(inside) == []


def test_no_import_goes_up_a_layer(graph):
    inside, _ = graph
    assert layer_violations(inside) == []


def test_the_sandboxed_package_imports_nothing_else_of_quizforge(graph):
    inside, _ = graph
    assert any(_under(m, SANDBOXED) for m in inside), f"{SANDBOXED} moved: name its new home here"
    assert sandbox_violations(inside) == []


def test_engines_draw_nothing(graph):
    _, outside = graph
    drawing = {m: sorted(outside.get(m, set()) & set(SCREEN_LIBRARIES))
               for m in outside if any(_under(m, e) for e in ENGINES)}
    assert {m: libs for m, libs in drawing.items() if libs} == {}


def test_no_command_module_imports_the_command_group(graph):
    inside, _ = graph
    assert [m for m, targets in inside.items() if _under(m, "quizforge.cli") and "quizforge.cli" in targets] == []


# --------------------------------------------------------------------------- planted violations

def test_a_planted_cycle_is_found():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_a_planted_upward_import_is_found():
    layers = [("low", ["p.low"]), ("high", ["p.high"])]
    assert layer_violations({"p.high.x": {"p.low.y"}}, layers, []) == []
    assert layer_violations({"p.low.y": {"p.high.x"}}, layers, []) == ["p.low.y (low) imports p.high.x (high)"]
    assert layer_violations({"quizforge.challenges.checks": {"quizforge.grading.judge.hidden_suite"}}) != []
    assert sandbox_violations({"quizforge.grading.sandbox_inside.worker": {"quizforge.reference.attention"}}) != []


def test_the_graph_reader_sees_imports_in_functions_and_relative_ones(tmp_path):
    root = tmp_path / "pkg"
    (root / "sub").mkdir(parents=True)
    (root / "__init__.py").write_text("")
    (root / "sub" / "__init__.py").write_text("")
    (root / "a.py").write_text("def f():\n    from pkg.sub import b\n")
    (root / "sub" / "b.py").write_text("from .. import a\nimport json\n")
    (root / "sub" / "c.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg import a\n")
    inside, outside = import_graph(root)
    assert inside["pkg.a"] == {"pkg.sub.b"} and inside["pkg.sub.b"] == {"pkg.a"} and inside["pkg.sub.c"] == set()
    assert outside["pkg.sub.b"] == {"json"}
    assert cycles(inside) == [["pkg.a", "pkg.sub.b"]]
