"""Questions generated ahead, on one background thread, while the learner reads.

The first question of a session comes from a light template (no torch, no sympy), so it
is on screen at once; the heavy imports and the next questions are made behind it. All
generation runs on the one worker thread, so templates never race on their caches. The
thread is a daemon, so a session ends without waiting for what is queued; but a job already
running (a torch import takes seconds) is let finish at exit: a daemon thread stopped inside
torch's C++ while the interpreter shuts down aborts the process ("terminate called without an
active exception", status -6) after the session was saved.
"""

from __future__ import annotations

import atexit
import gc
import itertools
import queue
import sys
import threading
import time
import weakref
from concurrent.futures import Future
from typing import Callable

from quizforge.bank.question import Question
from quizforge.bank.registry import get_template, parse_question_id, question


def _generate(question_id: str) -> Question:
    return question(question_id)


def _is_light(question_id: str) -> bool:
    template, _ = parse_question_id(question_id)
    return template.light


def _warm(template_id: str) -> None:
    """Import what a heavy template needs and fill its caches, with a throwaway seed."""
    try:
        get_template(template_id).question(0)
    except Exception:   # a warm-up failure must not surface; the real draw will report it
        pass


# Prefetchers alive in this process, for the wait at exit.
_LIVE: "weakref.WeakSet[Prefetcher]" = weakref.WeakSet()
EXIT_WAIT_SECONDS = 30.0


@atexit.register
def finish_running_jobs(limit: float = EXIT_WAIT_SECONDS) -> None:
    """Wait (at most `limit` seconds) for each prefetch thread's job in progress; queued jobs
    are not started once the prefetcher is closed. atexit runs before daemon threads are stopped."""
    deadline = time.monotonic() + limit
    for prefetcher in list(_LIVE):
        while prefetcher.busy and time.monotonic() < deadline:
            prefetcher._thread.join(0.05)


class Prefetcher:
    def __init__(self) -> None:
        # Questions asked for jump ahead of warm-up jobs: (priority, order, job).
        self._jobs: queue.PriorityQueue = queue.PriorityQueue()
        self._order = itertools.count()
        self._pending: dict[str, Future] = {}
        self._warming = False
        self._warmed = False
        self._closed = False
        self.busy = False   # inside a job (see finish_running_jobs)
        self._thread = threading.Thread(target=self._work, name="quizforge-prefetch", daemon=True)
        self._thread.start()
        _LIVE.add(self)

    def _work(self) -> None:
        while True:
            _, _, job = self._jobs.get()
            if job is None:
                return
            future, func, arg = job
            if not future.set_running_or_notify_cancel():
                continue
            self.busy = True
            try:
                future.set_result(func(arg))
            except BaseException as exc:   # handed to whoever waits on it
                future.set_exception(exc)
            finally:
                self.busy = False
            # torch and sympy leave millions of long-lived objects; without this the first full
            # collection lands on the learner's next answer (over 100 ms). Freezing is cheap.
            gc.freeze()

    def _submit(self, func: Callable, arg, priority: int = 0) -> Future:
        future: Future = Future()
        self._jobs.put((priority, next(self._order), (future, func, arg)))
        return future

    @property
    def warm(self) -> bool:
        """Whether torch and sympy are loaded (heavy questions are then quick)."""
        return self._warmed or ("torch" in sys.modules and "sympy" in sys.modules)

    def prefetch(self, question_id: str) -> None:
        if question_id not in self._pending:
            self._pending[question_id] = self._submit(_generate, question_id)

    def warm_up(self, heavy_template_ids: list[str]) -> None:
        if heavy_template_ids and not self._warming:
            self._warming = True
            for template_id in heavy_template_ids:
                last = self._submit(_warm, template_id, priority=1)
            last.add_done_callback(lambda _: setattr(self, "_warmed", True))

    def get(self, question_id: str) -> Question:
        future = self._pending.pop(question_id, None)
        if future is not None and future.done():
            return future.result()
        if self._closed or _is_light(question_id):
            # A light question takes a millisecond here; behind a torch import it could take seconds.
            if future is not None:
                future.cancel()
            return _generate(question_id)
        if future is not None and future.cancel():
            future = None   # still queued behind the rest of the paper: asked for now, it goes first
        return (future or self._submit(_generate, question_id, priority=-1)).result()

    def close(self) -> None:
        self._closed = True
        for future in self._pending.values():
            future.cancel()
        self._pending.clear()
        self._jobs.put((-1, -1, None))
