"""Loading the coding challenges: one folder each, `exercises/<id>/`.

    exercises/<id>/README.md, starter.py, test_public.py   what `quiz challenges start` copies
    exercises/<id>/meta/challenge.toml                     the metadata below
    exercises/<id>/meta/test_hidden.py                     the hidden suite
    exercises/<id>/meta/variants/bug_*, ok_*                planted bugs and other correct styles, each
                                                           a whole <name>.py or a <name>.patch against
                                                           solutions/<id>.py (see .variants); source
                                                           checkout only: not in the wheel

The hidden suite takes a `submission` fixture (`quizforge.challenges.submission.Submission`)
and never imports student code. In a source checkout the folders are the checkout's
`exercises/`; an installed wheel carries them (less the variants) as `quizforge/exercises/`.

challenge.toml:

    title = "Numerically stable softmax"
    summary = "a numerically stable softmax ..."  # its line in the README's list of challenges
    names = ["softmax"]                 # what the submission must define
    forbidden = ["torch.softmax", ...]  # dotted APIs the submission may not use
    imports = ["re", "heapq"]           # modules it may import besides those every challenge allows
                                        # (only those the capability compile knows to opt into)
    call_timeout = 10.0                 # seconds per request to the worker
    total_timeout = 120.0               # seconds for the whole suite
    broken_starter = "..."              # only when the starter runs but is wrong on purpose:
                                        # words its failure messages must contain
    [weights]                           # points per test function; others get `default`
    default = 1
    test_masked_rows = 2
    [diagnoses]                         # each planted bug (meta/variants/bug_*.py or .patch): words its
                                        # failure messages contain
    bug_no_max_shift = "overflows"

A file that breaks this schema is a ContentError naming its path and line.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from quizforge.challenges.variants import Variant, read_variant, variant_files
from quizforge.datafiles import ContentError, Entry, load
from quizforge.errors import InputError

PACKAGE = Path(__file__).resolve().parent.parent
# What a challenge folder ships in the wheel and in the exported autograders: what `quiz challenges
# start` copies (the first three) and what `quiz grade` runs. Never meta/variants/ (nor solutions/).
SHIPPED = ("README.md", "starter.py", "test_public.py", "meta/challenge.toml", "meta/test_hidden.py")
VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
FIELDS = {"title", "summary", "names", "forbidden", "imports", "call_timeout", "total_timeout", "visibility",
          "broken_starter", "weights", "diagnoses"}


@dataclass(frozen=True)
class Challenge:
    id: str
    title: str
    folder: Path                 # exercises/<id>/
    summary: str                 # one line, Markdown: the README's list of challenges
    names: tuple[str, ...]
    forbidden: tuple[str, ...] = ()
    imports: tuple[str, ...] = ()  # modules the submission may import besides every challenge's
    call_timeout: float = 10.0
    total_timeout: float = 120.0
    weights: dict[str, float] = field(default_factory=dict)
    # Gradescope visibility of the hidden tests' results: hidden, after_due_date, after_published, visible.
    visibility: str = "after_due_date"
    # Planted bug (variant name: its file less .py or .patch) -> words its failure messages must contain.
    diagnoses: dict[str, str] = field(default_factory=dict)
    broken_starter: str | None = None

    def weight(self, test_name: str) -> float:
        """Points for a test; each case of a parametrized test gets its function's weight."""
        base = test_name.split("[", 1)[0]
        return float(self.weights.get(base, self.weights.get("default", 1)))

    @property
    def meta(self) -> Path:
        return self.folder / "meta"

    @property
    def suite_files(self) -> list[Path]:
        return [self.meta / "test_hidden.py"]

    @property
    def solution(self) -> Path:
        """solutions/<id>.py beside exercises/: the reference solution, in a source checkout only."""
        return self.folder.parent.parent / "solutions" / f"{self.id}.py"

    def variants(self, kind: str) -> list[Variant]:
        """The planted bugs (kind "bug") or other correct styles ("ok"), by name, each with its
        program's text (a .patch applied to the solution); none in an installed wheel."""
        return [read_variant(self.id, path, self.solution)
                for path in variant_files(self.meta / "variants", kind).values()]


def exercises_root(package: Path = PACKAGE) -> Path:
    """The folder of challenge folders: the wheel's copy inside the package, else the source
    checkout's `exercises/` beside it. The only place that knows where it is."""
    packaged, checkout = package / "exercises", package.parent / "exercises"
    if packaged.is_dir():
        return packaged
    if checkout.is_dir() and (package.parent / "pyproject.toml").is_file():
        return checkout
    raise InputError(f"the exercises folder is not at {packaged}; reinstall quizforge")


def challenge_ids() -> list[str]:
    return sorted(p.parent.parent.name for p in exercises_root().glob("*/meta/challenge.toml"))


def load_challenge(challenge_id: str) -> Challenge:
    root = exercises_root()
    folder = root / challenge_id
    if "/" in challenge_id or challenge_id.startswith(".") or not (folder / "meta" / "challenge.toml").is_file():
        from quizforge.suggest import did_you_mean

        known = ", ".join(challenge_ids()) or "none"
        hint = did_you_mean(challenge_id, challenge_ids())
        raise InputError(f"unknown challenge {challenge_id!r}{hint}; challenges: {known}")
    return read_challenge(folder)


def _number(entry: Entry, key: str, default: float) -> float:
    value = entry.data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise entry.fail(f"{key!r} must be a positive number of seconds", key)
    return float(value)


def _weights(entry: Entry) -> dict[str, float]:
    for key, value in entry.data.items():
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise entry.fail(f"the weight of {key!r} must be a number of points, 0 or more", key)
    return {key: float(value) for key, value in entry.data.items()}


def _diagnoses(entry: Entry, meta: Path) -> dict[str, str]:
    for key, value in entry.data.items():
        if not key.startswith("bug_"):
            raise entry.fail(f"{key!r} is not a planted bug: diagnoses are for meta/variants/bug_*.py or "
                             "bug_*.patch", key)
        if not isinstance(value, str) or not value.strip():
            raise entry.fail(f"the diagnosis of {key!r} must be a non-empty string", key)
    variants = meta / "variants"
    if variants.is_dir():  # a source checkout: every bug has its diagnosis and every diagnosis its bug
        bugs = variant_files(variants, "bug")
        for key in entry.data:
            if key not in bugs:
                raise entry.fail(f"{key!r} has no file meta/variants/{key}.py (or {key}.patch)", key)
        undiagnosed = [path for name, path in bugs.items() if name not in entry.data]
        if undiagnosed:
            raise entry.fail(f"no diagnosis for meta/variants/{undiagnosed[0].name}: add `{undiagnosed[0].stem} = "
                             "\"words its failure message contains\"`")
    return {key: value.strip() for key, value in entry.data.items()}


def read_challenge(folder: Path) -> Challenge:
    """The challenge in `folder` (exercises/<id>/), its challenge.toml checked against the schema."""
    meta = folder / "meta"
    top = load(meta / "challenge.toml")
    top.only(FIELDS)
    visibility = top.data.get("visibility", "after_due_date")
    if visibility not in VISIBILITIES:
        raise top.fail(f"'visibility' must be one of {', '.join(VISIBILITIES)}", "visibility")
    challenge = Challenge(
        id=folder.name,
        title=top.text_field("title"),
        folder=folder,
        summary=top.text_field("summary"),
        names=top.text_list("names", minimum=1),
        forbidden=top.text_list("forbidden"),
        imports=top.text_list("imports"),
        call_timeout=_number(top, "call_timeout", 10.0),
        total_timeout=_number(top, "total_timeout", 120.0),
        weights=_weights(top.table("weights")),
        visibility=visibility,
        diagnoses=_diagnoses(top.table("diagnoses"), meta),
        broken_starter=top.text_field("broken_starter", optional=True) or None,
    )
    missing = [p for p in challenge.suite_files if not p.is_file()]
    if missing:
        raise ContentError(f"{missing[0]}: missing: every challenge has its hidden suite there")
    return challenge
