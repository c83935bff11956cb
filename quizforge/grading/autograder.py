"""Grading inside a Gradescope autograder container (see exports.py for the zip).

    python3 -m quizforge.grading.autograder CHALLENGE_ID [--unsafe-no-sandbox]

Reads the student's file from ROOT/submission and writes ROOT/results/results.json, where
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

NAMED = ("submission.py", "starter.py")


def autograder_root() -> Path:
    return Path(os.environ.get("QUIZFORGE_AUTOGRADER_ROOT", "/autograder"))


def find_submission(folder: Path, challenge_id: str) -> Path | None:
    """The student's file: <challenge>.py, submission.py or starter.py, else the only .py file."""
    files = sorted(p for p in folder.rglob("*.py") if p.is_file()) if folder.is_dir() else []
    for name in (f"{challenge_id}.py", *NAMED):
        for path in files:
            if path.name == name:
                return path
    return files[0] if len(files) == 1 else None


def failed_results(message: str) -> dict:
    return {"score": 0.0, "output": message, "stdout_visibility": "visible", "tests": []}


def run(challenge_id: str, unsafe: bool) -> dict:
    from quizforge.challenges import load_challenge
    from quizforge.errors import InputError
    from quizforge.grading import results
    from quizforge.grading.grade import grade
    from quizforge.grading.sandbox import SandboxError, SandboxPolicy

    challenge = load_challenge(challenge_id)
    path = find_submission(autograder_root() / "submission", challenge.id)
    if path is None:
        return failed_results(f"No submission found: upload {challenge.id}.py (or one .py file).")
    try:
        result = grade(path, challenge, policy=SandboxPolicy(isolated=not unsafe))
    except SandboxError as exc:
        return failed_results(f"Not graded: {exc}. The course staff need to fix the autograder.")
    except InputError as exc:
        return failed_results(f"Not graded: {exc}")
    return results.gradescope(result, challenge.visibility)


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python3 -m quizforge.grading.autograder CHALLENGE_ID [--unsafe-no-sandbox]", file=sys.stderr)
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
