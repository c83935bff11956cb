"""The resource limits a grading runs under, and how they are written on the command line."""

from __future__ import annotations

import re
from dataclasses import dataclass

from quizforge.errors import InputError

DEFAULT_MEMORY = 2 * 2**30
# torch alone commits about 250 MB once imported; less than this cannot run any submission.
MIN_MEMORY = 384 * 2**20
# A fresh worker must import torch before it can do anything; that is not the submission's time.
STARTUP_SECONDS = 60.0
# What is kept of the submission's stdout and stderr, for display.
OUTPUT_BYTES = 64 * 2**10
SUBMISSION_BYTES = 2**20

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9, "gb": 10**9,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "t": 10**12, "tb": 10**12}


def parse_size(text: str | int) -> int:
    """'512MiB' -> 536870912; '2GiB', '1.5G', '800000000' are accepted too."""
    if isinstance(text, int):
        return text
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", str(text))
    if not match or match.group(2).lower() not in _UNITS:
        raise InputError(f"cannot read the size {text!r}: write it like 512MiB or 2GiB")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def format_size(n: int) -> str:
    """536870912 -> '512 MiB'; 2147483648 -> '2 GiB'."""
    for factor, suffix in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if n >= factor:
            value = n / factor
            return f"{value:.0f} {suffix}" if value == int(value) else f"{value:.1f} {suffix}"
    return f"{n} B"


@dataclass(frozen=True)
class Limits:
    memory: int = DEFAULT_MEMORY       # bytes, for the worker's whole process tree
    call_seconds: float = 10.0         # one request to the worker
    total_seconds: float = 120.0       # the whole suite, worker restarts included

    def __post_init__(self) -> None:
        if self.memory < MIN_MEMORY:
            raise InputError(f"a memory limit of {format_size(self.memory)} is too small to import torch; "
                             f"give at least {format_size(MIN_MEMORY)}")
        if not (self.call_seconds > 0 and self.total_seconds > 0):
            raise InputError("time limits must be positive")

    @property
    def memory_message(self) -> str:
        return f"memory limit exceeded ({format_size(self.memory)})"
