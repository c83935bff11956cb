"""A problem set's spec: a small TOML file, checked field by field before anything is made.

    title = "Transformers quiz 1"
    instructions = "Answer all questions. A wrong MCQ costs a third of its marks."
    duration = 60            # minutes
    seed = 2026              # the set's seed: with the roster, it decides every variant

    [[sections]]
    name = "Attention by hand"
    topics = ["attention", "softmax"]       # or: templates = ["attention.weight", ...]
    count = 3
    kinds = ["NAT", "MCQ"]                   # optional: which kinds may be drawn
    marks = { 1 = 2, 2 = 1 }                 # optional: how many questions of 1 and of 2 marks
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from quizforge.errors import InputError
from quizforge.datafiles import toml_error_line

KINDS = ("MCQ", "MSQ", "NAT")


@dataclass(frozen=True)
class Section:
    name: str
    templates: tuple[str, ...]      # the candidate template ids, in bank order
    count: int
    marks: tuple[tuple[int, int], ...]  # (marks, how many), e.g. ((1, 2), (2, 1)); () = any mix


@dataclass(frozen=True)
class SetSpec:
    title: str
    instructions: str
    duration: int
    seed: int
    sections: tuple[Section, ...]


def _fail(path: Path, where: str, problem: str) -> InputError:
    return InputError(f"{path.name}: {where}: {problem}")


def read_toml(path: Path) -> dict:
    """An instructor's TOML file (a BOM allowed), or one InputError line naming what is wrong."""
    try:
        text = path.read_text(encoding="utf-8-sig")
        return tomllib.loads(text)
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path.name}:{toml_error_line(exc, text)}: not valid TOML ({exc})") from None


def load_spec(path: Path) -> SetSpec:
    from quizforge.bank.registry import all_templates
    from quizforge.bank.template import TOPICS

    data = read_toml(path)
    known = {"title", "instructions", "duration", "seed", "sections"}
    extra = sorted(set(data) - known)
    if extra:
        raise _fail(path, "top level", f"unknown field {extra[0]!r} (known: {', '.join(sorted(known))})")
    title, instructions = data.get("title"), data.get("instructions", "")
    if not isinstance(title, str) or not title.strip():
        raise _fail(path, "title", "give the set a title")
    if not isinstance(instructions, str):
        raise _fail(path, "instructions", "must be text")
    duration, seed = data.get("duration", 60), data.get("seed", 0)
    if type(duration) is not int or not 1 <= duration <= 600:
        raise _fail(path, "duration", "must be a whole number of minutes from 1 to 600")
    if type(seed) is not int or not 0 <= seed < 2**63:
        raise _fail(path, "seed", "must be a non-negative whole number")
    raw = data.get("sections")
    if not isinstance(raw, list) or not raw or not all(isinstance(s, dict) for s in raw):
        raise _fail(path, "sections", "add at least one [[sections]] table")
    bank = all_templates()
    by_id = {t.id: t for t in bank}
    sections = []
    for n, section in enumerate(raw, 1):
        where = f"section {n}"
        extra = sorted(set(section) - {"name", "topics", "templates", "count", "kinds", "marks"})
        if extra:
            raise _fail(path, where, f"unknown field {extra[0]!r}")
        name = section.get("name", f"Section {n}")
        if not isinstance(name, str) or not name.strip():
            raise _fail(path, where, "name must be text")
        where = f"section {name!r}"
        topics, templates = section.get("topics", []), section.get("templates", [])
        if not isinstance(topics, list) or not isinstance(templates, list) or not (topics or templates):
            raise _fail(path, where, "list its topics or its templates")
        for topic in topics:
            if topic not in TOPICS:
                raise _fail(path, where, f"unknown topic {topic!r} (topics: {', '.join(TOPICS)})")
        for template in templates:
            if template not in by_id:
                raise _fail(path, where, f"unknown template {template!r}; run `quiz bank list`")
        kinds = section.get("kinds", list(KINDS))
        if not isinstance(kinds, list) or not kinds or any(k not in KINDS for k in kinds):
            raise _fail(path, where, f"kinds must be a list of {', '.join(KINDS)}")
        count = section.get("count")
        if type(count) is not int or not 1 <= count <= 100:
            raise _fail(path, where, "count must be a whole number from 1 to 100")
        marks = _marks(path, where, section.get("marks"), count)
        # A topic never hands a slot a fixed-fact template (too few questions for a class); naming one does.
        candidates = tuple(t.id for t in bank if (t.id in templates or (t.topic in topics and not t.fixed_fact))
                           and t.kind in kinds)
        for mark, how_many in marks or ((None, count),):
            fitting = [c for c in candidates if mark is None or by_id[c].marks == mark]
            if how_many > len(fitting):
                what = "questions" if mark is None else f"{mark}-mark questions"
                raise _fail(path, where, f"asks for {how_many} {what} but only {len(fitting)} templates fit its "
                                         "topics and kinds (each question of a paper is a different template)")
        sections.append(Section(name.strip(), candidates, count, marks))
    return SetSpec(title.strip(), instructions.strip(), duration, seed, tuple(sections))


def _marks(path: Path, where: str, value, count: int) -> tuple[tuple[int, int], ...]:
    if value is None:
        return ()
    if type(value) is int:
        value = {str(value): count}
    if not isinstance(value, dict):
        raise _fail(path, where, "marks must be 1, 2, or a table like { 1 = 2, 2 = 1 }")
    mix = []
    for key, how_many in value.items():
        if key not in ("1", "2"):
            raise _fail(path, where, f"marks {key!r}: GATE questions carry 1 or 2 marks")
        if type(how_many) is not int or how_many < 0:
            raise _fail(path, where, f"marks {key}: the number of questions must be a whole number")
        if how_many:
            mix.append((int(key), how_many))
    if sum(n for _, n in mix) != count:
        raise _fail(path, where, f"the marks mix adds up to {sum(n for _, n in mix)} questions, not count = {count}")
    return tuple(sorted(mix))
