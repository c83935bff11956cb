"""Grading the answers students hand back: GATE marking, feedback, item statistics, rejects.

The responses file has the columns student, question and answer (the question's number on
the paper; the answer in the bank's syntax: a, a,c, 0.70, 8 GiB, …). It is read as
spreadsheets write it: the delimiter (`,` `;` or tab) is taken from the header line, the
encoding from its bytes (UTF-8 with or without a BOM, UTF-16 with a BOM, else cp1252), any
line ending; in a `;` file the comma is the decimal separator (0,881 is 0.881), as where a
spreadsheet writes one, and how the file was read is said back. Roll numbers match the set's
whatever their case and surrounding spaces. A blank answer is "not answered". A matrix that
can be read but has the wrong shape is a wrong answer (named as the key transposed where it
is). Every other row either counts or lands in rejects.csv with its reason: an unknown
student or question, a second answer to the same question, an answer that cannot be read
(such as `--3`), which the student's feedback also shows as received.

Instructor overrides (`overrides.py`) are applied on every run, so a regrade is running it again.

    OUT/gradebook.csv       student, total, max, then marks per question
    OUT/feedback/<id>.md    each answer, its marks, and the mistake it matches
    OUT/item_stats.json/.md facility (per question and per variant), discrimination (upper vs
                            lower 27%), options chosen (by what the option says), mistakes, overrides
    OUT/rejects.csv         what was not graded, and why
    OUT/returns/<id>.pdf    each student's return sheet: their answers and marks above each
                            question's key, accepted range, worked solution and option reasons
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Callable

from quizforge.errors import InputError
from quizforge.grading.batch.gradebook import csv_cell, write_atomically
from quizforge.problemsets.marking import mark_written, marks_text, mistake_sentence
from quizforge.problemsets.tables import Table, read_table

GROUP = 0.27  # the upper and lower groups of the discrimination index
# Return sheets go to typst in this many shares. This process keeps a core until the reports
# are written, so the other core alone typesets the first shares; small ones let both cores
# finish together (each helper costs ~0.15 s to start).
RETURN_SHARES = 12
OPTION_LABEL_CHARS = 60


def load_set(folder: Path) -> dict:
    try:
        record = json.loads((folder / "set.json").read_text(encoding="utf-8"))
        students = {s["id"]: s for s in record["students"]}
        assert all(isinstance(q, str) for s in students.values() for q in s["questions"])
    except FileNotFoundError:
        raise InputError(f"{folder}: no set.json here; point at a folder made by `quiz set make`") from None
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        raise InputError(f"{folder}/set.json is not one `quiz set make` wrote") from None
    return {"title": record.get("title", ""), "students": students}


# A number written with a decimal comma: 0,881 · 256,00 · -1,31E+07 (a unit may follow).
_DECIMAL_COMMA = re.compile(r"([+-]?\d+),(\d+(?:[eE][+-]?\d+)?)(\s*[^\d\s,;].*)?")


def decimal_point(answer: str) -> str:
    """A number written with a decimal comma, with a decimal point instead; anything else unchanged."""
    found = _DECIMAL_COMMA.fullmatch(answer.strip())
    return f"{found.group(1)}.{found.group(2)}{found.group(3) or ''}" if found else answer


def read_responses(path: Path) -> Table:
    """The responses file: its rows as dicts (line, student, question, answer) replace the cells."""
    table = read_table(path)
    header, rows = table.header, table.rows
    names = {f.lower(): i for i, f in reversed(list(enumerate(header)))}
    student = next((names[n] for n in ("student", "student_id", "roll", "roll_number", "id") if n in names), None)
    question = next((names[n] for n in ("question", "question_number", "q") if n in names), None)
    answer = names.get("answer")
    if student is None or question is None or answer is None:
        found = ", ".join(repr(h) for h in header) or "nothing"
        raise InputError(f"{path.name}: the first row must name the columns student, question and answer "
                         f"(found {found})")
    cell = lambda cells, i: cells[i].strip() if i < len(cells) else ""  # noqa: E731
    return replace(table, rows=[{"line": n, "student": cell(cells, student), "question": cell(cells, question),
                                 "answer": cell(cells, answer)} for n, cells in rows])


def _question_number(text: str) -> int | None:
    text = text.strip()
    if text[:1] in ("Q", "q"):
        text = text[1:]
    return int(text) if text.isdigit() and text.isascii() else None


def grade_responses(folder: Path, responses: Path, out: Path, overrides_path: Path | None = None,
                    return_sheets: bool = True, progress: Callable[[int, int], None] | None = None) -> dict:
    """Grade RESPONSES against the set in FOLDER into OUT (see the module's list); with
    RETURN_SHEETS, OUT/returns/<id>.pdf too, PROGRESS(done, total) told the students typeset.

    The class is graded share by share (typeset.Typesetting.shares), and each share's return
    sheets start typesetting while the next share is graded: everything a student's sheet says
    depends only on their own paper, answers and the overrides."""
    from quizforge.answers import AnswerError
    from quizforge.bank.registry import question as regenerate
    from quizforge.problemsets.overrides import Applied, apply_overrides, load_overrides
    from quizforge.problemsets.typeset import Typesetting

    record = load_set(folder)
    students = record["students"]
    folded = Counter(sid.strip().casefold() for sid in students)
    by_folded = {sid.strip().casefold(): sid for sid in students if folded[sid.strip().casefold()] == 1}
    cache: dict[str, object] = {}
    lookup = lambda qid: cache.get(qid) or cache.setdefault(qid, regenerate(qid))  # noqa: E731
    overrides = load_overrides(overrides_path, students, lookup) if overrides_path is not None else []
    table = read_responses(responses)
    rejects: list[tuple[int, str, str]] = []
    answers: dict[str, list[tuple[int, dict]]] = defaultdict(list)   # by student: (number, row), in line order
    for row in table.rows:
        given_id, qtext, line = row["student"], row["question"], row["line"]
        sid = given_id if given_id in students else by_folded.get(given_id.casefold())  # case only where unique
        if sid is None:
            rejects.append((line, given_id, f"unknown student {given_id!r}"))
            continue
        number = _question_number(qtext)
        if number is None or not 1 <= number <= len(students[sid]["questions"]):
            rejects.append((line, sid, f"no question {qtext!r} on this paper (1 to {len(students[sid]['questions'])})"))
            continue
        if row["answer"]:                              # blank: not answered
            answers[sid].append((number, row))

    verdicts: dict[str, dict[int, object]] = defaultdict(dict)
    raw: dict[str, dict[int, str]] = defaultdict(dict)
    unread: dict[str, dict[int, tuple[str, str]]] = defaultdict(dict)   # what was received, why not graded
    comma_read: list[tuple[int, str]] = []
    papers: dict[str, list] = {}
    as_given: dict[str, dict] = {}
    applied = Applied(overrides)
    totals, most = {}, {}

    def grade_student(sid: str) -> None:
        papers[sid] = [lookup(q) for q in students[sid]["questions"]]
        for number, row in answers.get(sid, ()):
            line = row["line"]
            if number in raw[sid]:
                rejects.append((line, sid, f"a second answer to question {number}; the first one counts"))
                continue
            q = papers[sid][number - 1]
            answer = row["answer"]
            if table.decimal_comma and q.kind == "NAT" and not q.is_matrix:
                answer = decimal_point(answer)
                if answer != row["answer"]:
                    comma_read.append((line, f"{row['answer']!r} as {answer}"))
            try:
                verdicts[sid][number] = mark_written(q, answer)
            except AnswerError as exc:
                rejects.append((line, sid, f"question {number}: cannot read {row['answer']!r} ({exc})"))
                unread[sid][number] = (row["answer"], str(exc))
                continue
            raw[sid][number] = answer

    def grade_share(share: list[str], tick: Callable[[], None] = lambda: None) -> None:
        for k, sid in enumerate(share, 1):
            grade_student(sid)
            as_given[sid] = dict(verdicts[sid])
            if k % 10 == 0:
                tick()
        apply_overrides({sid: papers[sid] for sid in share}, verdicts, raw, applied)
        for sid in share:
            dropped = applied.dropped.get(sid, set())
            totals[sid] = sum(v.marks for v in verdicts[sid].values())
            most[sid] = sum(q.marks for n, q in enumerate(papers[sid], 1) if n not in dropped)

    def write_reports() -> None:
        n_questions = max(len(s["questions"]) for s in students.values())
        lines = [",".join(["student", "total", "max"] + [f"Q{i}" for i in range(1, n_questions + 1)])]
        out.mkdir(parents=True, exist_ok=True)
        for sid, qs in papers.items():
            marks = [verdicts[sid][n].marks if n in verdicts[sid] else 0.0 for n in range(1, len(qs) + 1)]
            lines.append(",".join(csv_cell(v) for v in [sid, round(totals[sid], 4), most[sid],
                                                        *(round(m, 4) for m in marks)]))
            write_atomically(out / "feedback" / f"{sid}.md",
                             _feedback(record["title"], sid, qs, verdicts[sid], applied.dropped.get(sid, set()),
                                       applied.notes.get(sid, {}), unread.get(sid, {})))
        write_atomically(out / "gradebook.csv", "\n".join(lines) + "\n")
        given_totals = {sid: sum(v.marks for v in as_given.get(sid, {}).values()) for sid in students}
        stats = item_statistics(students, as_given, given_totals, cache)
        by_question = applied.by_question()
        for item in stats:
            item["overrides"] = by_question.get(item["question"], [])
        write_atomically(out / "item_stats.json", json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
        write_atomically(out / "item_stats.md", _stats_markdown(stats))
        reject_lines = ["line,student,reason"] + [",".join(csv_cell(v) for v in r) for r in sorted(rejects)]
        write_atomically(out / "rejects.csv", "\n".join(reject_lines) + "\n")

    shares = Typesetting.shares(list(students), RETURN_SHARES)
    if return_sheets:
        from quizforge.problemsets import typeset
        from quizforge.problemsets.sheets import returned_answers, set_layout
        from quizforge.problemsets.variants import Paper

        spec, slots, printed = set_layout(folder)
        returned: dict[str, dict] = {}
        source = lambda chunk, plain: typeset.class_source(spec, slots, chunk, "return", plain, returned)  # noqa: E731
        (out / "returns").mkdir(parents=True, exist_ok=True)
        with Typesetting(out / "returns") as typesetting:
            for share in shares:
                grade_share(share, typesetting.poll)   # a share typeset: start the next
                for sid in share:
                    returned[sid] = returned_answers(papers[sid], verdicts[sid], unread.get(sid, {}),
                                                     applied.dropped.get(sid, set()), applied.notes.get(sid, {}))
                    returned[sid]["total"] = f"{marks_text(totals[sid])} of {marks_text(most[sid])}"
                typesetting.add(None, [Paper(printed[sid][0], tuple(papers[sid])) for sid in share],
                                out / "returns", source)
            write_reports()
            typesetting.finish(len(papers), progress)
    else:
        for share in shares:
            grade_share(share)
        write_reports()
    read_as = table.described(responses.name)
    if comma_read:
        read_as += f" ({', '.join(text for _, text in sorted(comma_read)[:3])})"
    return {"students": len(students), "graded": sum(len(v) for v in raw.values()), "rejected": len(rejects),
            "overrides": len(overrides), "out": str(out), "read_as": read_as,
            "return_sheets": len(papers) if return_sheets else 0}


def _feedback(title: str, sid: str, questions: list, verdicts: dict, dropped: set, notes: dict,
              unread: dict) -> str:
    total = sum(v.marks for v in verdicts.values())
    most = sum(q.marks for n, q in enumerate(questions, 1) if n not in dropped)
    lines = [f"# {title}: feedback for {sid}", "", f"**Total:** {marks_text(total)} of {marks_text(most)}", ""]
    for n, q in enumerate(questions, 1):
        v = verdicts.get(n)
        note = f" ({notes[n]})" if n in notes else ""
        if n in dropped:
            lines.append(f"- **Q{n}** (`{q.id}`): dropped from the set, no marks either way{note}")
        elif v is None and n in unread:
            received, why = unread[n]
            lines.append(f"- **Q{n}** (`{q.id}`): received {received!r}, not graded: {why} · 0{note}")
        elif v is None:
            lines.append(f"- **Q{n}** (`{q.id}`): not answered · 0")
        else:
            received = f" (received {unread[n][0]!r}, not graded: {unread[n][1]})" if n in unread else ""
            lines.append(f"- **Q{n}** (`{q.id}`): {v.given} · {marks_text(v.marks, signed=True)} · "
                         f"{v.feedback}{mistake_sentence(v)}{received}{note}")
    return "\n".join(lines) + "\n"


def option_label(option) -> str:
    """What an option says, the same on every paper whatever its letter there: its statement,
    or for a numeric option (whose number differs from paper to paper) "the key" or where its
    wrong number comes from."""
    from quizforge.text.terminal import markdown_to_plain

    mark = "✓ " if option.correct else "✗ "
    if option.value is None:
        return mark + _short(markdown_to_plain(option.md))
    if option.correct:
        return "✓ the key"
    if option.misconception is not None:
        return "✗ " + _short(option.misconception.feedback)
    return "✗ another value"


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= OPTION_LABEL_CHARS else text[:OPTION_LABEL_CHARS - 1].rstrip() + "…"


def _chosen_options(question, verdict) -> list:
    from quizforge.bank.question import LETTERS

    return [question.options[LETTERS.index(letter)] for letter in verdict.given.split(",") if letter]


def _chosen_labels(question, verdict) -> list[str]:
    return [option_label(option) for option in _chosen_options(question, verdict)]


def item_statistics(students: dict, verdicts: dict, totals: dict, cache: dict) -> list[dict]:
    """Per question number, of the answers as given (before any override): facility (overall
    and per variant, a variant being one question text, named by the first of its IDs),
    discrimination (upper − lower 27%), the options chosen counted by what they say (option
    order differs between papers), and the mistakes named."""
    from quizforge.problemsets.variants import question_text_key

    ranked = sorted(totals, key=lambda s: totals[s])
    size = max(1, round(GROUP * len(ranked)))
    lower, upper = set(ranked[:size]), set(ranked[-size:])
    n_questions = max(len(s["questions"]) for s in students.values())
    items = []
    for n in range(1, n_questions + 1):
        sitting = [s for s in students if len(students[s]["questions"]) >= n]
        answered = {sid: verdicts[sid][n] for sid in sitting if n in verdicts.get(sid, {})}
        right = lambda group: sum(1 for s in group if s in answered and answered[s].correct) / len(group)  # noqa: E731
        questions = {s: cache[students[s]["questions"][n - 1]] for s in sitting}
        choices: Counter[str] = Counter()
        mistakes: Counter[str] = Counter()
        for sid, v in answered.items():
            q = questions[sid]
            if q.kind != "NAT":
                choices.update(_chosen_labels(q, v))
                # every wrong option chosen that a named mistake leads to, labelled as in "choices"
                mistakes.update(option_label(o) for o in _chosen_options(q, v)
                                if not o.correct and o.misconception is not None)
            elif v.misconception is not None:
                mistakes[_short(v.misconception.feedback)] += 1
        per_variant: dict[tuple, list[str]] = defaultdict(list)   # by the text read: seeds can share one
        for sid in sitting:
            per_variant[question_text_key(questions[sid])].append(sid)
        variants = sorted(({"question_id": min(questions[s].id for s in group), "students": len(group),
                            "answered": sum(s in answered for s in group),
                            "facility": round(sum(1 for s in group if s in answered and answered[s].correct)
                                              / len(group), 4)}
                           for group in per_variant.values()), key=lambda v: v["question_id"])
        items.append({
            "question": n, "kinds": sorted({q.kind for q in questions.values()}), "answered": len(answered),
            "facility": round(sum(v.correct for v in answered.values()) / len(sitting), 4),
            "discrimination": round(right(upper) - right(lower), 4),
            "choices": dict(sorted(choices.items(), key=lambda kv: (-kv[1], kv[0]))),
            "mistakes": dict(sorted(mistakes.items(), key=lambda kv: (-kv[1], kv[0]))),
            "variants": variants,
        })
    return items


def _stats_markdown(stats: list[dict]) -> str:
    lines = ["# Item statistics", "", "Facility: the share of students who got it right. Discrimination: the share "
             "right in the top 27% by total minus the share right in the bottom 27%. Options are counted by what "
             "they say, since their order differs between papers. All of it describes the answers as given, "
             "before any override.", "",
             "| Q | facility | by variant (min–max, variants) | discrimination | options chosen "
             "| commonest mistake |",
             "|---:|---:|---|---:|---|---|"]
    for s in stats:
        choices = "; ".join(f"{k}: {v}" for k, v in s["choices"].items()).replace("|", "\\|")
        mistake = next(iter(s["mistakes"].items()), None)
        facilities = [v["facility"] for v in s["variants"]]
        spread = f"{min(facilities):.2f}–{max(facilities):.2f} ({len(facilities)})" if facilities else ""
        lines.append(f"| {s['question']} | {s['facility']:.2f} | {spread} | {s['discrimination']:+.2f} | {choices} | "
                     f"{f'{mistake[0]} ({mistake[1]})' if mistake else ''} |")
    applied = [(s["question"], o) for s in stats for o in s.get("overrides", [])]
    if applied:
        lines += ["", "## Overrides applied to the gradebook", ""] + [f"- Q{n}: {o}" for n, o in applied]
    lines += ["", "## Facility per variant", "", "Each variant's facility (students); item_stats.json lists every one.", ""]
    for s in stats:
        many = [v for v in s["variants"] if v["students"] > 1]
        cells = ", ".join(f"`{v['question_id']}` {v['facility']:.2f} ({v['students']})" for v in many)
        single = len(s["variants"]) - len(many)
        if single:
            cells += ("; " if cells else "") + f"{single} variant{'s' if single != 1 else ''} of one student each"
        lines.append(f"- **Q{s['question']}**: {cells}")
    return "\n".join(lines) + "\n"

