"""The answer keys of every variant as one table: CSV and JSON, one row per question."""

from __future__ import annotations

import json

from quizforge.problemsets.variants import Paper

COLUMNS = ("student", "question", "question_id", "kind", "key", "accepted", "marks")


def key_rows(papers: list[Paper]) -> list[dict]:
    from quizforge.bank.export import accepted_text
    from quizforge.bank.mathtext import markdown_to_terminal

    rows = []
    for paper in papers:
        for number, q in enumerate(paper.questions, 1):
            rows.append({"student": paper.student.id, "question": number, "question_id": q.id, "kind": q.kind,
                         "key": markdown_to_terminal(q.answer_md), "accepted": accepted_text(q), "marks": q.marks})
    return rows


def keys_csv(rows: list[dict]) -> str:
    from quizforge.grading.gradebook import csv_cell

    lines = [",".join(COLUMNS)] + [",".join(csv_cell(row[c]) for c in COLUMNS) for row in rows]
    return "\n".join(lines) + "\n"


def keys_json(rows: list[dict]) -> str:
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"


def read_keys(text: str) -> list[dict]:
    """keys.json as written by keys_json, checked enough to grade with."""
    rows = json.loads(text)
    if not isinstance(rows, list) or not all(isinstance(r, dict) and set(COLUMNS) <= set(r) for r in rows):
        raise ValueError("not a quizforge keys.json")
    return rows
