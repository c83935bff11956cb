"""Statement pools of the conceptual MCQ/MSQ templates, read from `bank/concepts/<name>.toml`.

A teacher edits the statements there: each `[[statement]]` has `true`, `text`, `why` and,
for a false one, an optional misconception `tag`. `{{name}}` in a text is replaced by the
value the template computes for the question (a width, a length); the template decides
which values exist, so an unknown name fails with the file and line. The template code,
which draws the numbers and the framing, stays in Python. Standard library only.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from quizforge.bank.question import Statement
from quizforge.datafiles import Entry, load

POOL_DIR = Path(__file__).parent / "concepts"
_FIELDS = {"true", "text", "why", "tag"}
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


@lru_cache(maxsize=None)
def load_pool(path: Path) -> tuple[tuple[Entry, bool, str, str, str], ...]:
    """Every statement of one pool file, schema-checked; ContentError naming file and line otherwise."""
    top = load(path)
    top.only({"statement"})
    pool = []
    for entry in top.entries("statement", minimum=4):
        entry.only(_FIELDS)
        true = entry.data.get("true")
        if not isinstance(true, bool):
            raise entry.fail("'true' must be true or false" if "true" in entry.data else "missing 'true'", "true")
        text, why = entry.text_field("text"), entry.text_field("why")
        if text.endswith("."):
            raise entry.fail("a statement's text ends without a full stop (the key joins options with commas)", "text")
        tag = entry.text_field("tag", optional=True)
        if true and tag:
            raise entry.fail("a true statement has no misconception tag", "tag")
        pool.append((entry, true, text, why, tag))
    if not any(p[1] for p in pool) or sum(not p[1] for p in pool) < 3:
        raise top.fail("a pool needs at least one true and three false statements")
    return tuple(pool)


def _fill(entry: Entry, key: str, text: str, values: dict[str, object]) -> str:
    def value(m: re.Match) -> str:
        if m.group(1) not in values:
            raise entry.fail(f"unknown placeholder {{{{{m.group(1)}}}}} in {key!r}; this template provides "
                             f"{', '.join(sorted(values)) or 'none'}", key)
        return str(values[m.group(1)])
    return _PLACEHOLDER.sub(value, text)


def statement_pool(name: str, **values: object) -> list[Statement]:
    """The statements of pool `name`, with this question's values filled in."""
    return [Statement(_fill(entry, "text", text, values), true, _fill(entry, "why", why, values), tag)
            for entry, true, text, why, tag in load_pool(POOL_DIR / f"{name}.toml")]


def pool_names() -> list[str]:
    return sorted(p.stem for p in POOL_DIR.glob("*.toml"))
