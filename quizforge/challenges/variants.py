"""A challenge's planted bugs and other correct styles: `exercises/<id>/meta/variants/`.

Each variant is one of two files, named for it (`bug_*` a planted bug, `ok_*` another correct style):

    <name>.py      a whole program, for a style written from scratch
    <name>.patch   the reference solution (solutions/<id>.py) with a small change, as a unified
                   diff whose headers are `--- solutions/<id>.py` and `+++ <name>.py`; any text
                   before the first `---` is a comment. What a reader sees is the bug itself.

A patch applies strictly: each hunk must match the solution exactly at the lines it names (no
offset, no fuzz), or `apply_patch` refuses it naming the file and the hunk. A patch gone stale when
the solution changes fails loudly instead of planting something else. Source checkout only: the
wheel carries neither the variants nor solutions/.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path

from quizforge.datafiles import ContentError

KINDS = ("bug", "ok")
SUFFIXES = (".py", ".patch")
_HUNK = re.compile(r"@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class Variant:
    challenge_id: str
    name: str      # bug_global_max: its file's name less .py or .patch
    source: Path   # meta/variants/<name>.py or <name>.patch
    text: str      # the program: the .py, or the solution with the patch applied

    @property
    def kind(self) -> str:
        return self.name.split("_", 1)[0]

    def write_to(self, folder: Path) -> Path:
        """The program as `folder/<name>.py`, for what needs a file on disk; its path."""
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{self.name}.py"
        path.write_text(self.text, encoding="utf-8")
        return path


def variant_files(variants: Path, kind: str) -> dict[str, Path]:
    """name -> its file (.py or .patch) among `variants`' files of `kind` ("bug" or "ok")."""
    found: dict[str, Path] = {}
    for path in sorted(variants.glob(f"{kind}_*")):
        if path.suffix in SUFFIXES and path.is_file():
            if path.stem in found:
                raise ContentError(f"{path}: {path.stem} is both {found[path.stem].name} and {path.name}: keep one")
            found[path.stem] = path
    return found


def read_variant(challenge_id: str, path: Path, solution: Path) -> Variant:
    """The variant in `path`; a .patch is applied to `solution` (solutions/<id>.py)."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".patch":
        if not solution.is_file():
            raise ContentError(f"{path}: a patch against solutions/{challenge_id}.py, which is not at {solution}")
        text = apply_patch(solution.read_text(encoding="utf-8"), text, path,
                           f"solutions/{challenge_id}.py", f"{path.stem}.py")
    return Variant(challenge_id, path.stem, path, text)


def make_patch(original: str, changed: str, old_name: str, new_name: str, comment: str = "") -> str:
    """The unified diff that `apply_patch` turns `original` into `changed` with (both end in a newline)."""
    if not original.endswith("\n") or not changed.endswith("\n"):
        raise ValueError("both texts must end with a newline")
    diff = "".join(difflib.unified_diff(original.splitlines(keepends=True), changed.splitlines(keepends=True),
                                        old_name, new_name, n=2))
    return "".join(f"# {line}\n" if line else "#\n" for line in comment.splitlines()) + diff


def apply_patch(original: str, patch: str, where: Path | str, old_name: str, new_name: str) -> str:
    """`original` changed by the unified diff `patch` (from `where`, for the errors), whose headers must
    name `old_name` and `new_name`. Refuses, naming the hunk, any hunk that does not match exactly."""
    def refuse(message: str) -> ContentError:
        return ContentError(f"{where}: {message}")

    lines = patch.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.startswith("--- ")), None)
    if start is None or start + 1 >= len(lines) or not lines[start + 1].startswith("+++ "):
        raise refuse("not a unified diff: no `--- ` and `+++ ` header lines")
    for line, name in ((lines[start], old_name), (lines[start + 1], new_name)):
        if line[4:].split("\t")[0].rstrip("\n") != name:
            raise refuse(f"the header {line.rstrip()!r} should name {name}")
    source = original.splitlines(keepends=True)
    out: list[str] = []
    done = 0  # lines of `source` consumed
    i, number = start + 2, 0
    while i < len(lines):
        header = _HUNK.match(lines[i])
        if not header:
            raise refuse(f"line {i + 1}: expected a hunk header `@@ -a,b +c,d @@`, found {lines[i].rstrip()!r}")
        number += 1
        at, old_count = int(header[1]), int(header[2] if header[2] is not None else 1)
        new_count = int(header[4] if header[4] is not None else 1)
        name = f"hunk {number} ({header[0]})"
        first = at - 1 if old_count else at  # a hunk that only adds lines names the line before them
        if first < done:
            raise refuse(f"{name} starts before the end of the hunk above it")
        out += source[done:first]
        done, old, new = first, 0, 0
        i += 1
        while i < len(lines) and (old < old_count or new < new_count):
            line = " \n" if lines[i] == "\n" else lines[i]  # a blank context line an editor trimmed
            mark, body = line[:1], line[1:]
            if i + 1 < len(lines) and lines[i + 1].startswith("\\"):  # "\ No newline at end of file"
                body, i = body.rstrip("\n"), i + 1
            if mark in (" ", "-"):
                have = source[done] if done < len(source) else None
                if have != body:
                    raise refuse(f"{name} does not match {old_name}: its line {done + 1} is "
                                 f"{have!r}, the patch expects {body!r}")
                done, old = done + 1, old + 1
                if mark == " ":
                    out.append(body)
            if mark in (" ", "+"):
                new += 1
                if mark == "+":
                    out.append(body)
            if mark not in (" ", "-", "+"):
                raise refuse(f"{name}: line {i + 1} of the patch is not context, `-` or `+`: {line.rstrip()!r}")
            i += 1
        if (old, new) != (old_count, new_count):
            raise refuse(f"{name} has {old} old and {new} new lines; its header says {old_count} and {new_count}")
    return "".join(out + source[done:])
