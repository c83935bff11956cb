"""The judge's side of the zygote (sandbox_inside/zygote.py): one sandbox that has imported torch
and forks a fresh, separately isolated worker for each submission of a batch.

`Zygote.start()` builds the zygote's sandbox exactly as for a worker (the launcher, the
allow-list root, namespaces, an unprivileged uid, limits; failing closed the same way)
and waits for it to import torch. `Zygote.sandbox(...)` returns a `ForkedSandbox`: the
same interface as `Sandbox`, whose worker the zygote forks into namespaces, folders and
limits of its own. The judge kills a forked worker through a pidfd of its namespace's
init, so nothing depends on the zygote's cooperation to end it.
"""

from __future__ import annotations

import dataclasses
import json
import os
import select
import signal
import socket
import threading
import time
from typing import Any

from quizforge.grading.judge.limits import STARTUP_SECONDS, Limits
from quizforge.grading.judge.output import CapturedOutput
from quizforge.grading.judge.rules import GuardRules
from quizforge.grading.sandbox_host import memory_cgroup
from quizforge.grading.sandbox_host.sandbox import Sandbox, SandboxError, SandboxInfo, SandboxPolicy

SPAWN_FDS = ("request", "reply", "output", "status", "source")  # as sandbox_inside/zygote.py reads them


def _pid_of(pidfd: int) -> int | None:
    """The pid, as this process sees it, of the process a pidfd refers to."""
    try:
        with open(f"/proc/self/fdinfo/{pidfd}") as f:
            for line in f:
                if line.startswith("Pid:"):
                    pid = int(line.split()[1])
                    return pid if pid > 0 else None
    except (OSError, ValueError, IndexError):
        return None
    return None


class Zygote:
    def __init__(self, limits: Limits):
        self.limits = limits
        self.output = CapturedOutput()   # what the zygote itself prints (nothing, normally)
        self.info = SandboxInfo()
        self.torch_import_seconds: float | None = None
        self._holder: Sandbox | None = None
        self._control: socket.socket | None = None
        self._lock = threading.Lock()

    def start(self) -> None:
        """Build the zygote's sandbox and wait until it has imported torch. SandboxError if it cannot."""
        judge_end, zygote_end = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        holder = _ZygoteHolder(self.limits, self.output, zygote_end.fileno())
        try:
            holder.launch()
        finally:
            zygote_end.close()
        self._holder, self._control = holder, judge_end
        deadline = time.monotonic() + STARTUP_SECONDS
        buffer = b""
        while b"\n" not in buffer:
            holder._read_status()
            if holder._error is not None:
                self.close()
                raise SandboxError(holder._error)
            if holder._ended is not None or holder._status_closed or time.monotonic() > deadline:
                self.close()
                raise SandboxError("the zygote did not start")
            ready, _, _ = select.select([judge_end, holder._status_r], [], [], 0.1)
            if judge_end in ready:
                chunk = judge_end.recv(4096)
                if not chunk:
                    continue
                buffer += chunk
        try:
            hello = json.loads(buffer.split(b"\n")[0])
            self.torch_import_seconds = float(hello["torch_import_seconds"])
        except (ValueError, KeyError, TypeError):
            self.close()
            raise SandboxError("the zygote started but did not say hello") from None
        holder._read_status()
        self.info = holder.info

    @property
    def alive(self) -> bool:
        return self._holder is not None and self._holder.proc is not None and self._holder.proc.poll() is None

    def sandbox(self, source: bytes, forbidden: GuardRules | tuple[str, ...], limits: Limits, output: CapturedOutput,
                policy: SandboxPolicy | None = None) -> "ForkedSandbox":
        return ForkedSandbox(self, source, forbidden, limits, output)

    def spawn(self, request: dict[str, Any], fds: list[int]) -> None:
        if self._control is None:
            raise SandboxError("the zygote is not running")
        with self._lock:
            try:
                socket.send_fds(self._control, [json.dumps(request).encode()], fds)
            except OSError as exc:
                raise SandboxError(f"the zygote is gone ({exc.strerror})") from None

    def close(self) -> None:
        if self._control is not None:
            self._control.close()
            self._control = None
        if self._holder is not None:
            self._holder.kill()
            self._holder = None


class _ZygoteHolder(Sandbox):
    """The zygote's own sandbox: a launcher run with role "zygote" and the control socket as fds."""

    def __init__(self, limits: Limits, output: CapturedOutput, control_fd: int):
        super().__init__(b"", (), limits, output, SandboxPolicy())
        self.control_fd = control_fd

    def _config(self) -> tuple[dict, list[int]]:
        config, fds = super()._config()
        config.update(role="zygote")
        return config, fds

    def launch(self) -> None:
        # The control socket stands in for both protocol pipes (see sandbox_inside/zygote.py).
        config, extra_fds = self._config()
        self._status_r, status_w = os.pipe()
        output_r, output_w = os.pipe()
        self._fds = [self._status_r]
        config.update(request_fd=self.control_fd, reply_fd=self.control_fd, status_fd=status_w)
        self._popen(config, output_w, (self.control_fd, status_w, *extra_fds), (status_w, output_w, *extra_fds))
        self._output_thread = self.output.drain(output_r)
        os.set_blocking(self._status_r, False)
        self.alive = True


class ForkedSandbox(Sandbox):
    """A worker forked by the zygote, in namespaces and folders of its own."""

    def __init__(self, zygote: Zygote, source: bytes, forbidden: GuardRules | tuple[str, ...], limits: Limits,
                 output: CapturedOutput):
        super().__init__(source, forbidden, limits, output, SandboxPolicy())
        self.zygote = zygote
        self._status_sock: socket.socket | None = None
        self._launched = False

    def launch(self) -> None:
        request_r, self._request_w = os.pipe()
        self._reply_r, reply_w = os.pipe()
        output_r, output_w = os.pipe()
        self._status_sock, status_child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        self._status_r = self._status_sock.fileno()
        source_fd = os.memfd_create("quizforge-submission", 0)
        os.write(source_fd, self.source)
        os.lseek(source_fd, 0, os.SEEK_SET)
        self._fds = [self._request_w, self._reply_r]
        child_fds = [request_r, reply_w, output_w, status_child.fileno(), source_fd]
        # The init waits for our go once we have moved it into this cgroup (see _read_chunk).
        self.cgroup = memory_cgroup.MemoryCgroup.create(self.limits.memory)
        try:
            self.zygote.spawn({"rules": self.rules.as_config(), "memory_bytes": self.limits.memory,
                               "cgroup": self.cgroup is not None}, child_fds)
        finally:
            for fd in (request_r, reply_w, output_w, source_fd):
                os.close(fd)
            status_child.close()
        self._launched = self._active = True
        self._output_thread = self.output.drain(output_r)
        os.set_blocking(self._request_w, False)
        self._status_sock.setblocking(False)
        self.alive = True

    def _read_chunk(self) -> bytes:
        data, fds, _flags, _addr = socket.recv_fds(self._status_sock, 4096, 1)
        for fd in fds:
            if self._init_pidfd is None:
                self._init_pidfd, self._init_pid = fd, _pid_of(fd)
                self._into_cgroup()
            else:
                os.close(fd)
        return data

    def _into_cgroup(self) -> None:
        """Move the init into this worker's cgroup before it forks the worker, then let it go."""
        if self.cgroup is None:
            return
        try:
            if self._init_pid is None:
                raise OSError(0, "the init's pid is unknown")
            self.cgroup.add(self._init_pid)
            self._status_sock.send(b"g")
        except OSError as exc:
            self._error = f"the sandbox could not be built (memory cgroup): cannot move the worker in ({exc.strerror})"

    def _sandbox_info(self, event: dict) -> SandboxInfo:
        info = super()._sandbox_info(event)
        notes = ("forked by a zygote that imported torch once for the batch",)
        return dataclasses.replace(info, visible=self.zygote.info.visible, notes=notes)

    def _kill_tree(self) -> None:
        if self._status_sock is not None:
            end = time.monotonic() + 2.0
            while self._init_pidfd is None and not self._status_closed and time.monotonic() < end:
                # The pidfd may still be on its way: without it the worker could outlive us.
                if select.select([self._status_r], [], [], 0.05)[0]:
                    self._read_status()
        if self._init_pidfd is not None:
            try:
                signal.pidfd_send_signal(self._init_pidfd, signal.SIGKILL)
            except OSError:
                pass
            # The init of a PID namespace exits only once everything in it has.
            select.select([self._init_pidfd], [], [], 3.0)
        elif self._launched and not self._status_closed:
            # No handle on this worker: end the zygote, and every worker it made with it.
            self.zygote.close()
        self.proc = None

    def kill(self) -> None:
        super().kill()
        self._launched = False
        if self._status_sock is not None:
            self._status_sock.close()
            self._status_sock = None
