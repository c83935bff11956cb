"""The grading seed: every input of a hidden suite is drawn from it.

The hidden suites ship with quizforge, so inputs drawn from fixed seeds could be
recorded offline, with their answers, into a lookup table. Instead the judge draws a
fresh seed for each grading (`fresh`), runs the suite under it (`using`), and puts it
in the result, so that `quiz grade --seed N` reproduces that grading exactly. A suite
asks for the seed of its input stream `n` (`derive`); without a grading seed in force
there are no inputs at all (fail closed: never fall back to fixed ones).

Only the judge sets the seed; the submission runs in another process and never sees it.
Standard library only: a submission rejected before it runs costs no torch import.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from quizforge.errors import InputError

SEED_BITS = 32  # 4 billion gradings' worth, and short enough to read out and type back
MAX_SEED = 2**SEED_BITS - 1

_current: int | None = None


def fresh() -> int:
    return secrets.randbits(SEED_BITS)


def parse(value: int | str) -> int:
    """A seed given by the user (a whole number from 0 to MAX_SEED), or InputError."""
    text = str(value).strip()
    if isinstance(value, bool) or not text.isascii() or not text.isdigit() or int(text) > MAX_SEED:
        raise InputError(f"the seed must be a whole number from 0 to {MAX_SEED}, not {str(value)[:40]!r}",
                         param="seed")
    return int(text)


@contextmanager
def using(seed: int) -> Iterator[int]:
    """Make `seed` the grading seed while a suite runs (the judge's side only)."""
    global _current
    previous, _current = _current, seed
    try:
        yield seed
    finally:
        _current = previous


def current() -> int:
    if _current is None:
        raise RuntimeError("no grading seed is in force: hidden suites run through the judge, which draws one")
    return _current


def derive(stream: int) -> int:
    """The seed of input stream `stream` under this grading's seed: a hash of both, so that
    streams are unrelated to one another and to the streams of any other grading seed."""
    digest = hashlib.blake2b(f"quizforge:{current()}:{stream}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1  # 63 bits: any torch.Generator takes it
