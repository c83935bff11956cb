"""What a submission can name: the capability compile, the rule that holds inside the worker.

The worker does not import the submission; it compiles it. The source is rewritten so that
every attribute load goes through one check (`x.y` becomes `__qf_getattr__(x, "y")`), every
attribute store and delete through another, and every import through a third; its builtins
are a fixed safe set. Then a rule is a property of what the code can name, not of a guard
it could lift:

* a name or attribute starting with `_` is refused, but for the dunders a class defines
  (ALLOWED_DUNDERS) and `self._x` on the submission's own objects;
* the attributes that lead to frames, code and globals without an underscore (`gi_frame`,
  `f_back`, `tb_frame`, `co_code`, ...) do not exist: objects of those types show nothing;
* no module is ever a value in the submission's hands: `import torch` binds a ModuleView
  that hands out only that module's public list (MODULES: its `__all__` or its public names,
  reviewed and narrowed), and a module reached any other way (an attribute, a container, a
  return value) is refused wherever it is touched;
* what the challenge forbids is not on the list: its dotted names, their leaf names in every
  allowed module (`torch.special.softmax` is `torch.softmax`), and tensor methods of the same
  leaf (`x.softmax`);
* the builtins hold no `getattr`, `setattr`, `vars`, `dir`, `globals`, `eval`, `exec`,
  `compile`, `open`, `__import__` or three-argument `type`; `str.format` refuses attribute
  and index fields.

So the hooks, the guards and the worker's own modules are unreachable: no name leads to them.
Standard library and torch only, like the rest of this folder; the judge imports the lists
(MODULES, ALLOWED_DUNDERS) for its own static check, so both sides agree by construction.
"""

from __future__ import annotations

import ast
import builtins
import sys
import types
from typing import Iterable

SUBMISSION_MODULE = "submission"
GETATTR, GETATTR_FORMAT, OWN_GETATTR, WRITE, OWN_WRITE, IMPORT, IMPORT_FROM = (
    "__qf_getattr__", "__qf_getattr_format__", "__qf_own_getattr__", "__qf_write__", "__qf_own_write__",
    "__qf_import__", "__qf_import_from__")
GETATTR_DEFAULT = "__qf_getattr_default__"
# str.format and format_map read attributes named in the format string: their own hook.
FORMAT_METHODS = frozenset({"format", "format_map"})
MAX_DEPTH = 100        # nesting of the syntax tree, beyond anything a person writes
MAX_NODES = 200_000    # syntax-tree nodes: about 1 MiB of ordinary code

# Dunder names a submission may write: the methods a class defines and calls on super().
ALLOWED_DUNDERS = frozenset({
    "__init__", "__call__", "__repr__", "__str__", "__len__", "__getitem__", "__setitem__", "__contains__",
    "__iter__", "__next__", "__enter__", "__exit__", "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__",
    "__hash__", "__bool__", "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__matmul__", "__neg__", "__post_init__", "__name__", "__doc__", "__all__", "__slots__"})


class Spec:
    """One allowed module's public list: its `__all__` (or, without one, its public names),
    plus `extra`, less `drop`; or exactly `only`. Submodules are values only when allowed."""

    def __init__(self, extra: Iterable[str] = (), drop: Iterable[str] = (), only: Iterable[str] | None = None):
        self.extra, self.drop = frozenset(extra), frozenset(drop)
        self.only = None if only is None else frozenset(only)

    def names(self, module: types.ModuleType) -> frozenset[str]:
        if self.only is not None:
            return self.only
        listed = getattr(module, "__all__", None)
        base = set(listed) if isinstance(listed, (list, tuple)) else {n for n in vars(module) if not n.startswith("_")}
        return frozenset(n for n in (base | self.extra) - self.drop if not n.startswith("_"))


# torch's names that run code the source does not show, step around the guards, or set up
# what the worker and its thread pools rely on.
_TORCH_DROP = (
    "compile", "cond", "while_loop", "vmap", "export", "load", "save", "from_file", "get_file_path",
    "set_default_device", "set_default_tensor_type", "get_device_module", "set_num_threads",
    "set_num_interop_threads", "DisableTorchFunction", "DisableTorchFunctionSubclass", "DispatchKey",
    "DispatchKeySet", "ExcludeDispatchKeyGuard", "FileCheck", "PyTorchFileReader", "PyTorchFileWriter",
    "TracingState", "GraphExecutorState", "ScriptModule", "ScriptFunction", "ScriptMethod", "ScriptObject",
    "JITException", "classproperty", "LoggerBase", "prepare_multiprocessing_environment", "PRIVATE_OPS",
    "USE_GLOBAL_DEPS", "USE_RTLD_GLOBAL_WITH_LIBTORCH", "TYPE_CHECKING", "set_anomaly_enabled",
    "set_autocast_enabled", "set_autocast_cpu_enabled", "set_autocast_ipu_enabled", "set_autocast_xla_enabled",
    "set_autocast_cache_enabled", "set_flush_denormal", "set_warn_always", "typename")
_TORCH_EXTRA = ("broadcast_shapes", "set_grad_enabled", "unique", "strided", "contiguous_format",
                "preserve_format", "channels_last", "lstsq", "nn", "linalg", "special", "fft", "optim",
                "autograd", "distributions", "Tensor", "Generator", "device", "dtype", "Size")
_NUMPY_DROP = ("load", "save", "savez", "savez_compressed", "fromfile", "memmap", "loadtxt", "savetxt",
               "genfromtxt", "fromregex", "ctypeslib", "lib", "testing", "f2py", "distutils", "typing", "core",
               "show_config", "show_runtime", "get_include", "info")

# The modules a submission may import, each with what it hands out. `functools` and
# `dataclasses` can set attributes from data (update_wrapper, make_dataclass): narrowed.
MODULES: dict[str, Spec] = {
    "torch": Spec(extra=_TORCH_EXTRA, drop=_TORCH_DROP),
    "torch.nn": Spec(drop=("utils", "modules", "parallel", "attention", "grad", "parameter", "common_types",
                           "intrinsic", "qat", "quantizable", "quantized"), extra=("functional", "init")),
    "torch.nn.functional": Spec(drop=("torch", "math", "np", "dataclasses", "importlib", "warnings", "grad",
                                      "handle_torch_function", "has_torch_function", "has_torch_function_unary",
                                      "has_torch_function_variadic", "boolean_dispatch", "callable")),
    "torch.nn.init": Spec(),
    "torch.linalg": Spec(),
    "torch.special": Spec(),
    "torch.fft": Spec(),
    "torch.optim": Spec(only=("Optimizer",)),
    "torch.distributions": Spec(only=("Categorical", "Normal", "Uniform", "Bernoulli", "Multinomial")),
    "torch.autograd": Spec(only=("Function", "grad", "backward", "no_grad", "enable_grad", "set_grad_enabled",
                                 "inference_mode", "Variable")),
    "math": Spec(),
    "numpy": Spec(drop=_NUMPY_DROP, extra=("linalg", "random")),
    "numpy.linalg": Spec(),
    "numpy.random": Spec(),
    # typing.Type(...) calls type() itself: three arguments would build a class from data.
    "typing": Spec(drop=("get_type_hints", "ForwardRef", "TYPE_CHECKING", "get_overloads", "clear_overloads",
                         "Type")),
    "dataclasses": Spec(only=("dataclass", "field", "fields", "asdict", "astuple", "replace", "is_dataclass",
                              "FrozenInstanceError", "InitVar", "KW_ONLY", "MISSING")),
    "functools": Spec(only=("reduce", "partial", "lru_cache", "cache", "cmp_to_key", "cached_property",
                            "total_ordering")),
    "itertools": Spec(),
    "collections": Spec(extra=("abc",)),
    "collections.abc": Spec(),
    "re": Spec(drop=("template", "Scanner", "enum", "functools", "copyreg")),
    "heapq": Spec(),
}
# Modules a challenge opts into in its challenge.toml (`imports = ["re", "heapq"]`); every other
# module of MODULES, every challenge gets. A module new to all challenges needs its Spec above.
OPT_IN = frozenset({"re", "heapq"})
EVERY_CHALLENGE = frozenset(MODULES) - OPT_IN
# `from __future__ import annotations` is a compiler directive, not a module in hand.
FUTURE = "__future__"


def allowed_modules(imports: Iterable[str] = ()) -> frozenset[str]:
    """The modules a submission may import under a challenge that opts into `imports`."""
    return EVERY_CHALLENGE | (frozenset(imports) & OPT_IN)


def allowed_import(name: str, allowed: frozenset[str] = EVERY_CHALLENGE) -> bool:
    return name in allowed or name == FUTURE


# Attributes of objects that are not modules and not on any list, refused by their type: what
# leads from a generator, a frame, a traceback, code or a cell to the interpreter's internals.
_FRAME_TYPES: dict[type, frozenset[str]] = {}


def _frame_types() -> dict[type, frozenset[str]]:
    if not _FRAME_TYPES:
        def gen():
            yield

        async def coro():
            pass

        async def agen():
            yield

        c = coro()
        g = agen()
        try:
            raise ValueError
        except ValueError as exc:
            tb = exc.__traceback__
        _FRAME_TYPES.update({
            types.GeneratorType: frozenset({"send", "throw", "close"}),
            types.CoroutineType: frozenset({"send", "throw", "close"}),
            types.AsyncGeneratorType: frozenset({"asend", "athrow", "aclose"}),
            types.FrameType: frozenset(), types.TracebackType: frozenset(), types.CodeType: frozenset(),
            types.CellType: frozenset(), type(c.__await__()): frozenset({"send", "throw", "close"}),
            types.FunctionType: frozenset(), types.MethodType: frozenset(),
            types.BuiltinFunctionType: frozenset(), types.MappingProxyType: frozenset({"get", "items", "keys",
                                                                                         "values", "copy"}),
        })
        c.close()
        del tb, g
    return _FRAME_TYPES


class NotNameable(Exception):
    """What the capability check raises: the submission named something it cannot have."""


def _leaf(dotted: str) -> str:
    return dotted.rsplit(".", 1)[-1].replace("_", "").lower()


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__") and len(name) > 4


def private(name: str) -> bool:
    """A name or attribute a submission may not write: any name starting with "_" but the
    dunders in ALLOWED_DUNDERS."""
    return name.startswith("_") and not (_dunder(name) and name in ALLOWED_DUNDERS)


# --- the compile ---------------------------------------------------------------------

class Refused(Exception):
    """The source names what no submission may name; `lineno` says where."""

    def __init__(self, message: str, lineno: int | None):
        super().__init__(message)
        self.lineno = lineno


def bounded(tree: ast.AST) -> str:
    """'' when the tree is within MAX_DEPTH and MAX_NODES, else what is too much. Iterative,
    and it stops at the first node past a limit, so a hostile tree costs no more than a normal one."""
    stack = [(tree, 1, None)]
    count = 0
    while stack:
        node, depth, line = stack.pop()
        line = getattr(node, "lineno", line)
        count += 1
        if count > MAX_NODES:
            return f"the submission is too large: more than {MAX_NODES:,} syntax nodes"
        if depth > MAX_DEPTH:
            where = f" (line {line})" if line else ""
            return f"the submission is nested too deeply: more than {MAX_DEPTH} levels{where}"
        stack.extend((child, depth + 1, line) for child in ast.iter_child_nodes(node))
    return ""


def own_self_nodes(tree: ast.Module) -> set[int]:
    """ids of `self._x` Attribute nodes inside a class's own methods whose first parameter is
    never rebound: their object is checked at run time to be the submission's own."""
    own: set[int] = set()
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for method in cls.body:
            if not isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)) or not method.args.args:
                continue
            me = method.args.args[0].arg
            inner = list(ast.walk(method))
            rebound = any(isinstance(n, ast.Name) and n.id == me and not isinstance(n.ctx, ast.Load) for n in inner) \
                or any(isinstance(n, ast.arg) and n.arg == me and n is not method.args.args[0] for n in inner)
            if not rebound:
                own.update(id(n) for n in inner if isinstance(n, ast.Attribute)
                           and isinstance(n.value, ast.Name) and n.value.id == me)
    return own


def _call(name: str, node: ast.AST, *args: ast.expr) -> ast.Call:
    return ast.copy_location(ast.Call(func=ast.Name(id=name, ctx=ast.Load()), args=list(args), keywords=[]), node)


def _const(value, node: ast.AST) -> ast.Constant:
    return ast.copy_location(ast.Constant(value=value), node)


class _Rewrite(ast.NodeTransformer):
    """Attribute loads, stores and deletes, and imports, through the hooks; every name checked."""

    def __init__(self, own: set[int], future_annotations: bool, allowed: frozenset[str]):
        self.own = own
        self.future_annotations = future_annotations
        self.allowed = allowed

    def refuse(self, message: str, node: ast.AST):
        raise Refused(message, getattr(node, "lineno", None))

    def check_name(self, name: str | None, node: ast.AST) -> None:
        if name is not None and private(name) and (_dunder(name) or name.startswith("__")):
            self.refuse(f"`{name}`: names starting with `__` are not allowed in a submission "
                        "(they reach Python's internals); the dunder methods a class defines are fine", node)

    # names
    def visit_Name(self, node: ast.Name):
        self.check_name(node.id, node)
        return node

    def visit_arg(self, node: ast.arg):
        self.check_name(node.arg, node)
        if node.annotation is not None and not self.future_annotations:
            node.annotation = self.visit(node.annotation)
        elif node.annotation is not None:
            node.annotation = None  # never evaluated under the future import; nothing to keep
        return node

    def visit_keyword(self, node: ast.keyword):
        self.check_name(node.arg, node)
        node.value = self.visit(node.value)
        return node

    def _definition(self, node):
        self.check_name(node.name, node)
        if node.name.startswith("__") and node.name not in ALLOWED_DUNDERS:
            self.refuse(f"`def {node.name}`", node)
        if self.future_annotations and hasattr(node, "returns"):
            node.returns = None
        return self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _definition

    def visit_AnnAssign(self, node: ast.AnnAssign):
        if self.future_annotations and isinstance(node.target, ast.Name):
            # Kept as written: under the future import it is a string in __annotations__ (read by
            # dataclasses), never evaluated; the target is a plain name, checked.
            self.check_name(node.target.id, node.target)
            if node.value is not None:
                node.value = self.visit(node.value)
            return node
        return self.generic_visit(node)

    def visit_Global(self, node):
        for name in node.names:
            self.check_name(name, node)
        return node

    visit_Nonlocal = visit_Global

    def visit_Match(self, node):
        self.refuse("`match` statements are not allowed in a submission (a class pattern reads "
                    "attributes past the checks); use if/elif", node)

    # attributes
    def visit_Attribute(self, node: ast.Attribute):
        own = id(node) in self.own
        if private(node.attr) and not own:
            self.refuse(f"`.{node.attr}`: names starting with `_` are not allowed in a submission (they reach "
                        "Python's or torch's internals); `self._x` in your own methods and dunder methods such "
                        "as `__init__` are fine", node)
        value = self.visit(node.value)
        name = _const(node.attr, node)
        if isinstance(node.ctx, ast.Load):
            hook = OWN_GETATTR if own else GETATTR_FORMAT if node.attr in FORMAT_METHODS else GETATTR
            return _call(hook, node, value, name)
        # A store or delete: the object passes through a check of the target, then the plain
        # statement runs on it.
        node.value = _call(OWN_WRITE if own else WRITE, node, value, name)
        return node

    def visit_Call(self, node: ast.Call):
        # getattr(x, "name"[, default]) with the name written out is an attribute like any other.
        if (isinstance(node.func, ast.Name) and node.func.id == "getattr" and not node.keywords
                and len(node.args) in (2, 3) and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)):
            name = node.args[1].value
            if private(name):
                self.refuse(f"`getattr(..., {name!r})`: names starting with `_` are not allowed in a submission", node)
            args = [self.visit(a) for a in node.args]
            return _call(GETATTR_DEFAULT if len(args) == 3 else
                         GETATTR_FORMAT if name in FORMAT_METHODS else GETATTR, node, *args)
        return self.generic_visit(node)

    # imports
    def visit_Import(self, node: ast.Import):
        assigns = []
        for alias in node.names:
            self.check_import(alias.name, node)
            if alias.asname:
                self.check_name(alias.asname, node)
                target, whole = alias.asname, True
            else:
                target, whole = alias.name.split(".")[0], False
            value = _call(IMPORT, node, _const(alias.name, node), _const(whole, node))
            assigns.append(ast.copy_location(ast.Assign(targets=[ast.Name(id=target, ctx=ast.Store())],
                                                        value=value), node))
        return assigns

    def visit_ImportFrom(self, node: ast.ImportFrom):
        if node.level or not node.module:
            self.refuse("relative imports are not allowed in a submission", node)
        if node.module == FUTURE:
            return node
        self.check_import(node.module, node)
        assigns = []
        for alias in node.names:
            if alias.name == "*":
                self.refuse(f"`from {node.module} import *` is not allowed in a submission; name what you use", node)
            self.check_name(alias.asname or alias.name, node)
            if private(alias.name):
                self.refuse(f"`from {node.module} import {alias.name}`: names starting with `_` are not allowed "
                            "in a submission", node)
            value = _call(IMPORT_FROM, node, _const(node.module, node), _const(alias.name, node))
            assigns.append(ast.copy_location(
                ast.Assign(targets=[ast.Name(id=alias.asname or alias.name, ctx=ast.Store())], value=value), node))
        return assigns

    def check_import(self, module: str, node: ast.AST) -> None:
        if not allowed_import(module, self.allowed):
            self.refuse(f"`{module}` cannot be imported: it is not allowed in a submission; allowed: "
                        f"{', '.join(import_roots(self.allowed))}", node)


def import_roots(allowed: Iterable[str] = EVERY_CHALLENGE) -> list[str]:
    """The allowed modules a student would name, for messages and the README."""
    return sorted(allowed, key=lambda m: (m.split(".")[0] != "torch", m.split(".")[0] != "numpy", m))


def rewrite(source: str | bytes, filename: str, allowed: frozenset[str] = EVERY_CHALLENGE) -> ast.Module:
    """The submission's syntax tree with every attribute and import through the hooks.
    Raises Refused for what no spelling may name, and for a tree past the limits."""
    try:
        tree = ast.parse(source, filename=filename)
    except (RecursionError, MemoryError):
        raise Refused("the submission is nested too deeply to be parsed", None) from None
    problem = bounded(tree)
    if problem:
        raise Refused(problem, None)
    future = any(isinstance(n, ast.ImportFrom) and n.module == FUTURE
                 and any(a.name == "annotations" for a in n.names) for n in tree.body)
    tree = _Rewrite(own_self_nodes(tree), future, allowed).visit(tree)
    return ast.fix_missing_locations(tree)


# --- the hooks, at run time -----------------------------------------------------------

class ModuleView:
    """A module as the submission sees it: the names on its list, and nothing else.

    Reading one goes through the same check as any attribute, whoever reads it (torch's own
    code included), so a view passed on hands out no more than it does to the submission."""

    __slots__ = ("_qf_lookup", "_qf_name")

    def __init__(self, name: str, lookup):
        object.__setattr__(self, "_qf_name", name)
        object.__setattr__(self, "_qf_lookup", lookup)

    def __getattr__(self, name: str):
        return object.__getattribute__(self, "_qf_lookup")(name)

    def __setattr__(self, name, value):
        raise NotNameable(f"`{object.__getattribute__(self, '_qf_name')}` cannot be changed by a submission")

    __delattr__ = __setattr__

    def __repr__(self) -> str:
        return f"<module {object.__getattribute__(self, '_qf_name')!r}>"


# Objects whose attributes are all harmless methods and numbers: the hook's short way.
PLAIN_TYPES = frozenset({dict, list, tuple, set, frozenset, str, bytes, bytearray, int, float, complex, bool,
                         range, slice, type(None)})

_SAFE_BUILTIN_NAMES = (
    "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr", "classmethod", "complex",
    "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "id", "int",
    "isinstance", "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct", "ord", "pow",
    "print", "property", "range", "repr", "reversed", "round", "set", "slice", "sorted", "staticmethod", "str",
    "sum", "super", "tuple", "zip", "None", "True", "False", "Ellipsis", "NotImplemented",
)


# Builtins a submission does not get, each with what to write instead (for the message).
_WITHHELD_BUILTINS = {
    **dict.fromkeys(("getattr", "setattr", "delattr"), "write the attribute out (`x.name`)"),
    **dict.fromkeys(("vars", "dir", "globals", "locals"), "it hands out namespaces by name"),
    **dict.fromkeys(("eval", "exec", "compile"), "dynamic code is not allowed"),
    **dict.fromkeys(("open", "input", "breakpoint", "help", "memoryview", "exit", "quit"),
                    "a submission computes; it does not read files, the terminal or memory"),
}


class Capabilities:
    """The hooks and builtins of one submission under one challenge's rules.

    `forbidden`: dotted APIs the challenge forbids; `record(message)`: notes a refusal for the
    worker's reply (the submission may swallow the exception; the refusal still counts);
    `imports`: the modules of OPT_IN the challenge allows besides those every challenge gets."""

    def __init__(self, forbidden: Iterable[str], record=None, imports: Iterable[str] = ()):
        import torch

        self.torch = torch
        self.allowed = allowed_modules(imports)
        self.exact = frozenset(forbidden)
        self.leaves = {_leaf(api): api for api in sorted(self.exact)}
        self.record = record or (lambda message: None)
        self.views: dict[str, ModuleView] = {}
        self.lists: dict[str, frozenset[str]] = {}
        self.verdicts: dict[tuple, str] = {}   # (type or class, name) -> "" allowed, or the refusal
        self.own_classes: set[type] = set()
        self.forbidden_ids = self._forbidden_ids()
        self.tensor_base = torch._C.TensorBase
        self.frames = _frame_types()
        self.hook = self.make_getattr()

    # what is forbidden
    def _forbidden_ids(self) -> dict[int, str]:
        from .guards import resolve_dotted

        found: dict[int, str] = {}
        for api in self.exact:
            try:
                found[id(resolve_dotted(api)[2])] = api
            except (LookupError, AttributeError):
                continue
        return found

    def forbidden_path(self, path: str) -> str | None:
        for api in self.exact:
            if path == api or path.startswith(api + "."):
                return api
        if path.split(".")[0] == "torch":
            return self.leaves.get(_leaf(path))
        return None

    def refuse(self, message: str):
        self.record(message)
        return NotNameable(message)

    # modules
    def view(self, name: str) -> ModuleView:
        found = self.views.get(name)
        if found is None:
            import importlib

            module = importlib.import_module(name)
            self.lists[name] = MODULES[name].names(module)
            cache: dict[str, object] = {}

            def lookup(attr: str, module=module, name=name, cache=cache):
                try:
                    return cache[attr]
                except KeyError:
                    pass
                value = self.module_attribute(module, name, attr)
                cache[attr] = value
                return value

            found = self.views[name] = ModuleView(name, lookup)
        return found

    def module_attribute(self, module, name: str, attr: str):
        path = f"{name}.{attr}"
        api = self.forbidden_path(path)
        if api is not None:
            raise self.refuse(f"{api} is forbidden in this challenge")
        if attr not in self.lists[name]:
            if path in self.allowed:
                return self.view(path)
            raise self.refuse(f"`{path}` is not available in a submission: a module hands out only its public "
                              f"API{self._module_hint(path)}")
        try:
            value = getattr(module, attr)
        except AttributeError:
            raise AttributeError(f"module {name!r} has no attribute {attr!r}") from None
        return self.checked_value(value, path)

    @staticmethod
    def _module_hint(path: str) -> str:
        return "" if path.split(".")[0] not in ("torch", "numpy") else \
            " (the standard library reached through torch or numpy, such as torch.sys, is not)"

    def checked_value(self, value, path: str):
        if isinstance(value, types.ModuleType):
            module_name = getattr(value, "__name__", None)
            if isinstance(module_name, str) and module_name in self.allowed:
                return self.view(module_name)
            raise self.refuse(f"`{path}` is a module a submission cannot use; allowed: "
                              f"{', '.join(import_roots(self.allowed))}")
        if type(value) is ModuleView:
            return value
        api = self.forbidden_ids.get(id(value))
        if api is not None:
            raise self.refuse(f"{api} is forbidden in this challenge")
        return value

    def import_module(self, name: str, whole: bool):
        if not allowed_import(name, self.allowed):
            raise self.refuse(f"`{name}` cannot be imported in a submission")
        self.view(name)
        return self.view(name if whole else name.split(".")[0])

    def import_from(self, module: str, name: str):
        full = f"{module}.{name}"
        if full in self.allowed:
            return self.view(full)
        return getattr(self.view(module), name)

    # attributes
    def verdict(self, obj, name: str) -> str:
        """'' if the submission may read `name` on `obj`, else why not; by type (by class for a class)."""
        if private(name):
            return (f"`.{name}`: names starting with `_` are not allowed in a submission (they reach Python's or "
                    "torch's internals)")
        cls = type(obj)
        allowed = self.frames.get(cls)
        if allowed is not None and name not in allowed and not _dunder(name):
            return f"`.{name}` of a {cls.__name__} is not available in a submission (it leads to the interpreter's internals)"
        if isinstance(obj, type):
            tensor_like = issubclass(obj, self.tensor_base)
            owner = f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', '')}"
            api = self.forbidden_path(f"{owner}.{name}") if owner.startswith("torch.") else None
        else:
            tensor_like = isinstance(obj, self.tensor_base) or cls is super
            api = None
        if api is None and tensor_like and _leaf(name) in self.leaves:
            api = self.leaves[_leaf(name)]
        if api is not None:
            return f"{api} is forbidden in this challenge"
        if name == "ctypes":
            return "`.ctypes` is not available in a submission (it reads memory by address)"
        return ""

    def make_getattr(self):
        """The hook every `x.y` in the submission calls. Built-in containers, strings and numbers
        take the short way: nothing on them leads anywhere (the name was checked when compiled,
        and str.format has its own hook), which keeps pure-Python code within ~2x of plain."""
        plain = PLAIN_TYPES
        read = getattr
        verdicts = self.verdicts
        verdict = self.verdict
        refuse = self.refuse
        checked_value = self.checked_value
        forbidden_ids = self.forbidden_ids
        module_type = types.ModuleType

        def hook(obj, name):
            cls = type(obj)
            if cls in plain:
                return read(obj, name)
            if cls is ModuleView:
                return read(obj, name)
            key = (obj if isinstance(obj, type) else cls, name)
            try:
                message = verdicts[key]
            except KeyError:
                message = verdicts[key] = verdict(obj, name)
            except TypeError:  # an unhashable class: decided afresh
                message = verdict(obj, name)
            if message:
                raise refuse(message)
            if isinstance(obj, module_type):
                raise refuse(f"`{read(obj, '__name__', 'a module')}` is a module a submission cannot use")
            value = read(obj, name)
            if isinstance(value, module_type) or type(value) is ModuleView or id(value) in forbidden_ids:
                return checked_value(value, f"{cls.__name__}.{name}")
            return value

        return hook

    def getattr_default(self, obj, name: str, default):
        if name in FORMAT_METHODS:
            raise self.refuse("getattr(..., 'format') with a default is not allowed; write `.format`")
        if type(obj) is ModuleView:
            return getattr(obj, name) if self.hasattr(obj, name) else default
        try:
            return self.hook(obj, name)
        except AttributeError:
            return default

    def getattr_format(self, obj, name: str):
        value = self.hook(obj, name)
        if obj is str or isinstance(obj, str):
            return self.safe_format(value)
        return value

    def own(self, obj) -> bool:
        """Whether `obj` is an instance of a class the submission defined (or such a class)."""
        cls = obj if isinstance(obj, type) else type(obj)
        return any(c in self.own_classes for c in cls.__mro__)

    def own_name(self, obj, name: str) -> str:
        """'' if `self._x` may be read or written: on the submission's own object, and not an
        attribute some class outside the submission defines."""
        if not private(name):
            return ""
        if _dunder(name) or not self.own(obj):
            return f"`.{name}`: names starting with `_` are only allowed on your own objects (`self._x`)"
        cls = obj if isinstance(obj, type) else type(obj)
        if any(name in vars(c) for c in cls.__mro__ if c not in self.own_classes):
            return f"`.{name}` belongs to {cls.__mro__[-2].__name__}, not to your class: it is not available"
        return ""

    def own_getattr(self, obj, name: str):
        message = self.own_name(obj, name)
        if message:
            raise self.refuse(message)
        if not private(name):
            return self.hook(obj, name)
        value = getattr(obj, name)
        if isinstance(value, types.ModuleType):
            return self.checked_value(value, name)
        return value

    def write(self, obj, name: str):
        """`obj` itself when the submission may set or delete `name` on it, else refused: never on a
        module, a function or a class the submission did not define."""
        if private(name):
            raise self.refuse(f"`.{name}`: names starting with `_` are not allowed in a submission")
        return self.writable(obj, name)

    def own_write(self, obj, name: str):
        message = self.own_name(obj, name)
        if message:
            raise self.refuse(message)
        return self.writable(obj, name)

    def writable(self, obj, name: str):
        message = "" if private(name) else self.verdict(obj, name)  # what cannot be read cannot be written
        if message:
            raise self.refuse(message)
        if isinstance(obj, (types.ModuleType, ModuleView, types.FunctionType, types.BuiltinFunctionType,
                            types.MethodType)) or type(obj) in self.frames:
            raise self.refuse(f"setting `.{name}` on {type(obj).__name__} objects is not allowed in a submission")
        if isinstance(obj, type) and not self.own(obj):
            raise self.refuse(f"setting `.{name}` on {obj.__name__}, a class the submission did not define, "
                              "is not allowed")
        return obj

    def hasattr(self, obj, name) -> bool:
        """hasattr() as the submission sees the object: False for whatever it cannot read."""
        if not isinstance(name, str):
            raise TypeError("hasattr(): attribute name must be string")
        if private(name) or isinstance(obj, types.ModuleType):
            return False
        if type(obj) is ModuleView:
            module_name = object.__getattribute__(obj, "_qf_name")
            return ((name in self.lists.get(module_name, ()) or f"{module_name}.{name}" in self.allowed)
                    and self.forbidden_path(f"{module_name}.{name}") is None)
        return not self.verdict(obj, name) and builtins.hasattr(obj, name)

    def safe_format(self, method):
        """str.format and format_map without attribute or index fields: those read attributes
        by a name built at run time."""
        import string

        parser = string.Formatter()

        def fields(text: str, depth: int = 0):
            for _, field, spec, _ in parser.parse(text):
                if field is not None:
                    yield field
                if spec and depth < 3:
                    yield from fields(spec, depth + 1)

        def check(text) -> None:
            if isinstance(text, str):
                for field in fields(text):
                    if "." in field or "[" in field:
                        raise self.refuse(f"a format field `{{{field}}}` reads an attribute or an item by name; "
                                          "format the value itself instead")

        owner = getattr(method, "__self__", None)

        def formatted(*args, **kwargs):
            check(owner if isinstance(owner, str) else (args[0] if args else None))
            return method(*args, **kwargs)

        return formatted

    def one_argument_type(self, obj, *rest):
        if rest:
            raise self.refuse("type() with three arguments builds a class from data; write a class statement")
        found = type(obj)
        if issubclass(found, type):
            raise self.refuse("the type of a class (its metaclass) is not available in a submission")
        return found

    def build_class(self, func, name, *bases, **kwargs):
        if "metaclass" in kwargs:
            raise self.refuse("a class with its own metaclass is not allowed in a submission")
        cls = builtins.__build_class__(func, name, *bases, **kwargs)
        self.own_classes.add(cls)
        return cls

    def only_future(self, name, globals=None, locals=None, fromlist=(), level=0):
        if name != FUTURE or level:
            raise self.refuse(f"`{name}` cannot be imported in a submission")
        return __import__(name, globals, locals, fromlist, level)

    def _withheld(self, name: str, why: str):
        def withheld(*args, **kwargs):
            raise self.refuse(f"`{name}` is not available in a submission: {why}")
        withheld.__name__ = withheld.__qualname__ = name
        return withheld

    def namespace(self) -> dict:
        """The submission module's globals: the safe builtins and the hooks, under names no
        submission can write."""
        safe = {name: getattr(builtins, name) for name in _SAFE_BUILTIN_NAMES}
        safe.update({name: value for name, value in vars(builtins).items()
                     if isinstance(value, type) and issubclass(value, BaseException)})
        for name, why in _WITHHELD_BUILTINS.items():
            safe[name] = self._withheld(name, why)
        safe.update({"hasattr": self.hasattr, "type": self.one_argument_type,
                     "__build_class__": self.build_class, "__import__": self.only_future,
                     "__name__": "builtins"})
        return {"__builtins__": safe, "__name__": SUBMISSION_MODULE, "__doc__": None,
                GETATTR: self.hook, GETATTR_FORMAT: self.getattr_format, GETATTR_DEFAULT: self.getattr_default, OWN_GETATTR: self.own_getattr, WRITE: self.write, OWN_WRITE: self.own_write,
                IMPORT: self.import_module, IMPORT_FROM: self.import_from}


def load(path: str, capabilities: Capabilities) -> types.ModuleType:
    """Compile and run the submission at `path` with `capabilities`; returns its module.
    Raises Refused before anything runs when the source names what no submission may."""
    with open(path, "rb") as file:
        source = file.read()
    tree = rewrite(source, path, capabilities.allowed)
    try:
        code = compile(tree, path, "exec", dont_inherit=True)
    except (RecursionError, MemoryError):
        raise Refused("the submission is nested too deeply to be compiled", None) from None
    module = types.ModuleType(SUBMISSION_MODULE)
    module.__dict__.update(capabilities.namespace())
    sys.modules[SUBMISSION_MODULE] = module
    exec(code, module.__dict__)
    return module
