"""Grading inside a Gradescope autograder container (see course_platforms.py for the zip).

    python3 -m quizforge.grading.exports.gradescope_autograder CHALLENGE_ID [--unsafe-no-sandbox]

Reads the student's file from ROOT/submission (hostile input: a link is refused and the
file is read once, without following links; see intake/class_folder.py) and writes ROOT/results/results.json, where
ROOT is /autograder, or $QUIZFORGE_AUTOGRADER_ROOT (for trying the autograder locally).
results.json is always written: when the sandbox cannot be built in the container, it
says so with a score of 0 rather than grading without isolation, unless the instructor
exported the autograder with --unsafe-no-sandbox (Gradescope's container is used once).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from quizforge.grading.intake.text_safety import visible_name

NAMED = ("submission.py", "starter.py")


def autograder_root() -> Path:
    return Path(os.environ.get("QUIZFORGE_AUTOGRADER_ROOT", "/autograder"))


def find_submission(folder: Path, challenge_id: str) -> tuple[str, ...] | str | None:
    """The student's file as path parts below `folder`: <challenge>.py, submission.py or
    starter.py, else the only .py file; None when there is none. The upload is hostile: a
    link anywhere in it (a file or a folder) is refused, as a message (str) saying so."""
    if not folder.is_dir():
        return None
    files: list[tuple[str, ...]] = []
    for where, dirs, names in os.walk(folder):  # never into a linked folder
        inside = Path(where).relative_to(folder).parts
        for name in sorted(dirs + names):
            if os.path.islink(os.path.join(where, name)):
                return f"{visible_name('/'.join((*inside, name)))} is a symbolic link: upload the file itself"
        dirs.sort()
        files += [(*inside, n) for n in sorted(names) if n.endswith(".py")]
    for name in (f"{challenge_id}.py", *NAMED):
        for parts in files:
            if parts[-1] == name:
                return parts
    return files[0] if len(files) == 1 else None
def failed_results(message: str) -> dict:
    return {"score": 0.0, "output": message, "stdout_visibility": "visible", "tests": []}


def run(challenge_id: str, unsafe: bool) -> dict:
    from quizforge.challenges import load_challenge
    from quizforge.errors import InputError
    from quizforge.grading.exports import results
    from quizforge.grading.grade import grade
    from quizforge.grading.intake.class_folder import Refused, read_submission_file
    from quizforge.grading.sandbox_host.sandbox import SandboxError, SandboxPolicy

    challenge = load_challenge(challenge_id)
    folder = autograder_root() / "submission"
    found = find_submission(folder, challenge.id)
    if found is None:
        return failed_results(f"No submission found: upload {challenge.id}.py (or one .py file).")
    if isinstance(found, str):
        return failed_results(f"Not graded: {found}.")
    try:
        source = read_submission_file(folder, found)
    except Refused as exc:
        return failed_results(f"Not graded: {exc}.")
    try:
        result = grade(folder.joinpath(*found), challenge, policy=SandboxPolicy(isolated=not unsafe), source=source)
    except SandboxError as exc:
        return failed_results(f"Not graded: {exc}. The course staff need to fix the autograder.")
    except InputError as exc:
        return failed_results(f"Not graded: {exc}")
    return results.gradescope(result, challenge.visibility)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python3 -m quizforge.grading.exports.gradescope_autograder CHALLENGE_ID [--unsafe-no-sandbox]",
              file=sys.stderr)
        return 2
    data = run(argv[0], "--unsafe-no-sandbox" in argv[1:])
    out = autograder_root() / "results" / "results.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
