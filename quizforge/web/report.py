"""The report after a browser mock: the terminal report's figures, then every question with
the candidate's answer, the key and the worked solution. Built only once the paper is in."""

from __future__ import annotations

from quizforge.answers import AnswerError, matrix_questions, parse_choice
from quizforge.bank.question import LETTERS
from quizforge.bank.registry import parse_question_id
from quizforge.bank.syllabus import syllabus_text
from quizforge.bank.template import TOPICS
from quizforge.practice.mock_percent import comparison, exact_percent, mock_percent
from quizforge.practice.timefmt import clock_text
from quizforge.text.html import inline_html
from quizforge.web.question_html import (answer_cells, answer_table, key_cells, marks_text, negative_text,
                                         question_view, solution_html)


def _chosen_letters(question, answer: str | None) -> set[str]:
    if not answer or question.kind == "NAT":
        return set()

    try:
        chosen = parse_choice(answer, len(question.options), multiple=question.kind == "MSQ")
    except AnswerError:
        return set()
    return {LETTERS[i] for i in chosen}


def _wrong_entries(question, answer: str | None) -> frozenset[tuple[int, int]]:
    """(row, column) of each entry of a matrix answer outside its accepted range."""
    try:
        given = matrix_questions.read(question, answer or "")
    except AnswerError:
        return frozenset()
    return frozenset(matrix_questions.wrong_entries(question.answer, given, question.decimals))


def report_context(result: dict, earlier: list[dict], questions: list) -> dict:
    """Everything the report template shows, in plain values and HTML fragments."""
    pct = mock_percent(result) or 0.0
    topics = []
    for topic, t in result["per_topic"].items():
        topics.append({"name": TOPICS.get(topic, topic), "questions": t["questions"], "answered": t["answered"],
                       "correct": t["correct"],
                       "accuracy": f"{t['correct'] / t['answered']:.0%}" if t["answered"] else "–",
                       "marks": f"{t['score']:g}/{t['max']:g}", "time": clock_text(t["seconds"]),
                       "per_question": clock_text(t["seconds"] / t["questions"])})
    items = []
    for n, (item, question) in enumerate(zip(result["items"], questions), 1):
        view = question_view(question)
        chosen = _chosen_letters(question, item["answer"])
        shape = view["matrix"]
        given = shape and answer_cells(item["answer"], shape["rows"], shape["cols"])
        items.append({
            "number": n, "id": item["id"], "title": inline_html(question.title), "kind": item["kind"],
            "marks_text": marks_text(item["marks"]), "negative": negative_text(question),
            "prompt": view["prompt"], "exhibits": view["exhibits"],
            "options": [{"letter": letter, "html": html, "key": option.correct, "chosen": letter in chosen}
                        for letter, html, option in zip(view["letters"], view["options"], question.options)],
            "answer": item["answer"], "key": item["key"], "correct": item["correct"],
            "earned": f"{item['earned']:+g}", "seconds": clock_text(item["seconds"]),
            "topic": TOPICS.get(item["topic"], item["topic"]),
            "template": parse_question_id(item["id"])[0].title,
            "syllabus": syllabus_text(parse_question_id(item["id"])[0].id),
            "solution": solution_html(question),
            # Matrices as tables: the candidate's (when it could be read) beside the key.
            "answer_table": answer_table(given, "answer-matrix your-matrix", _wrong_entries(question, item["answer"]))
            if given else None,
            "key_table": answer_table(key_cells(question), "answer-matrix key-matrix") if shape else None,
        })
    answered = result["answered"]
    return {
        "score": f"{result['score']:g}", "max": f"{result['max']:g}", "percent": f"{pct:.1f}",
        "passed_half": (exact_percent(result["score"], result["max"]) or 0) >= 50, "negative": f"{result['negative']:g}",
        "answered": answered, "questions": result["questions"], "correct": result["correct"],
        "accuracy": f"{(result['correct'] / answered if answered else 0):.0%}",
        "time_used": clock_text(result["seconds"]), "timed_out": result.get("status") == "timed_out",
        "topics": topics, "misconceptions": result["misconceptions"], "items": items,
        "trend": comparison(result, earlier),
        "history": [mock_percent(r) or 0.0 for r in earlier[-9:]] + [pct],
    }
