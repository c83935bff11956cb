"""The answer keys of every variant as one table: CSV and JSON, one row per question.

A NAT row carries its accepted range twice: as printed ("1.0395e24 to 1.0605e24") and as
the numbers `low` and `high`, the same ends a grader accepts (answers.check.numeric_key).
In the CSV a number stays a number (-0.58 is not quoted); only text that a spreadsheet
could take for a formula (starting with = + - @, a tab or a CR) is guarded by a quote.
"""

from __future__ import annotations

import csv
import io
import json
import re

from quizforge.problemsets.variants import Paper

COLUMNS = ("student", "question", "question_id", "kind", "key", "accepted", "low", "high", "marks")

# What a spreadsheet reads as a number: optional minus, digits (thousands grouped or not), decimals, exponent.
_NUMBER = re.compile(r"-?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?([eE][+-]?\d+)?")


def key_rows(papers: list[Paper]) -> list[dict]:
    from quizforge.bank.export import accepted_ends, accepted_text
    from quizforge.text.terminal import markdown_to_terminal

    rows = []
    for paper in papers:
        for number, q in enumerate(paper.questions, 1):
            ends = accepted_ends(q)
            low, high = (end.replace(",", "") for end in ends) if ends else ("", "")
            rows.append({"student": paper.student.id, "question": number, "question_id": q.id, "kind": q.kind,
                         "key": markdown_to_terminal(q.answer_md), "accepted": accepted_text(q),
                         "low": low, "high": high, "marks": q.marks})
    return rows


def spreadsheet_cell(value: object) -> str:
    """One CSV cell: numbers (and text that is a number) as they are, other text guarded
    against formula injection only where it starts like a formula."""
    from quizforge.grading.batch.gradebook import FORMULA_STARTS
    from quizforge.grading.intake.text_safety import plain

    if isinstance(value, float):
        text = f"{value:g}"
    elif not isinstance(value, str):
        text = str(value)
    else:
        text = plain(value)
        if not _NUMBER.fullmatch(text) and text.startswith(FORMULA_STARTS):
            text = "'" + text
    if not text:
        return ""
    out = io.StringIO()
    csv.writer(out, lineterminator="").writerow([text])
    return out.getvalue()


def keys_csv(rows: list[dict]) -> str:
    lines = [",".join(COLUMNS)] + [",".join(spreadsheet_cell(row[c]) for c in COLUMNS) for row in rows]
    return "\n".join(lines) + "\n"


def keys_json(rows: list[dict]) -> str:
    return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
