"""A mock's percentage is rounded once, from the exact score, and the terminal report, the
browser's report and `quiz stats` show the same figure (issue 31: 71/3 of 31 is 76.34%, not
76.4% through 23.67, nor 76.3% by luck through 76.35)."""

from __future__ import annotations

import json
from fractions import Fraction

from click.testing import CliRunner
from rich.console import Console

from practice_helpers import right_answer, wrong_answer
from quizforge.cli import cli
from quizforge.practice.mock import Answer, Confirm, Goto, MockEngine, Submit
from quizforge.practice.mock_percent import exact_percent, exact_score, mock_percent, one_place
from quizforge.practice.mock_percent import comparison
from quizforge.tui.mock_report import mock_report_view
from quizforge.practice.store import History, MockState

MCQ_ONE = "dims.shapes-0000"      # 1 mark
MCQ_TWO = "params.model-0000"     # 2 marks: a wrong answer costs 2/3
NAT_ONE = "dims.d_k-0001"         # 1 mark
MSQ_TWO = "concepts.complexity-0002"   # 2 marks
START = 1_800_000_000.0


def test_the_exact_score_and_one_rounding():
    assert exact_score(23.67) == Fraction(71, 3) and exact_score(-0.67) == Fraction(-2, 3)
    assert exact_score(47.5) == Fraction(95, 2)           # not near a third: kept as written
    assert exact_percent(23.67, 31) == Fraction(7100, 93)  # 76.344…
    assert mock_percent({"score": 23.67, "max": 31.0}) == 76.3
    assert f"{100 * 23.67 / 31:.1f}" == "76.4"             # what rounding twice gave
    assert one_place(Fraction(1, 8) * 100) == 12.5 and one_place(Fraction(501, 20)) == 25.1   # 25.05: half up
    assert one_place(Fraction(-501, 20)) == -25.1 and one_place(Fraction(-1, 100)) == 0.0
    assert mock_percent({"score": 0, "max": 0}) is None


def _sit(history: History, answers: dict[int, str], at: float) -> dict:
    """A mock taken through the engine, as either front end takes it; its marked result."""
    session = history.start_session("mock", {"exam": "gate"}, at)
    state = MockState(session, "gate", [MCQ_ONE, MCQ_TWO, NAT_ONE, MSQ_TWO], 10)
    history.create_mock(state)
    engine = MockEngine(history, state, lambda: at)
    engine.start()
    for index, text in answers.items():
        engine.act(Goto(index + 1))
        engine.act(Answer(text, advance=False))
    engine.act(Submit())
    engine.act(Confirm())
    result, _ = engine.finish()
    engine.close()
    return result


def test_both_reports_and_quiz_stats_show_one_rounding_of_the_exact_percent(tmp_path):
    from quizforge.web.report import report_context

    with History(tmp_path / "history.db") as history:
        # 1 − 2/3 = 1/3 of 6 marks: 5.555…%, so 5.6% (0.33 of 6 would give 5.5%).
        first = _sit(history, {0: right_answer(MCQ_ONE), 1: wrong_answer(MCQ_TWO)}, START)
        # 1 + 1 − 2/3 = 4/3 of 6 marks: 22.222…%, so 22.2%; up 16.7 points (16.666…).
        second = _sit(history, {0: right_answer(MCQ_ONE), 1: wrong_answer(MCQ_TWO), 2: right_answer(NAT_ONE)},
                      START + 3600)
        assert (first["score"], second["score"]) == (0.33, 1.33)
        console = Console(width=120, record=True, color_system=None)
        console.print(mock_report_view(second, [first]))
        terminal = console.export_text()
        from quizforge.bank.registry import question

        questions = [question(qid) for qid in (MCQ_ONE, MCQ_TWO, NAT_ONE, MSQ_TWO)]
        browser = report_context(second, [first], questions)
    assert "1.33 / 6  (22.2%)" in terminal
    assert "▲ +16.7 points on the last (5.6%)" in terminal
    assert browser["percent"] == "22.2" and browser["history"] == [5.6, 22.2]
    assert comparison(second, [first])["change"] == 16.7 == browser["trend"]["change"]

    run = CliRunner().invoke(cli, ["stats", "--json", "--data-dir", str(tmp_path)])
    mocks = json.loads(run.output)["mocks"]
    assert [m["percent"] for m in mocks["history"]] == [5.6, 22.2] and mocks["change"] == 16.7
    shown = CliRunner().invoke(cli, ["stats", "--data-dir", str(tmp_path)], terminal_width=120).output
    assert "best 22.2% · last 22.2% · change +16.7 points" in shown
    row = next(line for line in shown.splitlines() if "0.33 / 6" in line)
    assert "5.6" in [cell.strip() for cell in row.split("│")]
