"""Issue 23's small text: one of a thing is singular everywhere a count is printed, and
`quiz ask` takes a question ID as `quiz explain` does."""

from __future__ import annotations

import json

from rich.console import Console

from practice_helpers import run_quiz as run_quiz_process
from quizforge.tui.mock_report import mock_report_view


def test_the_drill_and_mock_headers_say_1_question(tmp_path):
    drill = run_quiz_process(tmp_path / "drill", "practice", "--count", "1", input="q\n")
    assert drill.returncode == 0, drill.stderr
    assert "· 1 question · 0 reviews due ·" in drill.stdout and "1 questions" not in drill.stdout
    mock = run_quiz_process(tmp_path / "mock", "practice", "--mock", "gate", "--questions", "1", "--minutes", "5",
                            input="q\n")
    assert mock.returncode == 0, mock.stderr
    assert "GATE mock #1 · 1 question · 5:00" in mock.stdout


def test_the_mock_report_says_1_q_and_2_qs():
    per_topic = {"dims": {"questions": 2, "answered": 1, "correct": 1, "score": 1.0, "max": 2.0, "seconds": 10.0},
                 "params": {"questions": 1, "answered": 1, "correct": 0, "score": 0.0, "max": 2.0, "seconds": 9.0}}
    items = [{"id": f"dims.d_k-000{n}", "topic": "dims", "kind": "NAT", "marks": 1, "answer": "64", "key": "64",
              "correct": n == 1, "earned": float(n == 1), "seconds": 5.0} for n in (1, 2)]
    items.append({"id": "params.projections-7f3a", "topic": "params", "kind": "NAT", "marks": 2, "answer": "1",
                  "key": "6,553,600", "correct": False, "earned": 0.0, "seconds": 9.0})
    result = {"score": 1.0, "max": 4.0, "negative": 0.0, "questions": 3, "answered": 3, "correct": 1,
              "seconds": 19.0, "status": "submitted", "per_topic": per_topic, "items": items, "misconceptions": []}
    console = Console(width=40, record=True, highlight=False, color_system=None)
    console.print(mock_report_view(result, []))
    text = " ".join(console.export_text().split())
    assert "2 Qs · answered 1" in text and "1 Q · answered 1" in text and "1 Qs" not in text


def test_set_make_and_grade_say_1_paper_1_question_1_student(run_quiz, tmp_path):
    spec = tmp_path / "spec.toml"
    spec.write_text('title = "t"\nseed = 7\n[[sections]]\ntemplates = ["dims.d_k"]\ncount = 1\n', encoding="utf-8")
    code, out, err = run_quiz("set", "make", str(spec), "--variants", "1", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0, err
    assert out.startswith("1 paper of 1 question (1 mark) in "), out
    (paper,) = (tmp_path / "s" / "papers").glob("*.md")
    assert "**Total:** 1 mark · 1 question\n" in paper.read_text(encoding="utf-8")
    record = json.loads((tmp_path / "s" / "set.json").read_text(encoding="utf-8"))
    (student,) = record["students"]
    responses = tmp_path / "responses.csv"
    responses.write_text(f"student,question,answer\n{student['id']},1,64\n", encoding="utf-8")
    code, out, err = run_quiz("set", "grade", str(tmp_path / "s"), str(responses), "-o", str(tmp_path / "g"))
    assert code == 0, err
    assert out.startswith("1 answer of 1 student graded, 0 rejected"), out


def test_ask_takes_a_question_id_as_explain_does(run_quiz):
    code, out, err = run_quiz("ask", "params.projections-7f3a", "--json", "--with-answer")
    assert code == 0, err
    asked = json.loads(out)
    code, out, _ = run_quiz("explain", "params.projections-7f3a", "--json")
    assert asked == json.loads(out) and asked["id"] == "params.projections-7f3a" and asked["answer"] == "6,553,600"
    code, out, err = run_quiz("ask", "params.projections-7f3a")
    assert code == 0 and "quiz check params.projections-7f3a ANSWER" in " ".join(out.split())


def test_ask_with_an_id_and_a_seed_is_one_line(run_quiz):
    code, out, err = run_quiz("ask", "params.projections-7f3a", "--seed", "3")
    assert (code, out) == (2, "")
    assert err == "error: params.projections-7f3a is a question ID, which names its seed: drop --seed\n"
