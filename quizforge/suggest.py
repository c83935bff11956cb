"""'Did you mean …?' for names a learner types: presets, templates, topics, challenges."""

from __future__ import annotations

import difflib
from typing import Iterable


def _key(name: str) -> str:
    """Spelling that does not change what is meant: case, '-', '_' and spaces."""
    return "".join(ch for ch in name.lower() if ch not in "-_ ")


def close_names(typed: str, known: Iterable[str], n: int = 3) -> list[str]:
    """The known names closest to `typed`, best first: a match up to case and separators, then
    names that contain what was typed, then difflib's close spellings."""
    known = list(dict.fromkeys(known))
    key = _key(typed)
    if not key:
        return []
    by_key: dict[str, list[str]] = {}
    for name in known:
        by_key.setdefault(_key(name), []).append(name)
    if key in by_key:   # only the separators or case differ: that is surely what was meant
        return by_key[key][:n]
    found = [name for name in known if len(key) >= 3 and key in _key(name)]
    for close in difflib.get_close_matches(key, list(by_key), n=n, cutoff=0.75):
        found += [name for name in by_key[close] if name not in found]
    return found[:n]


def did_you_mean(typed: str, known: Iterable[str]) -> str:
    """' (did you mean llama-7b?)', or '' when nothing is close."""
    names = close_names(typed, known)
    if not names:
        return ""
    return f" (did you mean {' or '.join(names)}?)"
