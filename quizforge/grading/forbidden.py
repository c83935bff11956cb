"""Forbidden APIs: a static check of the source (judge) and runtime traps (worker).

A challenge forbids dotted names such as `torch.nn.functional.softmax` or
`torch.Tensor.softmax`. The judge reads the submission's AST before anything runs
and rejects any reference that resolves to one of them: `torch.softmax`, `F.softmax`
after `import torch.nn.functional as F`, `from torch.nn.functional import softmax`,
`getattr(F, "softmax")`, and `x.softmax(...)` when the Tensor method is forbidden.
A torch-rooted name with a forbidden leaf (`torch.special.softmax`) counts as the
same API. Dynamic code and imports (`eval`, `exec`, `__import__`, `importlib`, ...)
are rejected in every challenge: their only use in a submission is to hide a call.

The static check cannot see everything, so the worker also replaces each forbidden
callable by a trap that raises and records the call; the judge reports the request
as kind "forbidden" even if the submission swallowed the exception.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from typing import Iterable

DYNAMIC_NAMES = {"eval", "exec", "compile", "__import__", "__builtins__", "breakpoint"}
DYNAMIC_MODULES = {"importlib", "builtins", "imp", "runpy", "marshal", "pickle", "code", "codeop"}


@dataclass(frozen=True)
class Violation:
    api: str        # the forbidden API, e.g. "torch.nn.functional.softmax", or "eval"
    written: str    # what the source says, e.g. "F.softmax"
    lineno: int

    def describe(self) -> str:
        if self.api in DYNAMIC_NAMES or self.api.split(".")[0] in DYNAMIC_MODULES or self.api == "sys.modules":
            return (f"line {self.lineno}: {self.written} is not allowed in a submission "
                    "(dynamic code and imports are rejected)")
        if self.api == "getattr":
            return f"line {self.lineno}: {self.written} looks up a torch attribute by a computed name, which is not allowed"
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
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve(node.value)
            return f"{base}.{node.attr}" if base else None
        if _is_getattr(node) and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            base = self.resolve(node.args[0])
            return f"{base}.{node.args[1].value}" if base else None
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


def check_source(tree: ast.Module, forbidden: Iterable[str]) -> list[Violation]:
    """Every reference to a forbidden or dynamic API, in source order."""
    rules = _Rules(forbidden)
    resolver = _Resolver(tree)
    found: list[Violation] = []

    def flag(api: str, node: ast.AST, written: str | None = None) -> None:
        found.append(Violation(api, written or _written(node), getattr(node, "lineno", 0)))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in DYNAMIC_MODULES:
                    flag(a.name, node, f"import {a.name}")
                elif rules.match(a.name):
                    flag(rules.match(a.name), node, f"import {a.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            if node.module.split(".")[0] in DYNAMIC_MODULES:
                flag(node.module, node, f"from {node.module} import ...")
                continue
            for a in node.names:
                api = rules.match(f"{node.module}.{a.name}")
                if api:
                    flag(api, node, f"from {node.module} import {a.name}")
                elif node.module == "sys" and a.name == "modules":
                    flag("sys.modules", node, "from sys import modules")
        elif isinstance(node, ast.Name) and node.id in DYNAMIC_NAMES:
            flag(node.id, node)
        elif isinstance(node, ast.Attribute):
            path = resolver.resolve(node)
            if path:
                api = rules.match(path)
                if api:
                    flag(api, node)
                elif path == "sys.modules" or path.split(".")[0] in DYNAMIC_MODULES:
                    flag(path, node)
            elif node.attr in rules.methods:
                flag(rules.methods[node.attr], node)
        elif _is_getattr(node):
            name = node.args[1]
            if isinstance(name, ast.Constant) and isinstance(name.value, str):
                path = resolver.resolve(node)
                api = rules.match(path) if path else rules.methods.get(name.value)
                if api:
                    flag(api, node)
            elif rules.exact and (resolver.resolve(node.args[0]) or "").split(".")[0] == "torch":
                flag("getattr", node)
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


# --- runtime traps (worker side) -------------------------------------------------

class ForbiddenCall(Exception):
    """Raised by a trap: the submission called a forbidden API."""


# (api, line in the submission) for every trapped call during the current request.
HITS: list[tuple[str, int | None]] = []


def _submission_line(path: str) -> int | None:
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == path:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _trap(api: str, path: str):
    def trap(*args, **kwargs):
        HITS.append((api, _submission_line(path)))
        raise ForbiddenCall(f"{api} is forbidden in this challenge")
    trap.__name__ = api.rsplit(".", 1)[-1]
    trap.__qualname__ = trap.__name__
    return trap


def _resolve_runtime(dotted: str):
    """(owner object, attribute name, current value) for a dotted name, importing its module."""
    import importlib

    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            owner = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:-1]:
            owner = getattr(owner, attr)
        return owner, parts[-1], getattr(owner, parts[-1])
    raise LookupError(dotted)


def install_traps(forbidden: Iterable[str], submission_path: str) -> list[str]:
    """Replace each forbidden callable, and its aliases in torch's namespaces, by a trap.
    Returns the names that could not be trapped (the static check still covers them)."""
    import torch

    namespaces = [torch, torch.functional, torch.nn.functional, torch.special, torch.linalg,
                  torch._C._VariableFunctions, torch._C._nn, torch._C._special, torch.Tensor, torch._C.TensorBase]
    missed = []
    for api in forbidden:
        try:
            owner, attr, original = _resolve_runtime(api)
        except (LookupError, AttributeError):
            missed.append(api)
            continue
        trap = _trap(api, submission_path)
        if isinstance(original, type):
            # A class (e.g. torch.nn.MultiheadAttention): trap construction, whatever it is called.
            def init(self, *args, _trap=trap, **kwargs):
                _trap()
            original.__init__ = init
            continue
        try:
            setattr(owner, attr, trap)
        except (AttributeError, TypeError):
            missed.append(api)
            continue
        for space in namespaces:
            try:
                items = list(vars(space).items())
            except TypeError:
                continue
            for name, value in items:
                if value is original:
                    try:
                        setattr(space, name, trap)
                    except (AttributeError, TypeError):
                        pass  # a C type's own table; the static check covers spelled-out uses
    return missed
