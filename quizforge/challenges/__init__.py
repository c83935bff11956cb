"""The coding challenges' hidden suites and metadata, one folder per challenge.

Each `quizforge/challenges/<id>/` holds `challenge.toml` and one or more
`test_*.py` files. The tests take a `submission` fixture
(`quizforge.grading.submission.Submission`) and never import student code.

challenge.toml:

    title = "Numerically stable softmax"
    names = ["softmax"]                 # what the submission must define
    forbidden = ["torch.softmax", ...]  # dotted APIs the submission may not use
    allowed_ops = ["aten::add", ...]    # the only ATen ops it may reach (measured: measure_ops.py)
    call_timeout = 10.0                 # seconds per request to the worker
    total_timeout = 120.0               # seconds for the whole suite
    [weights]                           # points per test function; others get `default`
    default = 1
    test_masked_rows = 2
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from quizforge.errors import InputError

ROOT = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Challenge:
    id: str
    title: str
    folder: Path
    names: tuple[str, ...]
    forbidden: tuple[str, ...] = ()
    # ATen overload packets the worker lets the submission reach; None: no allow-list (test-only challenges).
    allowed_ops: tuple[str, ...] | None = None
    call_timeout: float = 10.0
    total_timeout: float = 120.0
    weights: dict[str, float] = field(default_factory=dict)
    # Gradescope visibility of the hidden tests' results: hidden, after_due_date, after_published, visible.
    visibility: str = "after_due_date"

    def weight(self, test_name: str) -> float:
        """Points for a test; each case of a parametrized test gets its function's weight."""
        base = test_name.split("[", 1)[0]
        return float(self.weights.get(base, self.weights.get("default", 1)))

    @property
    def suite_files(self) -> list[Path]:
        return sorted(self.folder.glob("test_*.py"))


def challenge_ids() -> list[str]:
    return sorted(p.parent.name for p in ROOT.glob("*/challenge.toml"))


def load_challenge(challenge_id: str) -> Challenge:
    folder = ROOT / challenge_id
    meta_file = folder / "challenge.toml"
    if "/" in challenge_id or challenge_id.startswith(".") or not meta_file.is_file():
        from quizforge.suggest import did_you_mean

        known = ", ".join(challenge_ids()) or "none"
        hint = did_you_mean(challenge_id, challenge_ids())
        raise InputError(f"unknown challenge {challenge_id!r}{hint}; challenges: {known}")
    meta = tomllib.loads(meta_file.read_text(encoding="utf-8"))
    return Challenge(
        id=challenge_id,
        title=meta["title"],
        folder=folder,
        names=tuple(meta["names"]),
        forbidden=tuple(meta.get("forbidden", ())),
        allowed_ops=tuple(meta["allowed_ops"]) if "allowed_ops" in meta else None,
        call_timeout=float(meta.get("call_timeout", 10.0)),
        total_timeout=float(meta.get("total_timeout", 120.0)),
        weights={k: float(v) for k, v in meta.get("weights", {}).items()},
        visibility=str(meta.get("visibility", "after_due_date")),
    )


def exercises_folder() -> Path:
    """The public exercises: `quizforge/exercises`, a link to the checkout's `exercises/` in a
    source checkout and a copy of it in an installed wheel. The only place that knows where it is."""
    folder = Path(__file__).resolve().parent.parent / "exercises"
    if not folder.is_dir():
        raise InputError(f"the exercises folder is not at {folder}; reinstall quizforge")
    return folder
