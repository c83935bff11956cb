"""Interview mode content: free-answer questions in follow-up chains, with model answers.

An ML interviewer rarely asks one isolated question; they ask one, listen, and dig
deeper ("now add a causal mask", "what does that cost?"). A `Chain` is one such line
of questioning and its `Prompt`s are asked in order, each a follow-up of the one
before. The learner answers aloud, in their head or in notes, then compares with
`model_answer` and `key_points` and rates themselves; nothing here grades free text.

Prompt ids are stable ("<chain>.<step>", e.g. ``attention.mask``) so that review
schedules can refer to them. The chains themselves are data a teacher can edit without
reading Python: one TOML file per chain in `interviews/`, asked in file-name order. Each
file has `id`, `title`, `topic` (a bank topic) and `[[prompt]]` entries with `id`,
`question`, `model_answer` (may contain a ```python sketch), `key_points` and optionally
`pitfalls`. A malformed file fails with its name and line. Loading uses only the standard
library, so the CLI reads the bank instantly.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from quizforge.bank.template import TOPICS as _BANK_TOPICS   # light: no torch or sympy behind it
from quizforge.datafiles import Entry, load
from quizforge.errors import InputError

__all__ = ["Prompt", "Chain", "CHAINS", "TOPICS", "chain", "prompt", "all_prompts", "load_chain", "load_chains"]

TOPICS: tuple[str, ...] = tuple(_BANK_TOPICS)   # chains are filed under the bank's topics


@dataclass(frozen=True)
class Prompt:
    """One interviewer question with what a strong answer contains."""

    id: str  # "<chain>.<step>", e.g. "attention.mask"; lowercase [a-z0-9_.]
    question: str  # what the interviewer asks (Markdown, Unicode math, no LaTeX)
    model_answer: str  # a complete, correct answer; may contain a ```python sketch
    key_points: tuple[str, ...]  # 3-5 short points to check an answer against
    pitfalls: tuple[str, ...] = ()  # common wrong answers interviewers hear


@dataclass(frozen=True)
class Chain:
    """A line of questioning: prompts asked in order, each following up the last."""

    id: str
    title: str
    topic: str  # one of TOPICS
    prompts: tuple[Prompt, ...]


CHAIN_DIR = Path(__file__).parent / "interviews"
_CHAIN_ID = re.compile(r"[a-z][a-z0-9_]*")
_PROMPT_FIELDS = {"id", "question", "model_answer", "key_points", "pitfalls"}


def _prompt(entry: Entry, chain_id: str) -> Prompt:
    entry.only(_PROMPT_FIELDS)
    pid = entry.text_field("id")
    step = pid.split(".", 1)[1] if pid.startswith(chain_id + ".") else ""
    if not _CHAIN_ID.fullmatch(step):
        raise entry.fail(f"prompt id {pid!r} must be {chain_id}.<step> (lowercase letters, digits, _)", "id")
    return Prompt(pid, entry.text_field("question"), entry.text_field("model_answer"),
                  entry.text_list("key_points", minimum=1), entry.text_list("pitfalls"))


def load_chain(path: Path) -> Chain:
    """One chain file, checked against the schema; ContentError naming file and line otherwise."""
    top = load(path)
    top.only({"id", "title", "topic", "prompt"})
    chain_id = top.text_field("id")
    if not _CHAIN_ID.fullmatch(chain_id):
        raise top.fail(f"chain id {chain_id!r} must be lowercase letters, digits and _", "id")
    topic = top.text_field("topic")
    if topic not in TOPICS:
        raise top.fail(f"unknown topic {topic!r}; topics: {', '.join(TOPICS)}", "topic")
    entries = top.entries("prompt")
    prompts = tuple(_prompt(e, chain_id) for e in entries)
    seen: set[str] = set()
    for entry, p in zip(entries, prompts):
        if p.id in seen:
            raise entry.fail(f"prompt id {p.id!r} appears twice", "id")
        seen.add(p.id)
    return Chain(chain_id, top.text_field("title"), topic, prompts)


def load_chains(directory: Path = CHAIN_DIR) -> tuple[Chain, ...]:
    """Every chain file of `directory`, in file-name order; chain ids must be unique."""
    chains: list[Chain] = []
    for path in sorted(directory.glob("*.toml")):
        c = load_chain(path)
        if any(c.id == other.id for other in chains):
            raise load(path).fail(f"chain id {c.id!r} is used by another file too", "id")
        chains.append(c)
    return tuple(chains)


CHAINS: tuple[Chain, ...] = load_chains()

_BY_CHAIN = {c.id: c for c in CHAINS}
_BY_PROMPT = {p.id: p for c in CHAINS for p in c.prompts}


def chain(chain_id: str) -> Chain:
    """The chain with this id; InputError naming the valid ids otherwise."""
    try:
        return _BY_CHAIN[chain_id]
    except KeyError:
        raise InputError(f"unknown interview chain {chain_id!r}; choose one of {', '.join(_BY_CHAIN)}") from None


def prompt(prompt_id: str) -> Prompt:
    """The prompt with this id ("<chain>.<step>"); InputError naming the valid ids otherwise."""
    try:
        return _BY_PROMPT[prompt_id]
    except KeyError:
        pass
    chain_id = prompt_id.split(".", 1)[0] if isinstance(prompt_id, str) else ""
    if chain_id in _BY_CHAIN:
        valid = ", ".join(p.id for p in _BY_CHAIN[chain_id].prompts)
        raise InputError(f"unknown interview prompt {prompt_id!r}; chain {chain_id!r} has {valid}")
    raise InputError(
        f"unknown interview prompt {prompt_id!r}; ids are <chain>.<step> (e.g. attention.mask) "
        f"with chain one of {', '.join(_BY_CHAIN)}"
    )


def all_prompts() -> list[Prompt]:
    """Every prompt, chain by chain, in asking order."""
    return [p for c in CHAINS for p in c.prompts]
