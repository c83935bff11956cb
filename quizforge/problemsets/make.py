"""`make_set`: a spec and a roster in, a folder of papers, keys and LMS exports out.

Everything is written into a temporary folder next to the destination and renamed into
place at the end, so a bad spec or roster leaves nothing behind, and a re-run gives the
same bytes.

    OUT/papers/<id>.md/.pdf one paper per student (or variant), with a header for name and roll number
    OUT/keys/<id>.md        its answer key: each question's key, range, worked solution and ID
                            (`quiz set keys` typesets it as PDF; `quiz set grade` writes return sheets)
    OUT/all_papers.pdf      every paper in one file, to print double-sided: each padded to an even
                            number of pages by a page that says it is intentionally blank
    OUT/answer_book.pdf     the instructor's compact book: every student's keys and ranges in a table
    OUT/keys.csv, .json    every key in one table
    OUT/moodle.xml         Moodle XML, a category per question slot holding its variants
    OUT/quiz.gift          GIFT, the same categories
    OUT/qti21.zip          QTI 2.1: one assessmentTest, a section per slot picking one item
    OUT/canvas_qti12.zip   one Canvas quiz with a question group per slot (QTI 1.2)
    OUT/lms_report.md      how to set each quiz up, and what the formats cannot express
    OUT/set.json           what `quiz set grade` needs: the students and their question IDs
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

from quizforge.errors import InputError
from quizforge.problemsets import keys, lms, lmstext, papers, qti, typeset
from quizforge.problemsets.forked import POLL_SECONDS, Forked
from quizforge.problemsets.roster import Student, numbered_variants, read_roster
from quizforge.problemsets.spec import load_spec
from quizforge.problemsets.variants import paper, plan, variety


# The LMS exports, in the order they are written: file name -> its content from (spec, questions by slot).
LMS_FILES = {
    "moodle.xml": lambda spec, by_slot: lms.moodle_xml(spec.title, by_slot),
    "quiz.gift": lambda spec, by_slot: lms.gift(spec.title, by_slot),
    "qti21.zip": lambda spec, by_slot: qti.qti21_zip(spec.title, spec.duration, by_slot, spec.instructions),
    "canvas_qti12.zip": lambda spec, by_slot: qti.canvas_zip(spec.title, spec.duration, by_slot, spec.instructions),
    "lms_report.md": lambda spec, by_slot: lms.loss_report(spec.title, spec.duration, by_slot, spec.instructions),
}


class FolderNotEmpty(InputError):
    """The output folder already holds files (and replacing them was not asked for)."""


def write_lms_exports(spec, slots, made: list, folder: Path, tell: Callable[[int], None]) -> None:
    """FOLDER/<each of LMS_FILES> for the class MADE; TELL(n) as the n-th is written."""
    by_slot = lmstext.by_slot(slots, made)  # each distinct question rendered once, for every LMS
    for n, (name, write) in enumerate(LMS_FILES.items(), 1):
        content = write(spec, by_slot)
        (folder / name).write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
        tell(n)


def make_set(spec_path: Path, out: Path, *, roster: Path | None = None, variants: int | None = None,
             force: bool = False, pdf: bool = True,
             progress: Callable[[str, int, int | None], None] | None = None) -> dict:
    """Make the set; returns a summary (students, questions, files, the students whose names no
    bundled font sets, how the roster file was read). `progress(step, done, total)` is told each
    paper drawn, each written, each LMS export, and the students typeset as each helper finishes."""
    report = progress or (lambda step, done, total: None)
    if (roster is None) == (variants is None):
        raise InputError("give either a roster or a number of variants")
    spec = load_spec(spec_path)
    students: list[Student]
    students, roster_read_as = read_roster(roster) if roster is not None else (numbered_variants(variants), None)
    if out.exists() and (not out.is_dir() or any(out.iterdir())) and not force:
        raise FolderNotEmpty(f"{out} exists and is not empty")
    slots = plan(spec)
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    typesetting = lms_writer = None
    try:
        (staging / "papers").mkdir()
        (staging / "keys").mkdir()
        # typst works in helper processes, each queued as soon as its share of the class exists
        typesetting = typeset.Typesetting(staging) if pdf else None
        paper_source = lambda chunk, plain: typeset.class_source(spec, slots, chunk, "paper", plain)  # noqa: E731
        made = []
        report("drawing the papers", 0, len(students))
        for share in typeset.Typesetting.shares(students):
            for student in share:
                made.append(paper(spec, slots, student))
                report("drawing the papers", len(made), len(students))
                if typesetting is not None and len(made) % 10 == 0:
                    typesetting.poll()   # a share typeset: start the next
            if typesetting is not None:
                typesetting.add("all_papers.pdf", made[-len(share):], staging / "papers", paper_source)
        if typesetting is not None:
            typesetting.add_whole(staging / "answer_book.pdf", lambda plain: typeset.answer_book_source(spec, made))
        exports = len(LMS_FILES)
        # The LMS exports in a forked copy of this process, on a core of their own, while this
        # one writes the rest and the typst helpers share what is left.
        lms_writer = Forked(lambda tell: write_lms_exports(spec, slots, made, staging, tell),
                            lambda n: report("writing the LMS exports", n, exports))
        rows = keys.key_rows(made)
        for n, p in enumerate(made, 1):
            (staging / "papers" / f"{p.student.id}.md").write_text(papers.paper_markdown(spec, slots, p), "utf-8")
            (staging / "keys" / f"{p.student.id}.md").write_text(papers.key_markdown(spec, slots, p), "utf-8")
            report("writing the papers and keys", n, len(made))
            if typesetting is not None and n % 25 == 0:
                typesetting.poll(busy=2)   # this process and the LMS writer
        (staging / "keys.csv").write_text(keys.keys_csv(rows), "utf-8")
        (staging / "keys.json").write_text(keys.keys_json(rows), "utf-8")
        record = {"title": spec.title, "seed": spec.seed, "duration": spec.duration,
                  "instructions": spec.instructions,
                  "slots": [{"number": s.number, "section": s.section, "template": s.template} for s in slots],
                  "students": [{"id": p.student.id, "name": p.student.name,
                                "questions": [q.id for q in p.questions]} for p in made]}
        (staging / "set.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", "utf-8")
        report("writing the LMS exports", 0, exports)
        while lms_writer.poll():
            if typesetting is not None:
                typesetting.poll(busy=1)   # the LMS writer
            time.sleep(POLL_SECONDS)
        lms_writer.finish()
        if typesetting is not None:
            report("typesetting the PDFs", 0, len(made))
            typesetting.wait(lambda done: report("typesetting the PDFs", done, len(made)))
        if out.exists():
            shutil.rmtree(out)
        staging.rename(out)
    except BaseException:
        if lms_writer is not None:
            lms_writer.close()
        if typesetting is not None:
            typesetting.close()
        shutil.rmtree(staging, ignore_errors=True)
        raise
    unprintable = [p.student.id for p in made if p.student.name and not typeset.printable(p.student.name)]
    return {"students": len(made), "questions": len(slots), "marks": sum(q.marks for q in made[0].questions),
            "out": str(out), "variety": variety(slots, made), "unprintable": unprintable if pdf else [],
            "roster_read_as": roster_read_as}
