"""Ctrl-C while torch is being imported (quizforge/torch_import.py)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from signal_support import sigint_as_usual

INTERRUPTED_DURING_IMPORT = textwrap.dedent("""
    import os, signal, sys, threading, time
    from quizforge.torch_import import import_torch

    class Slow:
        # Holds torch's import in one of its submodules for 3 s (asleep, so not holding the GIL):
        # the interrupt lands mid-import however fast or loaded the machine is.
        done = released = False

        def find_spec(self, name, path=None, target=None):
            if name.startswith("torch.") and not Slow.done:
                Slow.done = True
                time.sleep(3)
                Slow.released = True
            return None

    sys.meta_path.insert(0, Slow())
    threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT)).start()   # in the middle of the import
    started = time.monotonic()
    try:
        import_torch()
        print("not interrupted")
    except KeyboardInterrupt:
        loading = Slow.done and not Slow.released   # (Thread.is_alive() is unreliable after an interrupted join)
        print(f"interrupted after {time.monotonic() - started:.2f} s", "while importing" if loading else "after the import")
    # Interrupted inside its own import, torch is left broken ("SystemError: bad call flags");
    # here its import was never interrupted, so cleanup code can still use it.
    print(import_torch().tensor([1.0, 2.0]).sum().item())
    sys.stdout.flush()
    os._exit(130)
""")


def test_ctrl_c_during_the_torch_import_unwinds_at_once():
    done = subprocess.run([sys.executable, "-c", INTERRUPTED_DURING_IMPORT], capture_output=True, text=True,
                          timeout=60, preexec_fn=sigint_as_usual)
    # An interrupt inside torch's own import would abort the process (-6) or leave it half imported.
    assert done.returncode == 130, done.stderr[-2000:]
    interrupted, works = done.stdout.splitlines()
    assert interrupted.startswith("interrupted after "), done.stdout
    # The wait is interrupted, the import is not waited for. Asked of the import's own thread,
    # not of a wall clock, so a loaded machine cannot fail it (or pass it by luck).
    assert interrupted.endswith("while importing"), done.stdout
    assert works == "3.0"


def test_the_import_gives_torch():
    done = subprocess.run([sys.executable, "-c", "from quizforge.torch_import import import_torch\n"
                           "print(import_torch().tensor([1.0, 2.0]).sum().item())"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "3.0", done.stderr[-2000:]
