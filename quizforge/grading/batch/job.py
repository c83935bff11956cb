"""One job of a batch grading: a judge process with its own zygote, grading one submission
after another as the batch driver (driver.py) hands them out.

    python -m quizforge.grading.batch.job CHALLENGE_ID MEMORY_BYTES TIME_LIMIT

Tasks arrive on stdin, one JSON line each: {"student": ..., "path": ..., "source": base64 of the
file's bytes, as the driver read and checked them (the job never opens the student's path)}. For each, one
JSON line goes to stdout: {"student": ..., "result": {...}} (see results_io), or
{"student": ..., "error": "..."} when the submission could not be read. If the sandbox
cannot be built, the job writes {"fatal": "..."} and exits 1: the batch stops, graded
as far as it got, rather than going on with less isolation. The job dies with its driver
(PR_SET_PDEATHSIG), and its zygote and workers die with it.
"""

from __future__ import annotations

import base64
import ctypes
import json
import os
import signal
import sys

PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(1)


def _emit(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    _die_with_parent()
    from quizforge.challenges import load_challenge
    from quizforge.errors import InputError
    from quizforge.grading.batch.results_io import result_to_dict
    from quizforge.grading.grade import grade
    from quizforge.grading.judge.limits import Limits
    from quizforge.grading.sandbox_host.sandbox import SandboxError
    from quizforge.grading.sandbox_host.zygote_control import Zygote

    challenge = load_challenge(argv[0])
    memory, time_limit = int(argv[1]), (float(argv[2]) if argv[2] != "none" else None)
    zygote = Zygote(Limits(memory=memory))
    try:
        try:
            zygote.start()
        except SandboxError as exc:
            _emit({"fatal": str(exc)})
            return 1
        for line in sys.stdin:
            task = json.loads(line)
            if not zygote.alive:  # killed by a hostile submission's fallout: start another
                zygote.close()
                zygote = Zygote(Limits(memory=memory))
                zygote.start()
            try:
                result = grade(task["path"], challenge, memory_limit=memory, time_limit=time_limit, zygote=zygote,
                               source=base64.b64decode(task["source"]))
            except InputError as exc:
                _emit({"student": task["student"], "error": str(exc)})
                continue
            except SandboxError as exc:
                _emit({"fatal": str(exc)})
                return 1
            _emit({"student": task["student"], "result": result_to_dict(result)})
    except KeyboardInterrupt:
        return 130
    finally:
        zygote.close()
    return 0


def _interrupt(signum, frame) -> None:
    raise KeyboardInterrupt  # unwinds through `finally`, which kills the zygote


if __name__ == "__main__":
    signal.signal(signal.SIGTERM, _interrupt)
    sys.exit(main(sys.argv[1:]))
