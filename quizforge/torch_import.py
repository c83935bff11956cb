"""Importing torch so that Ctrl-C during the import still exits cleanly, and at once.

torch's import runs Python from C++ (pybind11). A KeyboardInterrupt raised inside it
cannot unwind through the C++ frames: the process aborts ("terminate called after
throwing an instance of 'pybind11::error_already_set'") instead of cleaning up and
exiting 130. Python raises KeyboardInterrupt only in the main thread, so the main thread
hands the import to a helper thread and waits for it: an interrupt lands in the wait,
where it unwinds as usual (the import carries on, harmlessly, in the helper).
"""

from __future__ import annotations

import sys
import threading
from types import ModuleType


def import_torch() -> ModuleType:
    if "torch" in sys.modules or threading.current_thread() is not threading.main_thread():
        import torch  # already there, or off the main thread (no interrupt is raised here)

        return torch
    failure: list[BaseException] = []

    def load() -> None:
        try:
            import torch  # noqa: F401
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            failure.append(exc)

    loader = threading.Thread(target=load, name="import-torch", daemon=True)
    loader.start()
    while loader.is_alive():
        loader.join(0.05)  # a short timeout keeps the wait interruptible on every platform
    if failure:
        raise failure[0]
    return sys.modules["torch"]
