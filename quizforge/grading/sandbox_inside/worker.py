"""The untrusted side: imports the submission and answers the judge's requests.

    python -I -S -c BOOT CONFIG_JSON     (see quizforge/grading/sandbox_host/sandbox.py)

Started by the sandbox (see sandbox_host/launcher.py) in a scratch directory that holds only a
copy of the submission, with requests on fd 3 and replies on fd 4; stdout and stderr
are a pipe the judge drains and truncates. Only this folder of quizforge is on its
path. It imports torch, sets its thread pools to one, installs the forbidden-API guards
and the seccomp filter (seccomp.py: no threads, processes, memfds, sockets or pipes from
here on), says hello, and then serves one request at a time. Everything here runs next
to untrusted code, so the judge trusts none of it: replies are plain data that
the judge decodes strictly, and a reply can at worst be wrong, never run code there.
"""

from __future__ import annotations

import errno
import json
import linecache
import os
import sys
import time
import traceback
from typing import Any

from . import capability, guards, protocol, seccomp
from .isolation import StepFailed

REQUEST_FD = 3
REPLY_FD = 4
MESSAGE_CHARS = 1000
SUBMISSION_MODULE = "submission"


class _Missing(Exception):
    pass


def _first(out: Any) -> Any:
    return out[0] if isinstance(out, (tuple, list)) else out


def _backward(out: Any, grad_output: Any) -> None:
    """out.backward(grad_output). For a matching tensor, through sum(out * grad_output): the
    same gradients bit for bit (the sum passes ones, times grad_output is grad_output), without
    the lazy import of sympy that a tensor gradient triggers in torch.autograd, which costs
    every fresh worker half a second."""
    import torch

    if (isinstance(out, torch.Tensor) and isinstance(grad_output, torch.Tensor)
            and out.shape == grad_output.shape and out.dtype == grad_output.dtype):
        (out * grad_output).sum().backward()
    else:
        out.backward(grad_output)


ONE_THREAD = "this challenge runs in one thread: threading and subprocess are not available"
NO_MEMFD = "memfd_create is not available: memory must stay in the process, under the memory limit"
NO_SOCKETS = ("sockets and pipes are not available: their buffers are kernel memory outside the process, "
              "and memory must stay under the memory limit")
# Where, in the innermost frame's source line, a call the seccomp filter refuses with EPERM shows.
_PROCESS_WORDS = ("fork", "spawn", "exec", "clone")
_SOCKET_WORDS = ("socket", "pipe", "mkfifo", "mknod", "epoll")
# Standard-library modules whose EPERM means a process could not be started (subprocess and
# multiprocessing make their pipes before they fork: still a process, for the student).
_PROCESS_MODULES = ("/subprocess.py", "/pty.py", "/popen_fork.py", "/popen_spawn_posix.py", "/popen_forkserver.py",
                    "/forkserver.py")
_PROCESS_PACKAGES = ("/multiprocessing/", "/concurrent/futures/")


def _refused_by_the_filter(exc: BaseException) -> str | None:
    """The student-facing message for a thread, process, socket or pipe the kernel would not
    make; None for any other exception. What the filter refuses arrives as a plain EPERM, so
    this reads what was being called."""
    if isinstance(exc, RuntimeError) and str(exc).startswith("can't start new thread"):
        return ONE_THREAD
    if not isinstance(exc, OSError) or exc.errno != errno.EPERM:
        return None
    frames = list(traceback.walk_tb(exc.__traceback__))
    for frame, _ in frames:
        file, name = frame.f_code.co_filename, frame.f_code.co_name.lstrip("_")
        if (file.endswith(_PROCESS_MODULES) or any(p in file for p in _PROCESS_PACKAGES)
                or (file.endswith("/os.py") and name.startswith(("spawn", "exec", "popen")))):
            return ONE_THREAD
    if not frames:
        return None
    frame, lineno = frames[-1]
    if frame.f_code.co_filename.endswith("/socket.py"):
        return NO_SOCKETS
    line = linecache.getline(frame.f_code.co_filename, lineno)
    if "memfd_create" in line:
        return NO_MEMFD
    if any(word in line for word in _PROCESS_WORDS):
        return ONE_THREAD
    if any(word in line for word in _SOCKET_WORDS):
        return NO_SOCKETS
    return None


class Server:
    """`capabilities`: the challenge's rules for the capability compile; None imports the
    submission as plain Python (only the tests of the second layer, the guards, on their own).
    `models`: the reference models module the hidden suites build on."""

    def __init__(self, path: str, torch_guards: guards.TorchGuards | None = None,
                 capabilities: capability.Capabilities | None = None, models: Any = None):
        self.path = path
        self.torch_guards = torch_guards
        self.capabilities = capabilities
        self.module = None
        self.objects: dict[int, Any] = {}
        self._models = models

    def models(self) -> Any:
        """The module that builds models from descriptions: quizforge/challenges/models.py, which
        the sandbox places beside these modules; a Server in the judge's own process (loopback)
        is handed the package's copy instead."""
        if self._models is None:
            from . import models

            self._models = models
        return self._models

    # --- requests --------------------------------------------------------------

    def op_load(self) -> None:
        if self.capabilities is None:
            import importlib.util

            spec = importlib.util.spec_from_file_location(SUBMISSION_MODULE, self.path)
            module = importlib.util.module_from_spec(spec)
            sys.modules[SUBMISSION_MODULE] = module
            spec.loader.exec_module(module)
        else:
            module = capability.load(self.path, self.capabilities)
        self.module = module

    def _name(self, name: str) -> Any:
        if self.module is None or not hasattr(self.module, name):
            raise _Missing(f"the submission does not define {name!r}")
        return getattr(self.module, name)

    def _object(self, oid: int) -> Any:
        if oid not in self.objects:
            raise _Missing("no such object")
        return self.objects[oid]

    def op_has(self, name: str) -> bool:
        return self.module is not None and hasattr(self.module, name)

    def op_call(self, name: str, args: list, kwargs: dict) -> Any:
        return self._name(name)(*args, **kwargs)

    def op_call_with_model(self, name: str, model: dict, args: list, kwargs: dict) -> dict:
        """name(model, *args, **kwargs) with a model the worker builds from its description;
        returns the result and the shapes of the contexts the model was called with."""
        built = self.models().build(model)
        value = self._name(name)(built, *args, **kwargs)
        return {"value": value, "calls": [list(shape) for shape in built.calls]}

    def op_call_with_parameters(self, name: str, values: list, grads: list, args: list, kwargs: dict) -> dict:
        """name(parameters, *args, **kwargs) on nn.Parameters built from `values`, each with its
        `.grad` from `grads` (None: no gradient); returns the result and the gradients after the call."""
        import torch

        params = [torch.nn.Parameter(v.detach().clone()) for v in values]
        for param, grad in zip(params, grads):
            param.grad = None if grad is None else grad.detach().clone()
        value = self._name(name)(params, *args, **kwargs)
        return {"value": value, "grads": [None if p.grad is None else p.grad.detach().clone() for p in params]}

    def op_train(self, name: str, model: dict, steps: int, groups: list | None, kwargs: dict,
                 closure: bool) -> dict:
        """Train a model the worker builds from its description (challenges/models.py) for `steps`
        steps with the optimizer class `name`: built as name(parameters or `groups`, **kwargs),
        each step through the optimizer's own step(), by a closure if `closure`. `groups`: a list
        of {"names": [parameter names], option: value}. Returns the parameters after training
        and what each step() returned."""
        models = self.models()
        return models.train(models.build(model), self._name(name), int(steps), groups, kwargs, closure)

    def op_new(self, name: str, args: list, kwargs: dict) -> int:
        import torch

        cls = self._name(name)
        torch.manual_seed(0)
        obj = cls(*args, **kwargs)
        oid = len(self.objects) + 1
        self.objects[oid] = obj
        return oid

    def op_forward(self, obj: int, args: list, kwargs: dict) -> Any:
        import torch

        module = self._object(obj)
        module.eval()
        with torch.no_grad():
            return module(*args, **kwargs)

    def op_load_state_dict(self, obj: int, state: dict, strict: bool) -> None:
        self._object(obj).load_state_dict(state, strict=strict)

    def op_state_dict(self, obj: int) -> dict:
        return {k: v.detach().clone() for k, v in self._object(obj).state_dict().items()}

    def op_parameter_shapes(self, obj: int) -> dict:
        return {k: list(p.shape) for k, p in self._object(obj).named_parameters()}

    def op_submodule_types(self, obj: int) -> dict:
        return {k: f"{type(m).__module__}.{type(m).__qualname__}"
                for k, m in self._object(obj).named_modules() if k}

    def op_attribute(self, obj: int, name: str) -> Any:
        target = self._object(obj)
        if not hasattr(target, name):
            raise _Missing(f"the object has no attribute {name!r}")
        return getattr(target, name)

    @staticmethod
    def _with_grad(args: list) -> list:
        import torch

        return [a.detach().clone().requires_grad_(True)
                if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]

    @staticmethod
    def _grads(inputs: list) -> list:
        import torch

        return [a.grad if isinstance(a, torch.Tensor) and a.requires_grad else None for a in inputs]

    def op_backward(self, obj: int, args: list, grad_output: Any, kwargs: dict) -> dict:
        module = self._object(obj)
        module.train()
        module.zero_grad(set_to_none=True)
        inputs = self._with_grad(args)
        _backward(_first(module(*inputs, **kwargs)), grad_output)
        return {"inputs": self._grads(inputs),
                "params": {k: (None if p.grad is None else p.grad.clone()) for k, p in module.named_parameters()}}

    def op_grad(self, name: str, args: list, grad_output: Any, kwargs: dict) -> list:
        fn = self._name(name)
        inputs = self._with_grad(args)
        _backward(_first(fn(*inputs, **kwargs)), grad_output)
        return self._grads(inputs)

    # --- replies ---------------------------------------------------------------

    def _line(self, tb) -> int | None:
        line = None
        for frame, lineno in traceback.walk_tb(tb):
            if frame.f_code.co_filename == self.path:
                line = lineno
        return line

    def error(self, exc: BaseException, during: str) -> dict:
        def text(e: BaseException) -> str:
            try:
                return str(e)[:MESSAGE_CHARS]
            except Exception:  # noqa: BLE001 - an exception whose str() fails is still an answer
                return "<the exception could not be printed>"

        lineno = self._line(exc.__traceback__)
        if guards.HITS:
            message, where = guards.HITS[0]
            return {"kind": "forbidden", "message": message, "exc_type": None, "lineno": where}
        if isinstance(exc, capability.Refused):
            return {"kind": "forbidden", "message": text(exc), "exc_type": None, "lineno": exc.lineno}
        if isinstance(exc, SystemExit):
            code = exc.code if isinstance(exc.code, int) or exc.code is None else 1
            return {"kind": "crash", "message": f"the submission exited (status {code or 0}) {during}",
                    "exc_type": None, "lineno": lineno}
        if isinstance(exc, MemoryError) or (isinstance(exc, RuntimeError) and "can't allocate memory" in text(exc)):
            return {"kind": "memory", "message": "out of memory", "exc_type": type(exc).__name__, "lineno": lineno}
        refused = _refused_by_the_filter(exc)
        if refused is not None:
            return {"kind": "error", "message": refused, "exc_type": type(exc).__name__[:100], "lineno": lineno}
        if isinstance(exc, _Missing):
            return {"kind": "missing", "message": text(exc), "exc_type": None, "lineno": None}
        if isinstance(exc, protocol.EncodeError):
            return {"kind": "protocol", "message": f"the submission's answer cannot be sent back: {text(exc)}",
                    "exc_type": None, "lineno": None}
        return {"kind": "error", "message": text(exc), "exc_type": type(exc).__name__[:100], "lineno": lineno}

    def handle(self, request: dict, reraise: tuple[type[BaseException], ...] = ()) -> bytes:
        """One request's reply frame. `reraise`: exceptions that pass through rather than become a
        reply (the loopback submission's call timer)."""
        rid = request.get("id")
        op = request.get("op")
        guards.HITS.clear()
        during = "while being imported" if op == "load" else "during the call"
        try:
            method = getattr(self, f"op_{op}", None)
            if method is None:
                raise _Missing(f"unknown request {op!r}")
            fields = {k: v for k, v in request.items() if k not in ("id", "op")}
            value = method(**fields)
            if self.torch_guards is not None and not self.torch_guards.intact():
                guards.HITS.append(("removing the forbidden-API guard is forbidden in this challenge", None))
            if guards.HITS:
                raise guards.ForbiddenCall()  # the submission swallowed a guard's exception
            return protocol.encode({"id": rid, "ok": True, "value": value})
        except reraise:
            raise
        except BaseException as exc:  # noqa: BLE001 - every failure of the submission becomes a reply
            reply = {"id": rid, "ok": False, **self.error(exc, during)}
            return protocol.encode(reply)


def main(config_json: str, started: float) -> None:
    """Serve until the judge closes the request pipe. `started`: time.perf_counter() before
    this module (and so torch) was imported, for the hello's timing."""
    config = json.loads(config_json)
    serve(config["submission"], config.get("rules", {}), time.perf_counter() - started,
          isolated=config.get("isolated", True))


def prepare_guards() -> None:
    """For a zygote, before it forks: the challenge-independent part of installing the guards."""
    guards.prepare()


def one_thread() -> None:
    """Torch's and the BLAS libraries' thread pools at one thread, set up now: once the filter is
    in, no library can start a thread (libgomp would abort trying)."""
    import importlib
    import torch

    try:  # torch imports numpy when it is there; its OpenBLAS reads OPENBLAS_NUM_THREADS then, not later
        importlib.import_module("numpy")
    except ImportError:
        pass

    torch.set_num_threads(1)
    if torch.get_num_interop_threads() != 1:
        torch.set_num_interop_threads(1)


def filter_system_calls(isolated: bool) -> dict:
    """Install the seccomp filter. Isolated, a filter that cannot be installed ends the worker
    (the judge refuses to grade); with --unsafe-no-sandbox the hello only says it did not hold."""
    try:
        return {"held": True, "refused": seccomp.install()}
    except StepFailed as exc:
        if isolated:
            raise
        return {"held": False, "refused": [], "why": exc.message}


def serve(submission: str, rules: dict, torch_import_seconds: float, isolated: bool = True) -> None:
    """Install the guards and the seccomp filter, say hello on the reply fd, then answer requests
    until EOF. Never returns. A step that fails is the hello's answer instead: nothing of the
    submission has run yet, so the judge can trust it. `rules`: {"challenge": id, "forbidden":
    [dotted APIs], "imports": [the modules it opts into], "capability": False only to test the
    guards on their own}."""
    sys.dont_write_bytecode = True  # the scratch folder holds the submission and what it writes, nothing else
    path = os.path.abspath(submission)
    try:
        one_thread()
        forbidden = rules.get("forbidden", [])
        capabilities = None
        if rules.get("capability", True):
            # Before the traps: it notes the forbidden objects themselves, not only their traps.
            capabilities = capability.Capabilities(
                forbidden, lambda message: guards.HITS.append((message, guards.submission_line(path))),
                rules.get("imports", []))
        guards.install_traps(forbidden, path)
        torch_guards = guards.TorchGuards(forbidden, path, rules.get("challenge", ""))
        torch_guards.install()
        filtered = filter_system_calls(isolated)
    except StepFailed as exc:
        refusal = {"id": 0, "ok": False, "kind": "sandbox", "step": exc.step, "message": exc.message,
                   "hint": exc.hint}
        protocol.write_frame(REPLY_FD, protocol.encode(refusal))
        os._exit(111)
    server = Server(path, torch_guards, capabilities)
    hello = {"id": 0, "ok": True, "value": {"torch_import_seconds": torch_import_seconds, "seccomp": filtered}}
    protocol.write_frame(REPLY_FD, protocol.encode(hello))
    while True:
        try:
            request = protocol.read_frame(REQUEST_FD)
        except protocol.FrameEOF:
            _flush_output()
            os._exit(0)
        reply = server.handle(request)
        _flush_output()
        protocol.write_frame(REPLY_FD, reply)


def _flush_output() -> None:
    """So what the submission printed reaches the judge even if the worker is killed next."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - the submission may have replaced or closed them
            pass

