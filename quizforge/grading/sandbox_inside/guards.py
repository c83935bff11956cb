"""The second layer, inside the worker: Python-level traps and torch-level guards.

What a submission can name is decided by the capability compile (capability.py): that is
the rule that holds. These guards are a second layer under it, for whatever reaches torch by
a route the compile did not foresee:

* traps: each forbidden callable, and its aliases in torch's namespaces, is replaced by
  a function that records the call and raises;
* a function guard: a TorchFunctionMode that sees every torch function, method and
  torch.ops call, and refuses the forbidden APIs and any private torch name (its last
  part starts with "_" and is not a dunder) called from the submission's own code;
  torch's own Python code may still call its private helpers (`torch.no_grad` calls
  `torch._C._set_grad_enabled`);
* a dispatch guard: a TorchDispatchMode below every Python spelling that withholds the
  kernels that compute the challenge's answer (WITHHELD_BY_LEAF: every softmax kernel in
  `softmax`, the norms in `layer_norm`, ...: "`aten::_masked_softmax` is not allowed in
  `softmax`"), and never the composite ops honest code reaches through slicing, views,
  in-place writes, `einsum` or autograd.

Lifting the guards is refused at the call (LIFTERS are trapped wherever torch holds them),
the function guard checks at each call that the dispatch guard is still in place, and after
each request `intact()` checks both once more. All of this lives in the process the
submission runs in, so it is best effort by nature; the capability compile is what makes
the ways round it (torch.sys, closures, frames, ctypes) unnameable.

A call that hits any layer is recorded in HITS, and the judge reports the request as
kind "forbidden" even if the submission swallowed the exception.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Iterable

# The ATen kernels behind each forbidden API, keyed by the API's leaf name. Composite
# operators decompose on their way to the dispatcher, so these are the names a
# TorchDispatchMode sees (checked for CPU in the tests).
_SDPA = ("_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention",
         "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention",
         "_scaled_dot_product_fused_attention_overrideable")
KERNELS: dict[str, tuple[str, ...]] = {
    "softmax": ("_softmax", "_safe_softmax"),
    "log_softmax": ("_log_softmax",),
    "layer_norm": ("native_layer_norm",),
    "LayerNorm": ("native_layer_norm",),
    "scaled_dot_product_attention": _SDPA,
    "multi_head_attention_forward": ("_native_multi_head_attention", *_SDPA),
    "MultiheadAttention": ("_native_multi_head_attention", *_SDPA),
    "TransformerEncoderLayer": ("_transformer_encoder_layer_fwd", "_native_multi_head_attention", *_SDPA),
}


# What each forbidden API's leaf name withholds: every ATen op that computes the same thing
# under another name. Packet names, with and without the leading "aten::".
_SOFTMAX = ("softmax", "log_softmax", "_softmax", "_log_softmax", "_safe_softmax", "_masked_softmax",
            "_sparse_softmax", "_sparse_log_softmax", "_softmax_backward_data", "_log_softmax_backward_data",
            "_masked_softmax_backward", "_sparse_softmax_backward_data", "_sparse_log_softmax_backward_data",
            "special_softmax", "special_log_softmax", "cross_entropy_loss")
_NORMS = ("layer_norm", "native_layer_norm", "native_layer_norm_backward", "group_norm", "native_group_norm",
          "native_group_norm_backward", "batch_norm", "native_batch_norm", "native_batch_norm_backward",
          "_native_batch_norm_legit", "_native_batch_norm_legit_no_training", "_native_batch_norm_legit_functional",
          "_batch_norm_impl_index", "_batch_norm_impl_index_backward", "_batch_norm_with_update",
          "_batch_norm_no_update", "batch_norm_backward", "instance_norm", "rms_norm", "_fused_rms_norm",
          "_fused_rms_norm_backward", "cudnn_batch_norm", "miopen_batch_norm")
_ATTENTION = ("scaled_dot_product_attention", "_scaled_dot_product_attention_math",
              "_scaled_dot_product_attention_math_for_mps", "_scaled_dot_product_flash_attention",
              "_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_flash_attention_backward",
              "_scaled_dot_product_flash_attention_for_cpu_backward", "_scaled_dot_product_efficient_attention",
              "_scaled_dot_product_efficient_attention_backward", "_scaled_dot_product_cudnn_attention",
              "_scaled_dot_product_cudnn_attention_backward", "_scaled_dot_product_fused_attention_overrideable",
              "_scaled_dot_product_fused_attention_overrideable_backward", "_fused_sdp_choice",
              "_native_multi_head_attention", "_transformer_encoder_layer_fwd", "_flash_attention_forward",
              "_efficient_attention_forward", "_triton_scaled_dot_attention", "_triton_multi_head_attention")
_NLL = ("nll_loss", "nll_loss_forward", "nll_loss_backward", "nll_loss2d", "nll_loss2d_forward",
        "nll_loss2d_backward", "nll_loss_nd", "cross_entropy_loss")
_SILU = ("silu", "silu_", "silu_backward")
_LOGSUMEXP = ("logsumexp", "special_logsumexp")
# SDPA computes a softmax (softmax(x) is attention with keys = I·√d and values = I), so a
# challenge that withholds softmax withholds attention too.
WITHHELD_BY_LEAF: dict[str, tuple[str, ...]] = {
    "softmax": _SOFTMAX + _ATTENTION, "log_softmax": _SOFTMAX + _ATTENTION, "Softmax": _SOFTMAX + _ATTENTION,
    "LogSoftmax": _SOFTMAX + _ATTENTION,
    "layer_norm": _NORMS, "native_layer_norm": _NORMS, "LayerNorm": _NORMS, "rms_norm": _NORMS, "RMSNorm": _NORMS,
    "silu": _SILU, "SiLU": _SILU, "logsumexp": _LOGSUMEXP,
    "cross_entropy": _SOFTMAX + _NLL, "CrossEntropyLoss": _SOFTMAX + _NLL, "nll_loss": _NLL,
    "scaled_dot_product_attention": _ATTENTION, "multi_head_attention_forward": _ATTENTION,
    "MultiheadAttention": _ATTENTION, "TransformerEncoderLayer": _ATTENTION, "TransformerDecoderLayer": _ATTENTION,
}


def withheld(forbidden: Iterable[str]) -> set[str]:
    """The ATen packet names ("aten::_softmax") a challenge with this `forbidden` list withholds."""
    found: set[str] = set()
    for api in forbidden:
        found.update(f"aten::{name}" for name in WITHHELD_BY_LEAF.get(api.rsplit(".", 1)[-1], ()))
    return found


class ForbiddenCall(Exception):
    """Raised by a trap or the guard: the submission called a forbidden API."""


# (message, line in the submission) for every refused call during the current request.
HITS: list[tuple[str, int | None]] = []


def submission_line(path: str) -> int | None:
    """The line of the submission's innermost frame on the stack, if any."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename == path:
            return frame.f_lineno
        frame = frame.f_back
    return None


def _record(message: str, path: str) -> ForbiddenCall:
    HITS.append((message, submission_line(path)))
    return ForbiddenCall(message)


def forbidden_message(api: str) -> str:
    return f"{api} is forbidden in this challenge"


# --- traps -------------------------------------------------------------------------

def _trap(api: str, path: str):
    def trap(*args, **kwargs):
        raise _record(forbidden_message(api), path)
    trap.__name__ = api.rsplit(".", 1)[-1]
    trap.__qualname__ = trap.__name__
    return trap


def resolve_dotted(dotted: str):
    """(owner object, attribute name, current value) for a dotted name, importing its module."""
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


_ALIASES: dict[int, list[tuple[object, str]]] = {}


def _namespace_aliases() -> dict[int, list[tuple[object, str]]]:
    """id(value) -> each (namespace, name) of torch's public spellings that holds it, built once."""
    import torch

    if not _ALIASES:
        for space in (torch, torch.functional, torch.nn.functional, torch.special, torch.linalg,
                      torch._C._VariableFunctions, torch._C._nn, torch._C._special, torch.Tensor,
                      torch._C.TensorBase):
            try:
                items = list(vars(space).items())
            except TypeError:
                continue
            for name, value in items:
                _ALIASES.setdefault(id(value), []).append((space, name))
    return _ALIASES


def install_traps(forbidden: Iterable[str], submission_path: str) -> list[str]:
    """Replace each forbidden callable, and its aliases in torch's namespaces, by a trap.
    Returns the names that could not be trapped (the guard and the static check remain)."""
    aliases = _namespace_aliases()
    missed = []
    for api in forbidden:
        try:
            owner, attr, original = resolve_dotted(api)
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
        for space, name in aliases.get(id(original), ()):
            if vars(space).get(name) is original:
                try:
                    setattr(space, name, trap)
                except (AttributeError, TypeError):
                    pass  # a C type's own table; the guard below still sees the kernel
    return missed


# --- the torch-level guards -----------------------------------------------------------

def refused_names(forbidden: Iterable[str]) -> dict[str, str]:
    """Operator or kernel name -> the forbidden API it implements: the API's own leaf name
    (as torch.ops and the C bindings call it) and the ATen kernels behind it."""
    found: dict[str, str] = {}
    for api in forbidden:
        leaf = api.rsplit(".", 1)[-1]
        found.setdefault(leaf, api)
        for kernel in KERNELS.get(leaf, ()):
            found.setdefault(kernel, api)
    return found


def _op_name(func) -> str:
    """'softmax' for torch.softmax, Tensor.softmax, torch.ops.aten.softmax and aten.softmax.int."""
    name = getattr(func, "__name__", "")
    return name.split(".", 1)[0] if isinstance(name, str) else ""


def _packet(func) -> str:
    """The ATen overload packet of an op, as WITHHELD_BY_LEAF names it: "aten::add" for aten.add.Tensor."""
    schema = getattr(func, "_schema", None)
    return schema.name if schema is not None else str(func)


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _shown(func) -> str:
    """How a private torch callable is named in a message: "torch._masked_softmax"."""
    module = getattr(func, "__module__", None) or "torch"
    return f"{module}.{_op_name(func)}" if module.startswith("torch") else f"torch.{_op_name(func)}"


def _called_from_torch(torch_dir: str, func=None) -> bool:
    """Whether the caller of the function calling this one (of `func`, if it is torch's Python
    code reached through torch.overrides) is torch's own Python code, not the submission's."""
    frame = sys._getframe(2)
    skipped = (__file__, os.path.join(torch_dir, "overrides.py"))
    while frame is not None and frame.f_code.co_filename in skipped:
        frame = frame.f_back
    code = getattr(func, "__code__", None)
    if frame is not None and code is not None and frame.f_code is code:
        frame = frame.f_back
    return frame is not None and frame.f_code.co_filename.startswith(torch_dir)


# Ways to pop, disable or step around torch's mode stacks (and so the guards): torch._C names,
# and the Python helpers built on them. Each is trapped wherever a torch namespace holds it.
LIFTERS = {
    "torch._C": ("DisableTorchFunction", "ExcludeDispatchKeyGuard", "_ExcludeDispatchKeyGuard",
                 "_SetExcludeDispatchKeyGuard", "_ForceDispatchKeyGuard", "_DisableTorchDispatch",
                 "_dispatch_tls_set_dispatch_key_excluded", "_pop_torch_dispatch_stack", "_pop_torch_function_stack",
                 "_set_dispatch_mode", "_unset_dispatch_mode", "_set_torch_function_state"),
    "torch.overrides": ("_pop_mode", "_pop_mode_temporarily"),
    "torch.utils._python_dispatch": ("_disable_current_modes", "_pop_mode", "_pop_mode_temporarily",
                                     "_disable_infra_mode"),
}
LIFT_MESSAGE = "lifting the forbidden-API guards is forbidden in this challenge"


_LIFTER_BINDINGS: dict[int, list[tuple[object, str]]] = {}
_SCANNED: set[str] = set()


def lifter_bindings(originals: dict[int, object]) -> dict[int, list[tuple[object, str]]]:
    """id(lifter) -> every (torch module, name) that holds it, over all loaded torch modules.
    The scan costs ~15 ms; a zygote does it once before it forks (prepare()), so each worker
    only scans the modules imported since."""
    for module_name, module in list(sys.modules.items()):
        if module is None or module_name in _SCANNED or not (module_name == "torch" or module_name.startswith("torch.")):
            continue
        _SCANNED.add(module_name)
        try:
            items = list(vars(module).items())
        except TypeError:
            continue
        for name, value in items:
            if id(value) in originals:
                _LIFTER_BINDINGS.setdefault(id(value), []).append((module, name))
    return _LIFTER_BINDINGS


def _lifter_originals() -> dict[int, object]:
    originals = {}
    for module_name, names in LIFTERS.items():
        module = sys.modules.get(module_name) or importlib.import_module(module_name)
        for name in names:
            value = getattr(module, name, None)
            if value is not None:
                originals[id(value)] = value
    return originals


def prepare() -> None:
    """What every worker's guards need that does not depend on its challenge, done before a
    zygote forks: the lifters' modules imported, torch's namespaces indexed."""
    lifter_bindings(_lifter_originals())
    _namespace_aliases()


def trap_lifters(submission_path: str, torch_dir: str) -> int:
    """Replace every LIFTERS entry point, in every loaded torch namespace that holds it, by a
    trap that lets torch's own code through (torch.overrides pops a mode while it runs that
    mode's handler) and refuses everyone else. Returns how many bindings were replaced."""
    originals = _lifter_originals()
    bindings = lifter_bindings(originals)
    replaced = 0
    for oid, original in originals.items():
        trap = _lift_trap(original, submission_path, torch_dir)
        for module, name in bindings.get(oid, ()):
            if vars(module).get(name) is original:  # still bound there: not replaced since the scan
                setattr(module, name, trap)
                replaced += 1
    return replaced


def _lift_trap(original, path: str, torch_dir: str):
    def trap(*args, **kwargs):
        if sys._getframe(1).f_code.co_filename.startswith(torch_dir):
            return original(*args, **kwargs)
        raise _record(LIFT_MESSAGE, path)
    trap.__name__ = getattr(original, "__name__", "trap")
    trap.__qualname__ = trap.__name__
    return trap


class TorchGuards:
    """A TorchFunctionMode (every torch function, method and torch.ops call, before composite
    operators decompose) and a TorchDispatchMode (the kernels after) that refuse what the
    challenge forbids for as long as they stay at the bottom of torch's mode stacks. The dispatch
    guard withholds only the kernels that compute the challenge's answer (`withheld`): what the
    submission can name is decided by the capability compile, so every composite op honest code
    reaches through slicing, views, in-place writes or autograd stays open."""

    def __init__(self, forbidden: Iterable[str], submission_path: str, challenge: str = ""):
        import torch
        from torch.overrides import TorchFunctionMode
        from torch.utils._python_dispatch import TorchDispatchMode

        forbidden = list(forbidden)
        refused = refused_names(forbidden)
        kept_back = frozenset(withheld(forbidden))
        path = submission_path
        torch_dir = os.path.dirname(torch.__file__) + os.sep
        where = f"`{challenge}`" if challenge else "this challenge"
        verdicts: dict[object, str] = {}  # op -> "" (let through) or the message that refuses it
        python_key = torch._C.DispatchKey.Python
        guards = self
        running_kernel = [0]  # depth of the dispatch guard's handler (torch modes live in one thread)

        def verdict(func) -> str:
            found = verdicts.get(func)
            if found is None:
                api = refused.get(_op_name(func))
                if api is not None:
                    found = forbidden_message(api)
                elif _packet(func) in kept_back:
                    found = f"`{_packet(func)}` is not allowed in {where}"
                else:
                    found = ""
                verdicts[func] = found
            return found

        class FunctionGuard(TorchFunctionMode):
            def __torch_function__(self, func, types, args=(), kwargs=None):
                # Inside the dispatch guard's own handler its mode is popped while the kernel runs.
                if not running_kernel[0] and not guards.dispatch_guard_on():
                    raise _record(LIFT_MESSAGE, path)
                api = refused.get(_op_name(func))
                if api is not None:
                    raise _record(forbidden_message(api), path)
                if _private(_op_name(func)) and not _called_from_torch(torch_dir, func):
                    raise _record(f"{_shown(func)} is not allowed in a submission: names starting with `_` "
                                  "are torch's internals, not its API", path)
                return func(*args, **(kwargs or {}))

        class DispatchGuard(TorchDispatchMode):
            @classmethod
            def _should_skip_dynamo(cls) -> bool:
                return False  # else torch wraps the handler in a dynamo guard that imports torch._dynamo (1 s)

            def __torch_dispatch__(self, func, types, args=(), kwargs=None):
                message = verdict(func)
                if message:
                    raise _record(message, path)
                running_kernel[0] += 1
                try:
                    return func(*args, **(kwargs or {}))
                finally:
                    running_kernel[0] -= 1

        self._python_key = python_key
        self.submission_path = path
        self.torch_dir = torch_dir
        self.function_mode = FunctionGuard()
        self.dispatch_mode = DispatchGuard()

    def install(self) -> None:
        """Enter both guards for the worker's whole life, then trap every way to lift them."""
        self.function_mode.__enter__()
        self.dispatch_mode.__enter__()
        trap_lifters(self.submission_path, self.torch_dir)

    def dispatch_guard_on(self) -> bool:
        import torch

        return (torch._C._len_torch_dispatch_stack() >= 1
                and torch._C._get_dispatch_stack_at(0) is self.dispatch_mode
                and not torch._C._dispatch_tls_is_dispatch_key_excluded(self._python_key))

    def intact(self) -> bool:
        """Whether both guards are still at the bottom of their stacks and switched on (the
        submission may have popped or disabled them)."""
        import torch

        try:
            return (torch._C._len_torch_function_stack() >= 1
                    and torch._C._get_function_stack_at(0) is self.function_mode
                    and torch._C._is_torch_function_mode_enabled()
                    and self.dispatch_guard_on())
        except Exception:  # noqa: BLE001 - unreadable means not provably intact
            return False
