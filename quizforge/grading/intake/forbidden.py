"""Forbidden APIs: the judge's static check of the source, before anything runs.

A challenge forbids dotted names such as `torch.nn.functional.softmax` or
`torch.Tensor.softmax`. The judge reads the submission's AST before anything runs
and rejects any reference that resolves to one of them: `torch.softmax`, `F.softmax`
after `import torch.nn.functional as F`, `from torch.nn.functional import softmax`,
`getattr(F, "softmax")`, and `x.softmax(...)` when the Tensor method is forbidden.
A torch-rooted name with a forbidden leaf (`torch.special.softmax`) counts as the
same API. In every challenge, whatever could hide a call is rejected too: dynamic code and
imports (`eval`, `exec`, `__import__`, `importlib`, `globals()`, ...), attribute access
by computed names (`getattr(x, "_soft" + "max")`), the interpreter's internals
(`__globals__`, `__subclasses__`, `sys._getframe`, `ctypes`, `gc`, `inspect`), torch's
private and operator namespaces (`torch._C`, `torch.ops`, `torch.library`), and
`import quizforge` (the sandbox does not hold the package; saying so early is kinder).

It is an allow-list, not only a deny-list: a submission may import only the modules the
worker's capability compile allows (capability.allowed_modules: every challenge's and the
challenge's own `imports`, the one list both sides read), and
may not write any name or attribute
starting with "_" except the dunder methods a class defines (`def __init__`,
`super().__init__()`, ALLOWED_DUNDERS) and `self._x` inside its own methods, so
`T = (torch,)[0]; T._C`, `pkgutil.resolve_name(...)` and `pydoc.locate(...)` are refused
however the object was reached. The walk is iterative and linear, and a tree deeper than
capability.MAX_DEPTH or larger than capability.MAX_NODES is refused before anything else.

This check gives clear early messages, by line; it is not the rule that holds. The worker
compiles the submission so that it can name only what capability.py allows, whatever this
check missed, and the sandbox holds no copy of the reference to import.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Iterable

from quizforge.grading.sandbox_inside import capability

DYNAMIC_NAMES = {"eval", "exec", "compile", "__import__", "__builtins__", "breakpoint", "globals", "locals", "vars"}
DYNAMIC_MODULES = {"importlib", "builtins", "imp", "runpy", "marshal", "pickle", "code", "codeop",
                   "ctypes", "_ctypes", "gc", "inspect", "types", "operator"}
COMPUTED_LOOKUPS = {"getattr", "setattr", "delattr"}
INTERNAL_ATTRIBUTES = {
    "__dict__", "__globals__", "__builtins__", "__code__", "__closure__", "__subclasses__", "__bases__",
    "__base__", "__mro__", "__getattribute__", "__getattr__", "__import__", "__loader__", "__spec__",
    "__self__", "__func__", "__wrapped__", "__reduce__", "__reduce_ex__", "__setattr__", "__delattr__",
    "__class__", "f_globals", "f_locals", "f_back", "gi_frame", "tb_frame",
}
# Ways into torch below its Python API, or around the worker's guards (compiled code runs
# without the torch-function guard).
TORCH_INTERNALS = {"ops", "library", "overrides", "utils._python_dispatch", "jit", "compile", "fx", "export",
                   "package", "hub", "utils.cpp_extension", "cuda.jiterator"}
PACKAGE = "quizforge"
# Public names that still run code the source does not show, or reach past the guards.
HIDDEN_CODE = {"typing.get_type_hints", "typing.ForwardRef", "numpy.ctypeslib", "numpy.f2py", "numpy.distutils",
               "numpy.testing", "numpy.load", "torch.load", "torch.serialization", "torch.multiprocessing",
               "torch.classes", "torch.distributed", "torch.cuda.jiterator"}
# Dunder names a submission may write: the methods a class defines and calls on super().
ALLOWED_DUNDERS = capability.ALLOWED_DUNDERS
ALWAYS_REFUSED_CALLS = {"open", "input", "breakpoint", "exit", "quit", "help", "memoryview"}


@dataclass(frozen=True)
class Violation:
    api: str        # the forbidden API, e.g. "torch.nn.functional.softmax", or "eval"
    written: str    # what the source says, e.g. "F.softmax"
    lineno: int
    # The modules the challenge allows, as the worker's capability compile allows them (for "import").
    allowed: frozenset[str] = capability.EVERY_CHALLENGE

    def describe(self) -> str:
        if self.api == PACKAGE:
            return (f"line {self.lineno}: {self.written}: a submission cannot use quizforge (its reference "
                    "is the answer key); write the code yourself")
        if self.api == "import":
            module = self.written.split()[1]
            return (f"line {self.lineno}: `{module}` cannot be imported: it is not allowed in a submission; "
                    f"allowed: {', '.join(capability.import_roots(self.allowed))}")
        if self.api == "limits":
            return self.written
        if self.api == "unlisted":
            return (f"line {self.lineno}: `{self.written}` is not available in a submission: a module hands out "
                    "only its public API")
        if self.api == "match":
            return (f"line {self.lineno}: `match` statements are not allowed in a submission (a class pattern "
                    "reads attributes past the checks); use if/elif")
        if self.api == "private":
            return (f"line {self.lineno}: `{self.written}`: names starting with `_` are not allowed in a submission "
                    "(they reach Python's or torch's internals); `self._x` in your own methods and dunder "
                    "methods such as `__init__` are fine")
        if self.api == "hidden":
            return (f"line {self.lineno}: {self.written} runs code the source does not show, "
                    "which is not allowed in a submission")
        if self.api in ALWAYS_REFUSED_CALLS:
            return f"line {self.lineno}: {self.written} is not allowed in a submission"
        if self.api == "internals":
            return (f"line {self.lineno}: {self.written} reaches into the interpreter's or torch's internals, "
                    "which is not allowed in a submission")
        if self.api in COMPUTED_LOOKUPS:
            return (f"line {self.lineno}: {self.written} looks up an attribute by a computed name, "
                    "which is not allowed in a submission (write the name out)")
        if self.api in DYNAMIC_NAMES or self.api.split(".")[0] in DYNAMIC_MODULES or self.api == "sys.modules":
            return (f"line {self.lineno}: {self.written} is not allowed in a submission "
                    "(dynamic code and imports are rejected)")
        shown = self.written if self.written == self.api else f"{self.written} ({self.api})"
        return f"line {self.lineno}: {shown} is forbidden in this challenge"


# --- static check ----------------------------------------------------------------

class _Resolver:
    """Maps local names to the dotted module paths they were imported or assigned from."""

    def __init__(self, tree: ast.AST):
        self.aliases: dict[str, str] = {}
        nodes = list(ast.walk(tree))
        for node in nodes:
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.asname:
                        self.aliases[a.asname] = a.name
                    else:
                        root = a.name.split(".")[0]
                        self.aliases[root] = root
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for a in node.names:
                    if a.name != "*":
                        self.aliases[a.asname or a.name] = f"{node.module}.{a.name}"
        # `F = torch.nn.functional` and the like, flow-insensitively; twice for chains.
        for _ in range(2):
            for node in nodes:
                if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                    path = self.resolve(node.value)
                    if path:
                        self.aliases[node.targets[0].id] = path

    def resolve(self, node: ast.AST) -> str | None:
        """The dotted path an expression names, or None; a loop, not recursion (chains may be long)."""
        parts: list[str] = []
        while True:
            if isinstance(node, ast.Name):
                base = self.aliases.get(node.id)
                return ".".join([base, *reversed(parts)]) if base else None
            if isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            elif _is_getattr(node) and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
                parts.append(node.args[1].value)
                node = node.args[0]
            else:
                return None


def _is_getattr(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
            and len(node.args) >= 2)


class _Rules:
    def __init__(self, forbidden: Iterable[str]):
        self.exact = set(forbidden)
        # torch.special.softmax and torch.softmax are torch.nn.functional.softmax by another
        # name, and nn.LayerNorm is layer_norm in a class: compare leaves without case or "_".
        self.leaves = {_leaf(name): name for name in sorted(self.exact)}
        # Method names that are forbidden on any tensor, e.g. "softmax" for torch.Tensor.softmax.
        self.methods = {name.rsplit(".", 1)[-1]: name for name in self.exact if name.startswith("torch.Tensor.")}

    def match(self, path: str) -> str | None:
        for name in self.exact:
            if path == name or path.startswith(name + "."):
                return name
        if path.split(".")[0] == "torch":
            return self.leaves.get(_leaf(path))
        return None


def _leaf(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1].replace("_", "").lower()


def _written(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # noqa: BLE001 - only for the message
        return "<expression>"


def _internal(path: str) -> bool:
    """torch._C, torch.ops.aten, torch.library, sys._getframe and the like."""
    root, _, rest = path.partition(".")
    if root == "torch" and rest:
        return any(part.startswith("_") and part != "__version__" for part in rest.split(".")) \
            or any(rest == name or rest.startswith(name + ".") for name in TORCH_INTERNALS)
    return root == "sys" and rest.startswith("_")


def _constant_name(call: ast.Call) -> str | None:
    arg = call.args[1] if len(call.args) >= 2 else None
    return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def _private_name(name: str) -> bool:
    """A name or attribute the submission may not write: a dunder outside ALLOWED_DUNDERS, or any
    other name starting with "_" (an attribute; the caller allows `self._x`)."""
    return name.startswith("_") and not (_dunder(name) and name in ALLOWED_DUNDERS)


def _unlisted(path: str) -> bool:
    """Whether `path` is a name an allowed module does not hand out by its reviewed list (those
    built from `__all__` are the worker's to judge: this side does not import the module)."""
    parts = path.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        spec = capability.MODULES.get(module)
        if spec is None:
            continue
        name = parts[cut]
        if f"{module}.{name}" in capability.MODULES:
            return False
        return name in spec.drop or (spec.only is not None and name not in spec.only)
    return False


def _hidden(path: str) -> bool:
    return any(path == name or path.startswith(name + ".") for name in HIDDEN_CODE)


def check_source(tree: ast.Module, forbidden: Iterable[str], imports: Iterable[str] = ()) -> list[Violation]:
    """Every reference to a forbidden, dynamic or internal API, and everything outside the
    allow-lists (imports beyond every challenge's and the challenge's own `imports`, private
    names), in source order."""
    allowed = capability.allowed_modules(imports)
    problem = capability.bounded(tree)
    if problem:
        return [Violation("limits", problem, 0)]
    rules = _Rules(forbidden)
    resolver = _Resolver(tree)
    found: list[Violation] = []
    own_attributes = capability.own_self_nodes(tree)
    # getattr(x, "name") with the name written out is fine; any other use of it is a computed lookup.
    written_out = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)
                   and isinstance(node.func, ast.Name) and node.func.id in COMPUTED_LOOKUPS
                   and _constant_name(node) is not None}

    def flag(api: str, node: ast.AST, written: str | None = None) -> None:
        found.append(Violation(api, written or _written(node), getattr(node, "lineno", 0), allowed))

    def check_module(module: str, node: ast.AST, written: str) -> bool:
        root = module.split(".")[0]
        if root == PACKAGE:
            flag(PACKAGE, node, written)
        elif root in DYNAMIC_MODULES:
            flag(module, node, written)
        elif not capability.allowed_import(module, allowed):
            private = any(part.startswith("_") for part in module.split(".")[1:])
            flag("private" if private else "import", node, written)
        elif _internal(module):
            flag("internals", node, written)
        elif _hidden(module):
            flag("hidden", node, written)
        else:
            return False
        return True

    for node in ast.walk(tree):
        if isinstance(node, ast.Match):
            flag("match", node, "match")
        elif isinstance(node, ast.Import):
            for a in node.names:
                if not check_module(a.name, node, f"import {a.name}") and rules.match(a.name):
                    flag(rules.match(a.name), node, f"import {a.name}")
        elif isinstance(node, ast.ImportFrom) and (node.level or not node.module):
            flag("import", node, f"from {'.' * node.level}{node.module or ''} import ...")
        elif isinstance(node, ast.ImportFrom):
            if check_module(node.module, node, f"from {node.module} import ..."):
                continue
            for a in node.names:
                full = f"{node.module}.{a.name}"
                api = rules.match(full)
                if api:
                    flag(api, node, f"from {node.module} import {a.name}")
                elif a.name.startswith("_") and node.module != "__future__":
                    flag("private", node, f"from {node.module} import {a.name}")
                elif _hidden(full):
                    flag("hidden", node, f"from {node.module} import {a.name}")
                elif full == "sys.modules":
                    flag("sys.modules", node, "from sys import modules")
                elif _unlisted(full):
                    flag("unlisted", node, full)
                elif _internal(full) or a.name in INTERNAL_ATTRIBUTES:
                    flag("internals", node, f"from {node.module} import {a.name}")
        elif isinstance(node, ast.Name) and node.id in DYNAMIC_NAMES:
            flag(node.id, node)
        elif isinstance(node, ast.Name) and node.id in COMPUTED_LOOKUPS and id(node) not in written_out:
            flag(node.id, node)
        elif isinstance(node, ast.Name) and node.id in ALWAYS_REFUSED_CALLS:
            flag(node.id, node)
        elif isinstance(node, ast.Name) and _dunder(node.id) and _private_name(node.id):
            flag("private", node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _dunder(node.name) \
                and _private_name(node.name):
            flag("private", node, f"def {node.name}")
        elif isinstance(node, ast.Attribute):
            if node.attr in INTERNAL_ATTRIBUTES:
                flag("internals", node)
                continue
            if _private_name(node.attr) and id(node) not in own_attributes:
                flag("private", node)
                continue
            path = resolver.resolve(node)
            if path:
                api = rules.match(path)
                if api:
                    flag(api, node)
                elif _hidden(path):
                    flag("hidden", node)
                elif path == "sys.modules" or path.split(".")[0] in DYNAMIC_MODULES:
                    flag(path, node)
                elif path.split(".")[0] == PACKAGE:
                    flag(PACKAGE, node)
                elif _internal(path):
                    flag("internals", node)
                elif _unlisted(path):
                    flag("unlisted", node, path)
            elif node.attr in rules.methods:
                flag(rules.methods[node.attr], node)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in COMPUTED_LOOKUPS:
            name = _constant_name(node)
            if name is None:
                continue  # flagged as a computed lookup above
            if name in INTERNAL_ATTRIBUTES:
                flag("internals", node)
                continue
            if _private_name(name):
                flag("private", node)
                continue
            path = resolver.resolve(node)
            if path and _internal(path):
                flag("internals", node)
                continue
            api = rules.match(path) if path else rules.methods.get(name)
            if api:
                flag(api, node)
    # Attribute chains are visited at every level (F.softmax inside F.softmax.__call__): keep one per spot.
    unique: dict[tuple[int, str], Violation] = {}
    for v in found:
        unique.setdefault((v.lineno, v.api), v)
    return sorted(unique.values(), key=lambda v: v.lineno)


def top_level_names(tree: ast.Module) -> set[str] | None:
    """Names the module binds at top level; None when `from x import *` makes that unknowable."""
    names: set[str] = set()

    def targets(node: ast.AST) -> None:
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for elt in node.elts:
                targets(elt)
        elif isinstance(node, ast.Starred):
            targets(node.value)

    def block(stmts: list[ast.stmt]) -> bool:
        for stmt in stmts:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                for t in stmt.targets:
                    targets(t)
            elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)) and stmt.value is not None:
                targets(stmt.target)
            elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for a in stmt.names:
                    if a.name == "*":
                        return False
                    names.add(a.asname or a.name.split(".")[0])
            elif isinstance(stmt, (ast.For, ast.AsyncFor)):
                targets(stmt.target)
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if item.optional_vars is not None:
                        targets(item.optional_vars)
            for field in ("body", "orelse", "finalbody"):
                if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    if not block(getattr(stmt, field, []) or []):
                        return False
            for handler in getattr(stmt, "handlers", []) or []:
                if not block(handler.body):
                    return False
        return True

    return names if block(tree.body) else None
