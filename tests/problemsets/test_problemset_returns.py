"""Grading what comes back as an instructor's class really hands it in (issue 32): a roster
and responses saved by a European spreadsheet, matrices of the wrong shape, answers that
could not be read and the override that supplies them, and item statistics that say what
the options say."""

from __future__ import annotations

import contextlib
import csv
import io
import json
from pathlib import Path

import pytest

from quizforge.bank.registry import question as regenerate

SPEC = """
title = "Europe"
seed = 5

[[sections]]
name = "Mixed"
templates = ["matrices.attention_output", "attention.output", "flops.training", "concepts.flash_attention",
             "concepts.why_sqrt_dk"]
count = 5
"""
NAMES = {"21CS001": "José Müller", "21CS002": "Zoë Ångström", "21cs003": "Chen Wei"}


def _excel_number(q) -> str:
    """The key as a German Excel writes a number: a decimal comma, 1,05E+24 for big ones."""
    value = float(q.answer)
    if q.decimals is not None:
        text = f"{value:.{q.decimals}f}"
    elif value == int(value) and abs(value) < 1e15:
        text = f"{int(value)},00"
    else:
        text = f"{value:.4E}"
    return text.replace(".", ",")


@pytest.fixture(scope="module")
def european(tmp_path_factory):
    """A set made from a roster saved as id;name;email in cp1252, as `quiz set make` is run."""
    from quizforge.cli import main

    tmp = tmp_path_factory.mktemp("europe")
    (tmp / "spec.toml").write_text(SPEC, "utf-8")
    roster = "id;name;email\r\n" + "".join(f"{sid};{name};{sid}@uni.example\r\n" for sid, name in NAMES.items())
    (tmp / "roster.csv").write_bytes(roster.encode("cp1252"))
    said = io.StringIO()
    with pytest.raises(SystemExit) as exit_, contextlib.redirect_stdout(said):
        main(["set", "make", str(tmp / "spec.toml"), "--roster", str(tmp / "roster.csv"), "--no-pdf",
              "-o", str(tmp / "set")])
    assert exit_.value.code == 0
    (tmp / "said.txt").write_text(said.getvalue(), "utf-8")
    return tmp / "set"


def _papers(folder: Path) -> dict[str, list]:
    record = json.loads((folder / "set.json").read_text("utf-8"))
    return {s["id"]: [regenerate(q) for q in s["questions"]] for s in record["students"]}


def _grade(run_quiz, folder: Path, tmp_path: Path, lines: list[str], *extra: str):
    path = tmp_path / "responses.csv"
    path.write_bytes("\r\n".join(lines).encode("cp1252"))
    out = tmp_path / "graded"
    code, stdout, err = run_quiz("set", "grade", str(folder), str(path), "-o", str(out), "--no-pdf", *extra)
    return code, stdout, err, out


def _book(out: Path) -> dict[str, dict]:
    return {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open(encoding="utf-8"))}


def _rejects(out: Path) -> list[dict]:
    return list(csv.DictReader((out / "rejects.csv").open(encoding="utf-8")))


def test_a_european_roster_is_read_with_its_names(european):
    record = json.loads((european / "set.json").read_text("utf-8"))
    assert {s["id"]: s["name"] for s in record["students"]} == NAMES


def test_set_make_says_how_it_read_the_roster(european):
    said = (european.parent / "said.txt").read_text("utf-8")
    assert "Read roster.csv: semicolon-separated, cp1252\n" in said   # a roster holds no decimal numbers


def test_decimal_commas_in_a_semicolon_file_are_read_and_said(run_quiz, european, tmp_path):
    papers = _papers(european)
    lines = ["name;student;question;answer"]   # a name column only cp1252 (or Unicode) can hold
    written = {}
    for n, q in enumerate(papers["21CS001"], 1):
        if q.kind == "NAT" and not q.is_matrix:
            written[n] = _excel_number(q)
            lines.append(f"José Müller;21CS001;{n};{written[n]}")
        elif q.kind != "NAT":
            lines.append(f"José Müller;21CS001;{n};{q.correct_letters}")
    assert any("," in text for text in written.values()) and any("E+" in text for text in written.values())
    code, stdout, err, out = _grade(run_quiz, european, tmp_path, lines)
    assert code == 0, err
    assert _rejects(out) == []
    marks = {n: float(_book(out)["21CS001"][f"Q{n}"]) for n in range(1, 6)}
    assert all(marks[n] == papers["21CS001"][n - 1].marks for n in written)
    assert "Read responses.csv: semicolon-separated, cp1252, decimal commas (" in stdout
    first = next(iter(written.values()))
    assert f"{first!r} as {first.replace(',', '.')}" in stdout


def test_a_comma_file_keeps_msq_commas_and_a_semicolon_file_keeps_letters(run_quiz, european, tmp_path):
    papers = _papers(european)
    msq = next(n for n, q in enumerate(papers["21CS002"], 1) if q.kind == "MSQ")
    code, stdout, err, out = _grade(run_quiz, european, tmp_path,
                                    ["student;question;answer", f"21CS002;{msq};{papers['21CS002'][msq - 1].correct_letters}"])
    assert code == 0, err and _rejects(out) == []
    assert "," in papers["21CS002"][msq - 1].correct_letters   # "a,c" is letters, not a decimal
    assert float(_book(out)["21CS002"][f"Q{msq}"]) == papers["21CS002"][msq - 1].marks


def test_roll_numbers_differing_only_in_case_are_refused_at_set_make(run_quiz, tmp_path):
    (tmp_path / "spec.toml").write_text(SPEC, "utf-8")
    (tmp_path / "roster.csv").write_text("id,name\n21CS001,A\n21cs001,B\n", "utf-8")
    code, _, err = run_quiz("set", "make", str(tmp_path / "spec.toml"), "--roster", str(tmp_path / "roster.csv"),
                            "--no-pdf", "-o", str(tmp_path / "out"))
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "line 3: student '21cs001' is listed twice (as '21CS001'" in err
    assert not (tmp_path / "out").exists()


def test_a_transposed_matrix_is_a_wrong_answer_named_as_transposed(run_quiz, european, tmp_path):
    from quizforge.answers.matrix_questions import matrix_text

    papers = _papers(european)
    q = papers["21CS001"][0]
    rows, cols = len(q.answer), len(q.answer[0])
    assert rows != cols   # a non-square key, so that its transpose has another shape
    transposed = matrix_text(tuple(zip(*q.answer)), q.decimals)
    wrong_shape = matrix_text(tuple(row[:1] for row in papers["21CS002"][0].answer), q.decimals)   # a column
    lines = ["student,question,answer", f'21CS001,1,"{transposed}"', f'21CS002,1,"{wrong_shape}"']
    code, _, err, out = _grade(run_quiz, european, tmp_path, lines)
    assert code == 0, err
    assert _rejects(out) == []
    book = _book(out)
    assert float(book["21CS001"]["Q1"]) == 0 and float(book["21CS002"]["Q1"]) == 0
    feedback = (out / "feedback" / "21CS001.md").read_text("utf-8")
    assert f"that is the key transposed: its rows written as columns, a {cols}×{rows} matrix where a {rows}×{cols}" \
        in feedback
    other = (out / "feedback" / "21CS002.md").read_text("utf-8")
    wanted = papers["21CS002"][0].answer
    assert f"a {len(wanted)}×1 matrix where a {len(wanted)}×{len(wanted[0])} matrix" in other and "transposed" not in other
    stats = json.loads((out / "item_stats.json").read_text("utf-8"))
    assert stats[0]["mistakes"] == {"that is the key transposed: its rows written as columns": 1}


def test_a_rejected_answer_says_what_came_and_an_override_grades_the_corrected_one(run_quiz, european, tmp_path):
    papers = _papers(european)
    n, q = next((n, q) for n, q in enumerate(papers["21CS001"], 1) if q.kind == "NAT" and not q.is_matrix)
    from quizforge.answers import format_number

    right = format_number(q.answer, q.decimals).replace(",", "")
    lines = ["student,question,answer", f"21CS001,{n},--{right}"]
    code, _, err, out = _grade(run_quiz, european, tmp_path, lines)
    assert code == 0, err and len(_rejects(out)) == 1
    feedback = (out / "feedback" / "21CS001.md").read_text("utf-8")
    assert f"received '--{right}', not graded: two signs in a row" in feedback
    assert float(_book(out)["21CS001"][f"Q{n}"]) == 0
    overrides = tmp_path / "overrides.toml"
    overrides.write_text(f'[[overrides]]\nquestion = {n}\naction = "grade"\nstudent = "21cs001"\n'
                         f'answer = "{right}"\nreason = "the sign was a smudge"\n', "utf-8")
    code, _, err, out = _grade(run_quiz, european, tmp_path, lines, "--overrides", str(overrides))
    assert code == 0, err
    assert float(_book(out)["21CS001"][f"Q{n}"]) == q.marks
    feedback = (out / "feedback" / "21CS001.md").read_text("utf-8")
    line = next(x for x in feedback.splitlines() if x.startswith(f"- **Q{n}**"))
    assert f"received '--{right}', not graded" in line and f"instructor: graded '{right}' for 21CS001" in line
    assert "the sign was a smudge" in line


@pytest.mark.parametrize("text, message", [
    ('[[overrides]]\nquestion = 2\naction = "grade"\nanswer = "0.5"\n', "'grade' needs a student"),
    ('[[overrides]]\nquestion = 2\naction = "grade"\nstudent = "21CS001"\nanswer = "--1"\n', "cannot read answer"),
    ('[[overrides]]\nquestion = 2\naction = "grade"\nstudent = "21CS001"\nanswer = "1"\n'
     '[[overrides]]\nquestion = 2\naction = "grade"\nstudent = "21CS001"\nanswer = "2"\n',
     "question 2 of 21CS001 is given two answers to grade"),
])
def test_a_bad_grade_override_is_one_line(run_quiz, european, tmp_path, text, message):
    overrides = tmp_path / "overrides.toml"
    overrides.write_text(text, "utf-8")
    code, _, err, out = _grade(run_quiz, european, tmp_path, ["student,question,answer"], "--overrides", str(overrides))
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
    assert not out.exists()


def test_stats_and_feedback_say_what_the_options_say(run_quiz, european, tmp_path):
    """The commonest mistake is named by the option's text, with the count "options chosen" gives it."""
    from quizforge.text.terminal import markdown_to_plain
    from quizforge.bank.question import LETTERS

    papers = _papers(european)
    msq = next(n for n, q in enumerate(papers["21CS001"], 1) if q.kind == "MSQ")
    mcq = next(n for n, q in enumerate(papers["21CS001"], 1) if q.kind == "MCQ" and
               any(o.misconception for o in q.options))
    lines = ["student,question,answer"]
    texts = {}
    for sid, qs in papers.items():
        q = qs[msq - 1]
        trap = next(i for i, o in enumerate(q.options) if not o.correct and o.misconception)
        texts[sid] = " ".join(markdown_to_plain(q.options[trap].md).split())
        lines.append(f'{sid},{msq},"{",".join(sorted(LETTERS[i] for i in q.correct | {trap}))}"')
        p = qs[mcq - 1]
        bait = next(i for i, o in enumerate(p.options) if o.misconception)
        lines.append(f"{sid},{mcq},{LETTERS[bait]}")
    code, _, err, out = _grade(run_quiz, european, tmp_path, lines)
    assert code == 0, err
    stats = json.loads((out / "item_stats.json").read_text("utf-8"))
    item = stats[msq - 1]
    label, count = next(iter(item["mistakes"].items()))
    assert item["choices"][label] == count
    assert label.startswith("✗ ") and label[2:].rstrip("…") in " ".join(texts.values())
    slug_labels = {o.misconception.label for qs in papers.values() for o in qs[mcq - 1].options if o.misconception}
    table = (out / "item_stats.md").read_text("utf-8")
    assert not any(f"✗ {slug}" in table for slug in slug_labels)
    feedback = (out / "feedback" / "21CS001.md").read_text("utf-8")
    assert not any(f"Mistake: {slug}" in feedback for slug in slug_labels)
    chosen = papers["21CS001"][mcq - 1]
    bait = next(o for o in chosen.options if o.misconception)
    assert bait.misconception.feedback in feedback
