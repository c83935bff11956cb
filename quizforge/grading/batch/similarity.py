"""Similarity hints within a batch: pairs of submissions that look copied, and where.

Each submission becomes a sequence of normalised tokens (every name is ID, every literal
LIT; comments, docstrings and layout are dropped), so renaming variables or reformatting
changes nothing. Hashes of its k-grams are winnowed (the minimum in every window of w
hashes is kept, as MOSS does), which keeps a fingerprint set small while guaranteeing that
any shared run of at least w + k - 1 tokens is found. Fingerprints of the starter file
every student began from are ignored, and so are submissions too short to tell anything. A pair's score is the share of the smaller
submission's fingerprints that the other one has too; the matching regions are the line
ranges those shared fingerprints cover in each file.

These are hints for a person to read, never a verdict: short solutions to a small
exercise can agree by themselves.
"""

from __future__ import annotations

import hashlib
import io
import json
import keyword
import tokenize
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from quizforge.challenges import load_challenge
from quizforge.errors import InputError
from quizforge.grading.batch.gradebook import write_atomically
from quizforge.grading.intake.text_safety import markdown_text

K = 12            # tokens per k-gram
WINDOW = 8        # k-gram hashes per winnowing window
THRESHOLD = 0.6   # a pair is reported from this score up
MIN_TOKENS = 50   # a submission shorter than this (a stub, a one-liner) proves nothing by matching
_SKIP = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
         tokenize.ENCODING, tokenize.ENDMARKER}


@dataclass(frozen=True)
class Fingerprints:
    spans: dict[int, tuple[int, int]]  # fingerprint -> (first line, last line) of its first occurrence
    size: int                          # normalised tokens


def tokens(source: str) -> list[tuple[str, int, int]]:
    """(normalised token, first line, last line), or [] when the source does not tokenize."""
    out: list[tuple[str, int, int]] = []
    previous = tokenize.INDENT
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in _SKIP:
                previous = tok.type if tok.type != tokenize.COMMENT else previous
                continue
            if tok.type == tokenize.STRING and previous in (tokenize.INDENT, tokenize.NEWLINE, tokenize.DEDENT):
                previous = tok.type  # a docstring or a bare string statement
                continue
            if tok.type == tokenize.NAME:
                text = tok.string if keyword.iskeyword(tok.string) else "ID"
            elif tok.type in (tokenize.NUMBER, tokenize.STRING):
                text = "LIT"
            else:
                text = tok.string
            out.append((text, tok.start[0], tok.end[0]))
            previous = tok.type
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return out
    return out


def _hash(gram: tuple[str, ...]) -> int:
    return int.from_bytes(hashlib.blake2b(" ".join(gram).encode(), digest_size=8).digest(), "big")


def fingerprint(source: str, k: int = K, window: int = WINDOW) -> Fingerprints:
    toks = tokens(source)
    grams = [(_hash(tuple(t for t, _, _ in toks[i:i + k])), toks[i][1], toks[i + k - 1][2])
             for i in range(len(toks) - k + 1)]
    chosen: dict[int, tuple[int, int]] = {}
    for start in range(max(1, len(grams) - window + 1)):
        block = grams[start:start + window]
        if not block:
            break
        # The rightmost minimum, as in the winnowing paper, so that runs of equal hashes keep one.
        best = min(range(len(block)), key=lambda i: (block[i][0], -i))
        value, first, last = block[best]
        chosen.setdefault(value, (first, last))
    return Fingerprints(chosen, len(toks))


def _regions(lines: list[tuple[int, int]]) -> list[list[int]]:
    """Overlapping or touching line spans merged into [first, last] regions."""
    merged: list[list[int]] = []
    for first, last in sorted(lines):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return merged


def compare(a: Fingerprints, b: Fingerprints, ignore: set[int] = frozenset()) -> dict:
    mine, theirs = set(a.spans) - ignore, set(b.spans) - ignore
    shared = mine & theirs
    smaller = min(len(mine), len(theirs))
    return {"score": round(len(shared) / smaller, 3) if smaller else 0.0,
            "shared_fingerprints": len(shared),
            "regions_a": _regions([a.spans[h] for h in shared]),
            "regions_b": _regions([b.spans[h] for h in shared])}


def similar_pairs(sources: dict[str, str], starter: str = "", threshold: float = THRESHOLD) -> list[dict]:
    """Every pair of students at or above `threshold`, most similar first."""
    prints = {student: fp for student, fp in ((s, fingerprint(t)) for s, t in sources.items())
              if fp.size >= MIN_TOKENS}
    ignore = set(fingerprint(starter).spans) if starter else set()
    pairs = []
    for a, b in combinations(sorted(prints), 2):
        found = compare(prints[a], prints[b], ignore)
        if found["score"] >= threshold and found["shared_fingerprints"] > 0:
            pairs.append({"a": a, "b": b, **found})
    return sorted(pairs, key=lambda p: (-p["score"], p["a"], p["b"]))


def markdown(pairs: list[dict], threshold: float = THRESHOLD) -> str:
    lines = ["# Similarity hints", "",
             f"Pairs whose normalised code shares at least {threshold:.0%} of the smaller one's fingerprints "
             "(starter code left out). A hint to read, not a verdict.", ""]
    if not pairs:
        lines.append("No pair reached the threshold.")
    else:
        lines += ["| a | b | score | lines in a | lines in b |", "|---|---|---:|---|---|"]
        for p in pairs:
            ra = ", ".join(f"{x}-{y}" for x, y in p["regions_a"])
            rb = ", ".join(f"{x}-{y}" for x, y in p["regions_b"])
            lines.append(f"| {markdown_text(p['a'])} | {markdown_text(p['b'])} | {p['score']:.2f} | {ra} | {rb} |")
    return "\n".join(lines) + "\n"


def starter_source(challenge_id: str) -> str:
    """The starter every student was given, or '' when there is none to subtract."""
    try:
        return (load_challenge(challenge_id).folder / "starter.py").read_text(encoding="utf-8")
    except (OSError, InputError):
        return ""


def write_similarity(out: Path, texts: dict[str, str], challenge) -> list[dict]:
    """Compare the submissions' texts (as the batch read them once: no file is opened here)."""
    pairs = similar_pairs(texts, starter_source(challenge.id))
    write_atomically(out / "similarity.json", json.dumps(pairs, indent=2) + "\n")
    write_atomically(out / "similarity.md", markdown(pairs))
    return pairs
