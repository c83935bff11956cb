"""Numbers no option accepts (nan, inf), and a history that holds one from before they were refused."""

from __future__ import annotations

import json

import pytest

from quizforge.errors import InputError
from quizforge.practice.history_export import export_history
from quizforge.practice.mock import new_mock
from quizforge.practice.store import History


@pytest.mark.parametrize("value", ["nan", "NaN", "inf", "-inf", "infinity"])
@pytest.mark.parametrize("browser", [[], ["--browser"]])
def test_minutes_must_be_a_finite_number_in_the_terminal_and_the_browser(run_quiz, tmp_path, value, browser):
    code, out, err = run_quiz("practice", "--mock", "gate", "--minutes", value, *browser, "--data-dir", str(tmp_path))
    assert code == 2 and out == ""
    assert "--minutes" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "history.db").exists()   # refused before anything was written


@pytest.mark.parametrize("option", [["--time-limit", "nan"], ["--time-limit", "inf"], ["--fail-under", "nan"]])
def test_every_option_that_takes_a_number_refuses_nan_and_infinity(run_quiz, tmp_path, option):
    code, _, err = run_quiz("grade", str(tmp_path / "s.py"), "--challenge", "attention", *option)
    assert code == 2 and f"{option[0]}" in err and "not a finite number" in err


def test_the_library_refuses_nan_minutes_before_it_opens_a_session(tmp_path):
    with History(tmp_path / "history.db") as history:
        with pytest.raises(InputError, match="finite number of minutes"):
            new_mock(history, 2, float("nan"))
        assert history.sessions() == []


def test_a_nan_left_in_the_history_by_an_older_quizforge_exports_as_json_null(tmp_path, run_quiz):
    with History(tmp_path / "history.db") as history:
        # What `--minutes nan` left before it was refused: an open mock session whose settings say NaN.
        history.start_session("mock", {"exam": "gate", "questions": 2, "minutes": float("nan")}, 1_800_000_000.0)
    code, out, err = run_quiz("export-history", "--format", "json", "--data-dir", str(tmp_path))
    assert code == 0, err
    assert "NaN" not in out
    payload = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in the export"))
    assert payload["sessions"][0]["settings"] == {"exam": "gate", "questions": 2, "minutes": None}
    stream_check = []
    with History(tmp_path / "history.db") as history:
        import io

        stream = io.StringIO()
        export_history(history, "json", stream)
        stream_check.append(json.loads(stream.getvalue())["sessions"][0]["settings"]["minutes"])
    assert stream_check == [None]
