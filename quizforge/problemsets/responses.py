"""Grading the answers students hand back: GATE marking, feedback, item statistics, rejects.

The responses CSV has the columns student, question and answer (the question's number on
the paper; the answer in the bank's syntax: a, a,c, 0.70, 8 GiB, …). Every row either counts
or lands in rejects.csv with its reason: an unknown student or question, a second answer to
the same question, an answer that cannot be read. The rest is graded.

    OUT/gradebook.csv       student, total, max, then marks per question
    OUT/feedback/<id>.md    each answer, its marks, and the mistake it matches
    OUT/item_stats.json/.md facility, discrimination (upper vs lower 27%), options and mistakes chosen
    OUT/rejects.csv         what was not graded, and why
"""

from __future__ import annotations

import csv
import io
import json
from collections import Counter, defaultdict
from pathlib import Path

from quizforge.errors import InputError
from quizforge.grading.gradebook import csv_cell, write_atomically

GROUP = 0.27  # the upper and lower groups of the discrimination index


def _load_set(folder: Path) -> dict:
    try:
        record = json.loads((folder / "set.json").read_text(encoding="utf-8"))
        students = {s["id"]: s for s in record["students"]}
        assert all(isinstance(q, str) for s in students.values() for q in s["questions"])
    except FileNotFoundError:
        raise InputError(f"{folder}: no set.json here; point at a folder made by `quiz set make`") from None
    except (OSError, ValueError, KeyError, TypeError, AssertionError):
        raise InputError(f"{folder}/set.json is not one `quiz set make` wrote") from None
    return {"title": record.get("title", ""), "students": students}


def _rows(path: Path) -> list[dict]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: cannot be read ({exc})") from None
    reader = csv.DictReader(io.StringIO(text))
    names = {f.strip().lower(): f for f in reader.fieldnames or []}
    student = names.get("student") or names.get("student_id") or names.get("id")
    question, answer = names.get("question") or names.get("question_number"), names.get("answer")
    if not (student and question and answer):
        raise InputError(f"{path.name}: the first row must name the columns student, question and answer")
    return [{"line": n, "student": (row.get(student) or "").strip(), "question": (row.get(question) or "").strip(),
             "answer": (row.get(answer) or "").strip()} for n, row in enumerate(reader, 2)]


def grade_responses(folder: Path, responses: Path, out: Path) -> dict:
    from quizforge.answers import AnswerError
    from quizforge.bank.grading import grade
    from quizforge.bank.registry import question as regenerate

    record = _load_set(folder)
    students = record["students"]
    rejects: list[tuple[int, str, str]] = []
    verdicts: dict[str, dict[int, object]] = defaultdict(dict)
    cache: dict[str, object] = {}
    for row in _rows(responses):
        sid, qtext, line = row["student"], row["question"], row["line"]
        if sid not in students:
            rejects.append((line, sid, f"unknown student {sid!r}"))
            continue
        ids = students[sid]["questions"]
        if not qtext.isdigit() or not 1 <= int(qtext) <= len(ids):
            rejects.append((line, sid, f"no question {qtext!r} on this paper (1 to {len(ids)})"))
            continue
        number = int(qtext)
        if number in verdicts[sid]:
            rejects.append((line, sid, f"a second answer to question {number}; the first one counts"))
            continue
        qid = ids[number - 1]
        q = cache.get(qid) or cache.setdefault(qid, regenerate(qid))
        try:
            verdicts[sid][number] = grade(q, row["answer"])
        except AnswerError as exc:
            rejects.append((line, sid, f"question {number}: cannot read {row['answer']!r} ({exc})"))
    n_questions = max(len(s["questions"]) for s in students.values())
    totals = {}
    lines = [",".join(["student", "total", "max"] + [f"Q{i}" for i in range(1, n_questions + 1)])]
    out.mkdir(parents=True, exist_ok=True)
    for sid, student in students.items():
        qs = [cache.get(q) or cache.setdefault(q, regenerate(q)) for q in student["questions"]]
        marks = [verdicts[sid][n].marks if n in verdicts[sid] else 0.0 for n in range(1, len(qs) + 1)]
        totals[sid] = sum(marks)
        lines.append(",".join(csv_cell(v) for v in [sid, round(totals[sid], 4), sum(q.marks for q in qs),
                                                    *(round(m, 4) for m in marks)]))
        write_atomically(out / "feedback" / f"{sid}.md", _feedback(record["title"], sid, qs, verdicts[sid]))
    write_atomically(out / "gradebook.csv", "\n".join(lines) + "\n")
    stats = item_statistics(students, verdicts, totals, cache)
    write_atomically(out / "item_stats.json", json.dumps(stats, indent=2, ensure_ascii=False) + "\n")
    write_atomically(out / "item_stats.md", _stats_markdown(stats))
    reject_lines = ["line,student,reason"] + [",".join(csv_cell(v) for v in r) for r in rejects]
    write_atomically(out / "rejects.csv", "\n".join(reject_lines) + "\n")
    return {"students": len(students), "graded": sum(len(v) for v in verdicts.values()), "rejected": len(rejects),
            "out": str(out)}


def _feedback(title: str, sid: str, questions: list, verdicts: dict) -> str:
    total = sum(v.marks for v in verdicts.values())
    lines = [f"# {title}: feedback for {sid}", "", f"**Total:** {total:g} of {sum(q.marks for q in questions)}", ""]
    for n, q in enumerate(questions, 1):
        v = verdicts.get(n)
        if v is None:
            lines.append(f"- **Q{n}** (`{q.id}`): not answered · 0")
        else:
            mistake = f" Mistake: {v.misconception.label}." if v.misconception is not None else ""
            lines.append(f"- **Q{n}** (`{q.id}`): {v.given} · {v.marks:+g} · {v.feedback}{mistake}")
    return "\n".join(lines) + "\n"


def item_statistics(students: dict, verdicts: dict, totals: dict, cache: dict) -> list[dict]:
    """Per question number: facility, discrimination (upper − lower 27%), choices and mistakes."""
    ranked = sorted(totals, key=lambda s: totals[s])
    size = max(1, round(GROUP * len(ranked)))
    lower, upper = set(ranked[:size]), set(ranked[-size:])
    n_questions = max(len(s["questions"]) for s in students.values())
    items = []
    for n in range(1, n_questions + 1):
        answered = {sid: v[n] for sid, v in verdicts.items() if n in v}
        right = lambda group: sum(1 for s in group if s in answered and answered[s].correct) / len(group)  # noqa: E731
        kinds = {cache[students[s]["questions"][n - 1]].kind for s in students if len(students[s]["questions"]) >= n}
        items.append({
            "question": n, "kinds": sorted(kinds), "answered": len(answered),
            "facility": round(sum(v.correct for v in answered.values()) / len(students), 4),
            "discrimination": round(right(upper) - right(lower), 4),
            "choices": dict(sorted(Counter(v.given for v in answered.values() if not any(c.isdigit() for c in v.given))
                                   .items())),
            "mistakes": dict(Counter(v.misconception.label for v in answered.values() if v.misconception).most_common()),
        })
    return items


def _stats_markdown(stats: list[dict]) -> str:
    lines = ["# Item statistics", "", "Facility: the share of students who got it right. Discrimination: the share "
             "right in the top 27% by total minus the share right in the bottom 27%.", "",
             "| Q | facility | discrimination | options chosen | commonest mistake |", "|---:|---:|---:|---|---|"]
    for s in stats:
        choices = ", ".join(f"{k}: {v}" for k, v in s["choices"].items())
        mistake = next(iter(s["mistakes"].items()), None)
        lines.append(f"| {s['question']} | {s['facility']:.2f} | {s['discrimination']:+.2f} | {choices} | "
                     f"{f'{mistake[0]} ({mistake[1]})' if mistake else ''} |")
    return "\n".join(lines) + "\n"
