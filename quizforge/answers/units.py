"""The units an answer may carry, by family (counts, bytes, FLOPs, durations), and their sizes."""

from __future__ import annotations

UNIT_FAMILIES = (None, "count", "bytes", "flops", "time")

COUNT_SUFFIXES = {"K": 10**3, "k": 10**3, "M": 10**6, "B": 10**9, "G": 10**9, "T": 10**12}
COUNT_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
                "mn": 10**6, "bn": 10**9, "lakh": 10**5, "lakhs": 10**5, "crore": 10**7, "crores": 10**7}
# What is counted, written after a count ('1,048,576 parameters', '1.05M params'): it changes nothing.
COUNT_NOUNS = ("param", "params", "parameter", "parameters")


def without_count_noun(text: str) -> str:
    """The text without a trailing 'parameters' (or 'params', …): '25,224,192 parameters' → '25,224,192'."""
    words = text.rstrip().rsplit(None, 1)
    return words[0] if len(words) == 2 and words[1].lower() in COUNT_NOUNS else text
BYTE_UNITS = {"B": 1, "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
               "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}
BYTE_WORDS = {"byte": 1, "bytes": 1}
BIT_UNITS = {"b", "kb", "Kb", "Mb", "Gb", "Tb", "bit", "bits", "Kib", "Mib", "Gib"}
FLOP_PREFIXES = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
                 "Z": 10**21}
FLOP_MULTIPLIERS = {**COUNT_SUFFIXES, "P": 10**15, "E": 10**18, "Z": 10**21}
# Durations in seconds; 'm' alone is left out (minutes or months?).
TIME_UNITS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60, "minute": 60,
               "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
               "d": 86400, "day": 86400, "days": 86400, "w": 604800, "wk": 604800, "week": 604800, "weeks": 604800}

UNIT_HINTS = {
    None: "give a plain number",
    "count": "give a count such as 175B, 1.05M or 174.6 bn (suffixes K, M, B, T; mn, bn)",
    "bytes": "give bytes, e.g. 512 MB or 1.25 GiB (KB, MB, GB: powers of 1000; KiB, MiB, GiB: of 1024)",
    "flops": "give FLOPs, e.g. 1.2e15, 1.2 PFLOPs, 31.5 ZFLOPs or 350 GFLOPs",
    "time": "give a duration, e.g. 4.8 days, 115.2 hours or 4.8 d (s, min, h, d, weeks)",
}


def flop_unit(word: str) -> int | None:
    """Multiplier of 'FLOPs', 'GFLOPs', 'PFLOP', …; None when word is not one."""
    for base in ("flops", "flop"):
        if word.lower().endswith(base):
            prefix = word[: len(word) - len(base)]
            return FLOP_PREFIXES.get(prefix)
    return None


def count_unit(word: str) -> int | None:
    return COUNT_SUFFIXES.get(word) or COUNT_WORDS.get(word.lower())


def byte_unit(word: str) -> int | None:
    return BYTE_UNITS.get(word) or BYTE_WORDS.get(word.lower())


def time_unit(word: str) -> int | None:
    return TIME_UNITS.get(word.lower())


def is_unit(word: str) -> bool:
    return (count_unit(word) is not None or time_unit(word) is not None or byte_unit(word) is not None or flop_unit(word) is not None
            or word in FLOP_MULTIPLIERS or word in BIT_UNITS or word.lower() in BIT_UNITS)


def unit_family(unit: str | None) -> str | None:
    if unit == "none":
        return None
    if unit not in UNIT_FAMILIES:
        raise ValueError(f"unit must be one of {UNIT_FAMILIES} (or 'none'), not {unit!r}")
    return unit
