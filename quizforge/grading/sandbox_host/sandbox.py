"""Starting, talking to and killing one sandboxed worker (the judge's side).

A `Sandbox` is one worker process tree: the launcher (launcher.py), the init of its
PID namespace and the worker (sandbox_inside/worker.py) with whatever the submission starts.
The judge talks to the worker over two pipes and learns how the sandbox was built, and
how the worker ended, from a third that only the trusted launcher holds; a step that
could not be taken there ends the grading (SandboxError), it is never worked around.
This module also decides what the worker's file system holds (`worker_file_system`):
the interpreter, its standard library, the system libraries, and torch and numpy with
their dependencies; nothing of quizforge. It enforces

* time: each request has a deadline; past it the whole tree is killed (SIGKILL, so
  a submission that ignores SIGTERM makes no difference);
* memory: RLIMIT_DATA in the worker, plus the resident memory and page tables of the
  whole tree polled while the judge waits, since shared mappings escape the rlimit; where
  cgroup v2 is delegated, a memory cgroup per worker too (memory_cgroup.py), which also
  counts what no process maps. memfds, SysV IPC, new sockets, pipes and FIFOs are refused
  by the worker's seccomp filter, and its tmpfs folders are limited in size and inodes;
* processes: killing the init of the PID namespace makes the kernel kill everything
  inside; with --unsafe-no-sandbox, the launcher is a child subreaper and the judge
  kills its descendants (and, with a dropped uid, every process of that uid).

Nothing the worker sends is trusted: replies are decoded by sandbox_inside/protocol.py and
checked here; results are never read from a file.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import importlib.util
import json
import os
import re
import secrets
import select
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quizforge.grading.judge.limits import Limits
from quizforge.grading.judge.output import CapturedOutput
from quizforge.grading.judge.request_submission import SubmissionError, expected_reply_bytes, reply_value
from quizforge.grading.judge.rules import GuardRules
from quizforge.grading.sandbox_host import memory_cgroup

SUBMISSION_NAME = "submission.py"
POLL_SECONDS = 0.05
# One compute thread: judge and worker take turns on the same cores, and OpenMP threads
# spinning in one process after its turn starve the other (10x slower round trips). The
# worker's seccomp filter refuses new threads, so no library may plan on starting any.
WORKER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
              "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
# Unprivileged ids handed to workers when the judge is root: one per sandbox, so a worker
# can signal no other process, and "every process of the uid" means this sandbox only.
UID_BASE, UID_SPAN = 1_500_000_000, 2**24
LAUNCHER = Path(__file__).resolve().parent / "launcher.py"  # standard library only: run without site


def _wait_exit(proc: subprocess.Popen, timeout: float) -> int:
    """Popen.wait(timeout) polls with sleeps of up to 50 ms; a pidfd wakes us the moment it exits."""
    try:
        fd = os.pidfd_open(proc.pid)
    except (OSError, AttributeError):
        return proc.wait(timeout=timeout)
    try:
        ready, _, _ = select.select([fd], [], [], timeout)
    finally:
        os.close(fd)
    if not ready:
        raise subprocess.TimeoutExpired(proc.args, timeout)
    return proc.wait()


# A reply may be this much larger than its request (and than what the test says it expects),
# plus this floor: every answer a suite expects (an output the shape of the inputs, gradients,
# a state dict) fits inside it, and a worker cannot make the judge buffer more than that.
REPLY_GROWTH, REPLY_FLOOR_BYTES = 4, 2**20


def reply_cap(request_bytes: int) -> int:
    return REPLY_GROWTH * (request_bytes + expected_reply_bytes()) + REPLY_FLOOR_BYTES


class SandboxError(RuntimeError):
    """The sandbox itself failed (not the submission): grading cannot go on."""


class StartupTimeout(SandboxError):
    pass


@dataclass(frozen=True)
class SandboxPolicy:
    # False only for --unsafe-no-sandbox: no namespaces and no file-system isolation.
    isolated: bool = True


@dataclass(frozen=True)
class SandboxInfo:
    """What held, as the launcher reported it before any submission code ran."""
    mode: str = ""                       # "isolated" | "unsafe"
    namespaces: tuple[str, ...] = ()
    uid: int | None = None
    visible: tuple[str, ...] = ()        # what of the host's disk the worker can see
    limits: tuple[tuple[str, Any], ...] = ()
    notes: tuple[str, ...] = ()
    seccomp: tuple[str, ...] = ()        # the system calls the worker's filter refuses; () if none held
    memory: str = ""                     # what bounds memory: "cgroup v2" | "rlimit + no memfd + sized tmpfs"

    def as_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, "isolated": self.mode == "isolated", "namespaces": list(self.namespaces),
                "uid": self.uid, "visible": list(self.visible), "limits": dict(self.limits),
                "notes": list(self.notes), "seccomp": {"held": bool(self.seccomp), "refused": list(self.seccomp)},
                "memory": self.memory}


# The packages the worker may import besides the standard library: torch and numpy with
# everything they depend on. quizforge is not among them, so it is not in the sandbox.
ALLOWED_ROOTS = ("torch", "numpy")
GRADING = Path(__file__).resolve().parent.parent
WORKER_MODULES = GRADING / "sandbox_inside"
# The model descriptions' module is the hidden suites' (quizforge.challenges.models), so that the
# worker and the judge build the same model from one file; the worker gets it as sandbox_inside/models.py.
MODELS_MODULE = GRADING.parent / "challenges" / "models.py"


def worker_modules() -> dict[str, str]:
    """The worker's own modules, file name -> path: everything the sandbox holds of quizforge."""
    found = {p.name: str(p) for p in sorted(WORKER_MODULES.glob("*.py"))}
    found["models.py"] = str(MODELS_MODULE)
    return found


def _requirement_name(text: str) -> str | None:
    """'sympy>=1.13' -> 'sympy'; None for a requirement behind an extra (not installed for torch)."""
    if "extra ==" in text or "extra==" in text:
        return None
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", text)
    return match.group(1) if match else None


def _top_level_entries(dist) -> list[str]:
    """The first path component of every file `dist` installed, each once, in order. Read off
    RECORD directly: building torch's 14,000 file objects, and resolving each, cost a second
    before every worker could launch."""
    record = dist.read_text("RECORD")
    names = (row[0] for row in csv.reader(record.splitlines()) if row) if record is not None \
        else (file.as_posix() for file in dist.files or ())
    return list(dict.fromkeys(name.split("/", 1)[0] for name in names if name))


@functools.lru_cache(maxsize=1)
def allowed_packages() -> tuple[str, ...]:
    """Real paths of the top-level files and folders of torch's and numpy's distributions and
    their dependencies (their .dist-info included), as installed."""
    from importlib import metadata

    found: list[str] = []
    seen: set[str] = set()
    todo = list(ALLOWED_ROOTS)
    while todo:
        name = todo.pop()
        key = re.sub(r"[-_.]+", "-", name).lower()
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        for top in _top_level_entries(dist):
            if top not in ("..", "__pycache__") and not top.endswith(".pth"):
                path = os.path.realpath(dist.locate_file(top))
                if os.path.exists(path) and path not in found:
                    found.append(path)
        todo += [n for n in map(_requirement_name, dist.requires or ()) if n]
    if not found:  # a source build without metadata: the packages themselves
        for name in ALLOWED_ROOTS:
            spec = importlib.util.find_spec(name)
            found += [os.path.realpath(p) for p in (spec.submodule_search_locations or [])] if spec else []
    return tuple(found)


def _site_folders() -> list[str]:
    """Every site-packages or dist-packages folder this interpreter could have."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, "/usr", "/usr/local"}
    folders = []
    for prefix in prefixes:
        paths = sysconfig.get_paths(vars={"base": prefix, "platbase": prefix})
        folders += [paths["purelib"], paths["platlib"], f"{prefix}/lib/python3/dist-packages",
                    f"{prefix}/lib/{version}/dist-packages", f"{prefix}/lib/{version}/site-packages"]
    try:
        import site

        folders += [site.getusersitepackages(), *site.getsitepackages()]
    except (AttributeError, ImportError):
        pass
    return sorted({os.path.realpath(f) for f in folders if f})


@functools.lru_cache(maxsize=1)
def worker_file_system() -> dict[str, Any]:
    """What the launcher binds into the worker's root, and the worker's sys.path there."""
    python = os.path.realpath(sys.executable)
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    dynload = os.path.join(stdlib, "lib-dynload")
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    libpython = [os.path.realpath(os.path.join(libdir, n)) for n in (os.listdir(libdir) if os.path.isdir(libdir) else ())
                 if n.startswith("libpython")]
    system = [os.path.realpath(p) for p in ("/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/local/lib",
                                             "/lib", "/lib64") if os.path.isdir(p)]
    binds = sorted({python, stdlib, *libpython, *system})
    packages = list(allowed_packages())
    site_dirs: list[str] = []
    for package in packages:
        parent = os.path.dirname(package)
        if parent not in site_dirs:
            site_dirs.append(parent)
    return {"python": python, "binds": binds, "covers": _site_folders(), "packages": packages,
            "python_path": [stdlib, dynload, *site_dirs]}


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# --- the process tree, as /proc shows it --------------------------------------------

def _children(pid: int) -> list[int]:
    out = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            continue
    return out


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo and len(found) < 100_000:
        kids = _children(todo.pop())
        found += kids
        todo += kids
    return found


def _private_memory(pid: int) -> int:
    """Anonymous and shared-memory resident bytes, and page tables: what the process itself
    holds. (Read-only mappings of the zero page are page tables alone: 513 MiB of them in a
    minute, neither resident nor under RLIMIT_DATA.)"""
    total = 0
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(("RssAnon:", "RssShmem:", "VmPTE:")):
                    total += int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return total


def _refused_step(hello: Any) -> str | None:
    """The worker's "a step did not hold" hello, as the error grading stops with; None otherwise."""
    if type(hello) is not dict or hello.get("ok") is not False or hello.get("kind") != "sandbox":
        return None
    step, message, hint = (str(hello.get(k) or "")[:300] for k in ("step", "message", "hint"))
    return f"the sandbox could not be built ({step or 'unknown step'}): {message}" + (
        f"; to enable it: {hint}" if hint else "")


def _with_seccomp(info: SandboxInfo, filtered: dict) -> SandboxInfo:
    """`info` with what the worker's hello said of its seccomp filter."""
    from quizforge.grading.sandbox_inside import seccomp

    if filtered["held"]:
        return dataclasses.replace(info, seccomp=tuple(seccomp.refused_calls()))
    why = str(filtered.get("why") or "unknown reason")[:300]
    return dataclasses.replace(info, notes=(*info.notes, f"no seccomp filter: {why}"))


class Sandbox:
    def __init__(self, source: bytes, forbidden: GuardRules | tuple[str, ...], limits: Limits,
                 output: CapturedOutput, policy: SandboxPolicy | None = None):
        self.source = source
        self.rules = GuardRules.of(forbidden)
        self.forbidden = self.rules.forbidden
        self.limits = limits
        self.output = output
        self.policy = policy or SandboxPolicy()
        self.info = SandboxInfo()
        self.alive = False
        self.proc: subprocess.Popen | None = None
        self.base: str | None = None   # unsafe mode only: the host folder the worker runs in
        self._init_pidfd: int | None = None
        self._init_pid: int | None = None
        self._ended: dict | None = None
        self._error: str | None = None
        self._status_buffer = b""
        self._status_closed = False
        self._next_id = 0
        self._peak_memory = 0
        self._fds: list[int] = []
        self._output_thread = None
        self._active = False             # a process tree may exist: kill() has work to do
        self.cgroup: memory_cgroup.MemoryCgroup | None = None  # this worker's own, where one can be made
        self.torch_import_seconds: float | None = None

    # --- starting ------------------------------------------------------------

    def start(self, deadline: float) -> None:
        """Launch the tree and wait for the worker's hello (torch imported, guards set)."""
        self.launch()
        self.wait_ready(deadline)

    def _config(self) -> tuple[dict, list[int]]:
        if self.policy.isolated and not sys.platform.startswith("linux"):
            raise SandboxError("the sandbox could not be built (namespaces): they exist on Linux only, "
                               f"not on {sys.platform}; grade on Linux")
        files = worker_file_system()
        uid = UID_BASE + secrets.randbelow(UID_SPAN) if os.getuid() == 0 else None
        config = {"mode": "isolated" if self.policy.isolated else "unsafe", "judge_pid": os.getpid(),
                  "python": files["python"], "binds": files["binds"], "covers": files["covers"],
                  "packages": files["packages"], "python_path": files["python_path"],
                  "worker_files": worker_modules(), "rules": self.rules.as_config(), "uid": uid,
                  "memory_bytes": self.limits.memory, "env": WORKER_ENV}
        if self.policy.isolated:
            # The source goes through a memfd: nothing of this sandbox is ever written to the host's disk.
            source_fd = os.memfd_create("quizforge-submission", 0)
            os.write(source_fd, self.source)
            os.lseek(source_fd, 0, os.SEEK_SET)
            config["source_fd"] = source_fd
            return config, [source_fd]
        self.base = tempfile.mkdtemp(prefix="quizforge-grade-")
        os.chmod(self.base, 0o755)
        work, worker, site_dir = (os.path.join(self.base, n) for n in ("work", "worker", "site"))
        os.mkdir(work, 0o700)
        with open(os.path.join(work, SUBMISSION_NAME), "wb") as f:
            f.write(self.source)
        os.makedirs(os.path.join(worker, "sandbox_inside"))
        for name, path in config["worker_files"].items():
            shutil.copyfile(path, os.path.join(worker, "sandbox_inside", name))
        os.mkdir(site_dir)
        for package in files["packages"]:  # only torch's packages on the path, not quizforge's
            os.symlink(package, os.path.join(site_dir, os.path.basename(package)))
        config.update(base=self.base, python_path_unsafe=files["python_path"][:2] + [site_dir])
        return config, []

    def launch(self) -> None:
        """Start the tree without waiting for it. Needs no torch here, so a judge that has not
        loaded torch yet can import it while the worker does the same. Call it from a thread
        that outlives the sandbox: the launcher dies with the thread that started it."""
        config, extra_fds = self._config()
        self.cgroup = memory_cgroup.MemoryCgroup.create(self.limits.memory)
        config["cgroup"] = str(self.cgroup.path) if self.cgroup is not None else None
        request_r, self._request_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        self._status_r, status_w = os.pipe()
        output_r, output_w = os.pipe()
        self._fds = [self._request_w, self._reply_r, self._status_r]
        config.update(request_fd=request_r, reply_fd=reply_w, status_fd=status_w)
        self._popen(config, output_w, (request_r, reply_w, status_w, *extra_fds),
                    (request_r, reply_w, status_w, output_w, *extra_fds))
        self._output_thread = self.output.drain(output_r)
        os.set_blocking(self._request_w, False)
        os.set_blocking(self._status_r, False)
        self.alive = True

    def _popen(self, config: dict, output_w: int, pass_fds: tuple[int, ...], close_fds: tuple[int, ...]) -> None:
        """Start the launcher with `config`; the fds in `close_fds` are closed here either way."""
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-I", "-S", str(LAUNCHER), json.dumps(config)],
                stdin=subprocess.DEVNULL, stdout=output_w, stderr=output_w, cwd="/", env=WORKER_ENV,
                pass_fds=pass_fds, start_new_session=True)
        finally:
            for fd in set(close_fds):
                os.close(fd)
        self._active = True

    def wait_ready(self, deadline: float) -> None:
        """Wait for the worker's hello; SandboxError (StartupTimeout) if it does not come."""
        try:
            hello = self._await_frame(deadline, "while starting", startup=True)
        except SubmissionError as exc:
            self.kill()
            if exc.kind == "timeout":
                raise StartupTimeout("the worker did not start in time") from None
            if self._error is not None:
                raise SandboxError(self._error) from None
            raise SandboxError(f"the worker could not start: {exc.message}{self._last_output()}") from None
        # Sent before any submission code ran: the worker is still ours, its word holds.
        refusal = _refused_step(hello)
        if refusal is not None:
            self.kill()
            raise SandboxError(refusal)
        value = hello.get("value") if type(hello) is dict else None
        filtered = value.get("seccomp") if type(value) is dict else None
        if (hello.get("id"), hello.get("ok")) != (0, True) or type(value) is not dict \
                or type(value.get("torch_import_seconds")) is not float or type(filtered) is not dict \
                or type(filtered.get("held")) is not bool:
            self.kill()
            raise SandboxError("the worker started but did not say hello")
        self.torch_import_seconds = value["torch_import_seconds"]
        self._read_status()  # the launcher's report, written before the worker started
        self.info = _with_seccomp(self.info, filtered)

    def _last_output(self) -> str:
        if self._output_thread is not None:
            self._output_thread.join(0.5)
        lines = self.output.text().strip().splitlines()
        return f" ({lines[-1][:300]})" if lines else ""

    # --- status from the launcher ----------------------------------------------

    def _read_chunk(self) -> bytes:
        return os.read(self._status_r, 4096)

    def _read_status(self) -> None:
        try:
            while True:
                chunk = self._read_chunk()
                if not chunk:
                    self._status_closed = True  # the launcher and its init are gone
                    break
                self._status_buffer += chunk
        except BlockingIOError:
            pass
        except OSError:
            return
        *lines, self._status_buffer = self._status_buffer.split(b"\n")
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if not isinstance(event, dict):
                continue
            kind = event.get("event")
            if kind == "init" and isinstance(event.get("pid"), int):
                self._track_init(event["pid"])
            elif kind == "sandbox":
                self.info = self._sandbox_info(event)
            elif kind in ("exit", "signal"):
                self._ended = event
            elif kind == "error":
                step, message, hint = (str(event.get(k) or "")[:300] for k in ("step", "message", "hint"))
                self._error = f"the sandbox could not be built ({step or 'unknown step'}): {message}"
                if hint:
                    self._error += f"; to enable it: {hint}"

    def _sandbox_info(self, event: dict) -> SandboxInfo:
        limits = event.get("limits") if isinstance(event.get("limits"), dict) else {}
        return SandboxInfo(str(event.get("mode", "")), tuple(map(str, event.get("namespaces", ()))),
                           event.get("uid"), tuple(map(str, event.get("visible", ()))),
                           tuple(sorted(limits.items())), tuple(map(str, event.get("notes", ()))),
                           memory=memory_cgroup.CGROUP if self.cgroup is not None else memory_cgroup.FALLBACK)

    def _track_init(self, pid: int) -> None:
        """Hold the namespace's init by a pidfd, checked to be the launcher's child, so a
        recycled pid can never be killed by mistake."""
        try:
            pidfd = os.pidfd_open(pid)
        except (OSError, AttributeError):
            pidfd = None
        try:
            with open(f"/proc/{pid}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            ppid = None
        if self.proc is not None and ppid == self.proc.pid:
            self._init_pid, self._init_pidfd = pid, pidfd
        elif pidfd is not None:
            os.close(pidfd)

    # --- requests ------------------------------------------------------------

    def request(self, message: dict, deadline: float, timeout_message: str, during: str = "during the call",
                reply_bytes: int | None = None) -> Any:
        """Send one request and return the worker's answer; SubmissionError if it failed.
        The reply may be at most `reply_bytes` long; by default, what the request's own tensors
        could honestly turn into (see reply_cap)."""
        from quizforge.grading.sandbox_inside import protocol  # here, not at the top: it loads torch (see launch)

        if not self.alive:
            raise SubmissionError("crash", "the worker is no longer running")
        self._next_id += 1
        message = dict(message, id=self._next_id)
        try:
            frame = protocol.encode(message)
        except protocol.EncodeError as exc:
            raise TypeError(f"the hidden test passed a value that cannot be sent to the worker: {exc}") from None
        try:
            protocol.write_frame(self._request_w, frame, deadline)
        except protocol.FrameTimeout:
            self._fail("timeout", timeout_message)
        except OSError:
            self._fail_ended(during)
        cap = reply_bytes if reply_bytes is not None else reply_cap(len(frame))
        reply = self._await_frame(deadline, during, timeout_message=timeout_message, max_bytes=cap)
        return self._check_reply(reply, during)

    def _await_frame(self, deadline: float, during: str, timeout_message: str = "timed out",
                     startup: bool = False, max_bytes: int = REPLY_FLOOR_BYTES) -> Any:
        from quizforge.grading.sandbox_inside import protocol

        poller = select.poll()
        poller.register(self._reply_r, select.POLLIN)
        poller.register(self._status_r, select.POLLIN)
        next_check = 0.0
        while True:
            now = time.monotonic()
            if now >= deadline:
                self._fail("timeout", timeout_message)
            if now >= next_check and not startup:
                self._check_memory()
                next_check = now + POLL_SECONDS
            events = dict(poller.poll(min(deadline - now, POLL_SECONDS) * 1000))
            if self._status_r in events:
                self._read_status()
            if self._reply_r in events:
                try:
                    return protocol.read_frame(self._reply_r, deadline, max_bytes)
                except protocol.FrameTimeout:
                    self._fail("timeout", timeout_message)
                except protocol.FrameEOF:
                    self._fail_ended(during)
                except protocol.ProtocolError as exc:
                    self._fail("protocol", exc.message)
            if self._ended is not None or self._error is not None or self._status_closed:
                self._fail_ended(during)

    def _check_reply(self, reply: Any, during: str) -> Any:
        try:
            return reply_value(reply, self._next_id, self.limits.memory_message)
        except SubmissionError as exc:
            # A worker that crashed, hung or spoke garbage is not asked again. After a refused
            # allocation (RLIMIT_DATA) it holds no more than the limit and serves the next request.
            if exc.kind in ("crash", "timeout", "protocol"):
                self.kill()
            raise

    def _check_memory(self) -> None:
        root = self._init_pid or (self.proc.pid if self.proc else None)
        if root is None:
            return
        used = sum(_private_memory(pid) for pid in [root, *descendants(root)])
        self._peak_memory = max(self._peak_memory, used)
        if used > self.limits.memory:
            self._fail("memory", self.limits.memory_message)

    # --- failing -------------------------------------------------------------

    def _fail(self, kind: str, message: str, lineno: int | None = None) -> None:
        self.kill()
        raise SubmissionError(kind, message, lineno=lineno)

    def _fail_ended(self, during: str) -> None:
        """The worker is gone: say how, from the launcher's report, then clean up."""
        end = time.monotonic() + 1.0
        while self._ended is None and self._error is None and not self._status_closed and time.monotonic() < end:
            if select.select([self._status_r], [], [], 0.05)[0]:
                self._read_status()
            elif self.proc is not None and self.proc.poll() is not None:
                self._read_status()
                break
        ended = self._ended
        oom_killed = self.cgroup is not None and self.cgroup.oom_killed()
        self.kill()
        if ended is not None and ended.get("event") == "exit":
            raise SubmissionError("crash", f"the submission exited (status {ended.get('code')}) {during}")
        if ended is not None and ended.get("event") == "signal":
            number = int(ended.get("signal", 0))
            if number == signal.SIGKILL and (oom_killed or self._peak_memory > 0.8 * self.limits.memory):
                raise SubmissionError("memory", self.limits.memory_message)
            what = "crashed (segmentation fault)" if number == signal.SIGSEGV else f"was killed by {_signal_name(number)}"
            raise SubmissionError("crash", f"the submission {what} {during}")
        raise SubmissionError("crash", f"the worker died {during}")

    # --- killing -------------------------------------------------------------

    def kill(self) -> None:
        """Kill the whole tree and release everything. Safe to call more than once."""
        if not self._active and self.base is None and self.cgroup is None:
            return
        self._active = False
        self.alive = False
        try:
            self._kill_tree()
        finally:
            # Whatever happened above, nothing of this sandbox stays open or on disk.
            for fd in [*self._fds, *([self._init_pidfd] if self._init_pidfd is not None else [])]:
                try:
                    os.close(fd)
                except OSError:
                    pass
            self._fds, self._init_pidfd = [], None
            if self._output_thread is not None:
                self._output_thread.join(2.0)  # the rest of what it printed, up to EOF
            if self.base is not None:
                shutil.rmtree(self.base, ignore_errors=True)
                self.base = None
            if self.cgroup is not None:
                self.cgroup.remove()
                self.cgroup = None

    def _kill_tree(self) -> None:
        if self.proc is None:
            return
        if self._fds:
            self._read_status()  # the init's pid may be waiting there, unread
        if self._init_pidfd is not None:
            try:
                signal.pidfd_send_signal(self._init_pidfd, signal.SIGKILL)
            except OSError:
                pass
        else:
            self._kill_descendants()
        try:
            _wait_exit(self.proc, 3.0)  # it exits once the namespace is empty
        except subprocess.TimeoutExpired:
            self._kill_descendants()
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def _kill_descendants(self) -> None:
        """Without a PID namespace: the launcher is a subreaper, so everything is below it."""
        if self.proc is None:
            return
        for _ in range(50):
            pids = descendants(self.proc.pid)
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.01)
        if self.info.uid is not None and self.info.uid >= UID_BASE and not self.info.namespaces:
            # Belt and braces: whatever still runs under the sandbox's own uid, found by the
            # kernel: kill(-1) from that uid reaches exactly its processes.
            try:
                subprocess.run(["/bin/true"], user=self.info.uid, group=self.info.uid, extra_groups=[],
                               preexec_fn=lambda: os.kill(-1, signal.SIGKILL), check=False,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            except OSError:
                pass  # the kill ran before exec; only the exec failed
        self.proc.kill()
