"""Per-student PDFs after the exam: answer keys on request (`quiz set keys`) and return
sheets (`quiz set grade`), typeset from the set folder that `quiz set make` wrote.

A return sheet is a student's key with what they wrote above each question's key: their
answer (or what was received and why it was not graded), its marks and why, then the key
and accepted range, the worked solution and why each option is right or wrong.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from quizforge.errors import InputError
from quizforge.problemsets.marking import marks_text, mistake_sentence


def set_layout(folder: Path):
    """(spec, slots, students) of a set folder, as printed: STUDENTS maps each roll number to
    its Student and its question IDs, in roll order."""
    from quizforge.problemsets.roster import Student
    from quizforge.problemsets.spec import SetSpec
    from quizforge.problemsets.variants import Slot

    try:
        record = json.loads((folder / "set.json").read_text(encoding="utf-8"))
        spec = SetSpec(record["title"], record["instructions"], record["duration"], record["seed"], ())
        slots = [Slot(s["number"], s["section"], s["template"]) for s in record["slots"]]
        students = {s["id"]: (Student(s["id"], s.get("name", "")), s["questions"]) for s in record["students"]}
    except FileNotFoundError:
        raise InputError(f"{folder}: no set.json here; point at a folder made by `quiz set make`") from None
    except KeyError as exc:
        raise InputError(f"{folder}/set.json has no {exc.args[0]!r} (an older quizforge made it): make the set "
                         "again to typeset from it, or grade with --no-pdf") from None
    except (OSError, ValueError, TypeError):
        raise InputError(f"{folder}/set.json is not one `quiz set make` wrote") from None
    return spec, slots, students


def printed_set(folder: Path):
    """(spec, slots, papers) of a set folder, each paper's questions regenerated from its IDs."""
    from quizforge.bank.registry import question as regenerate
    from quizforge.problemsets.variants import Paper

    spec, slots, students = set_layout(folder)
    cache: dict = {}
    papers = [Paper(student, tuple(cache.get(q) or cache.setdefault(q, regenerate(q)) for q in ids))
              for student, ids in students.values()]
    return spec, slots, papers


def chosen(papers: list, ids: list[str]) -> list:
    """The papers of the roll numbers IDS (whatever their case), in roll order; all for none."""
    if not ids:
        return papers
    by_folded = {p.student.id.casefold(): p for p in papers}
    unknown = [i for i in ids if i.strip().casefold() not in by_folded]
    if unknown:
        raise InputError(f"no student {unknown[0]!r} in this set ({len(papers)} students, "
                         f"from {papers[0].student.id} to {papers[-1].student.id})")
    wanted = {i.strip().casefold() for i in ids}
    return [p for p in papers if p.student.id.casefold() in wanted]


def typeset_keys(spec, slots, papers: list, out: Path, progress: Callable[[int, int], None] | None = None):
    """OUT/<id>.pdf, the answer key of each paper, typeset in the typst helpers;
    PROGRESS(done, total) counts the students typeset."""
    from quizforge.problemsets import typeset

    out.mkdir(parents=True, exist_ok=True)
    source = lambda chunk, plain: typeset.class_source(spec, slots, chunk, "key", plain)  # noqa: E731
    with typeset.Typesetting(out) as typesetting:
        for share in typeset.Typesetting.shares(papers):
            typesetting.add(None, share, out, source)
        typesetting.finish(len(papers), progress)


def write_keys(folder: Path, ids: list[str], out: Path | None = None,
               progress: Callable[[int, int], None] | None = None) -> dict:
    """The answer keys of IDS (everyone when none) as PDF: OUT (default FOLDER/keys)/<id>.pdf."""
    spec, slots, papers = printed_set(folder)
    wanted = chosen(papers, ids)
    out = out or folder / "keys"
    typeset_keys(spec, slots, wanted, out, progress)
    return {"keys": len(wanted), "out": str(out)}


def returned_answers(questions: list, verdicts: dict, unread: dict, dropped: set, notes: dict) -> dict:
    """What a student's return sheet says above each question's key (typeset.Returned by number)."""
    from quizforge.problemsets.typeset import Returned

    said = {}
    for n, q in enumerate(questions, 1):
        v, note = verdicts.get(n), f" ({notes[n]})" if n in notes else ""
        received = f"Received {unread[n][0]!r}, not graded: {unread[n][1]}." if n in unread else ""
        if n in dropped:
            said[n] = Returned("", "0", "Dropped from the set: no marks either way." + note)
        elif v is None:
            said[n] = Returned(unread[n][0] if n in unread else "", "0", (received or "Not answered.") + note)
        else:
            said[n] = Returned(v.given, marks_text(v.marks, signed=round(v.marks, 2) != 0),
                               " ".join(filter(None, [v.feedback + mistake_sentence(v), received])) + note)
    return said
