"""`quiz grade` and `quiz challenges`: exit codes, the three output formats, starting a challenge."""

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grading_support import NO_SANDBOX, namespaces_available, write_submission
from quizforge.challenges import challenge_ids
from quizforge.cli import challenges as challenges_cli
from quizforge.cli import grade_view
from quizforge.grading.exports import results
from quizforge.grading.judge.hidden_suite import SuiteResult
from quizforge.grading.judge.hidden_suite import TestResult as Case  # not "Test*": pytest would try to collect it

REPO = Path(__file__).resolve().parents[2]
SEED_LINE = "inputs: seed 1234, fresh for each grading (--seed 1234 grades with the same inputs)"


@pytest.fixture
def suite_result() -> SuiteResult:
    return SuiteResult("softmax", tests=[
        Case("test_ok[a]", "passed", 2.0, 2.0, duration=0.01),
        Case("test_wrong", "failed", 0.0, 3.0, "wrong values\x1b[31m <&> [bold]x[/bold]\x00", 0.02),
        Case("test_maybe", "skipped", 0.0, 1.0, "not applicable"),
    ], duration=1.25, output="the grader's note",
        submission_output="printed by the submission, not by the grader:\n| hello \x07world",
        sandbox={"mode": "isolated", "isolated": True, "namespaces": ["pid", "net"], "uid": 1500000001,
                 "visible": ["/usr/lib", "/opt/torch"], "limits": {"memory_bytes": 2**31, "processes": 256},
                 "notes": [], "workers": 1}, seed=1234)


def test_gradescope_fields(suite_result):
    data = results.gradescope(suite_result)
    assert set(data) == {"score", "max_score", "execution_time", "output", "stdout_visibility", "seed", "sandbox",
                         "tests"}
    assert (data["score"], data["max_score"], data["execution_time"], data["seed"]) == (2.0, 6.0, 1.25, 1234)
    assert data["output"] == ("the grader's note\n\nprinted by the submission, not by the grader:\n| hello ?world\n\n"
                              f"{SEED_LINE}")
    assert data["stdout_visibility"] == "hidden"
    assert data["sandbox"]["mode"] == "isolated" and data["sandbox"]["uid"] == 1500000001
    assert data["tests"][0] == {"name": "test_ok[a]", "score": 2.0, "max_score": 2.0, "status": "passed",
                                "output": "", "visibility": "after_due_date"}
    assert results.gradescope(suite_result, "visible")["tests"][0]["visibility"] == "visible"
    assert [t["status"] for t in data["tests"]] == ["passed", "failed", "failed"]
    assert data["tests"][1]["output"] == "wrong values?[31m <&> [bold]x[/bold]?"
    assert data["tests"][2]["output"] == "skipped: not applicable"
    json.dumps(data)


def test_junit_is_valid_xml_with_one_failure_per_failed_test(suite_result):
    root = ET.fromstring(results.junit(suite_result))
    assert root.tag == "testsuite"
    assert (root.get("tests"), root.get("failures"), root.get("skipped"), root.get("errors")) == ("3", "1", "1", "0")
    cases = root.findall("testcase")
    assert [c.get("name") for c in cases] == ["test_ok[a]", "test_wrong", "test_maybe"]
    assert cases[0].find("failure") is None
    assert cases[1].find("failure").get("message") == "wrong values?[31m <&> [bold]x[/bold]?"
    assert cases[2].find("skipped") is not None
    properties = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert properties == {"score": "2", "max_score": "6", "seed": "1234",
                          "sandbox.mode": "isolated", "sandbox.isolated": "true",
                          "sandbox.namespaces": "pid, net", "sandbox.uid": "1500000001",
                          "sandbox.visible": "/usr/lib, /opt/torch", "sandbox.limits.memory_bytes": "2147483648",
                          "sandbox.limits.processes": "256", "sandbox.notes": "", "sandbox.workers": "1"}
    assert root.find("system-out").text == ("the grader's note\n\nprinted by the submission, not by the grader:\n"
                                            f"| hello ?world\n\n{SEED_LINE}")


def test_table_has_points_status_message_and_total(suite_result):
    from rich.console import Console

    console = Console(width=120, record=True, color_system=None)
    console.print(grade_view.table(suite_result))
    text = console.export_text()
    assert "test_wrong" in text and "0/3" in text and "failed" in text
    assert "[bold]x[/bold]" in text  # shown as written, never read as markup
    assert "2/6" in text and "1/3 passed" in text
    assert "\x1b" not in text and "\x07" not in text
    assert "sandbox: isolated · namespaces pid+net · uid 1500000001" in text
    assert " ".join(SEED_LINE.split()) in " ".join(text.split())


UNSAFE = "WARNING: graded with --unsafe-no-sandbox"


def test_unsafe_grading_is_labelled_in_every_format(run_quiz, tmp_path):
    path = write_submission(tmp_path, "import torch\n\ndef softmax(x, dim=-1):\n    return x\n")
    args = ("grade", str(path), "--challenge", "softmax", "--unsafe-no-sandbox")
    code, out, err = run_quiz(*args, "--format", "json")
    assert code == 0 and err.startswith(UNSAFE)
    data = json.loads(out)
    assert data["output"].startswith(UNSAFE) and data["sandbox"]["mode"] == "unsafe"
    assert data["sandbox"]["isolated"] is False
    code, out, _ = run_quiz(*args, "--format", "junit")
    root = ET.fromstring(out)
    assert {p.get("name"): p.get("value") for p in root.iter("property")}["sandbox.isolated"] == "false"
    assert root.find("system-out").text.startswith(UNSAFE)
    code, out, _ = run_quiz(*args)
    assert UNSAFE in " ".join(out.split())


def test_isolated_grading_reports_what_held_in_json(run_quiz, tmp_path):
    if not namespaces_available():
        pytest.skip(NO_SANDBOX)
    path = write_submission(tmp_path, "import torch\n\ndef softmax(x, dim=-1):\n    return x\n")
    code, out, err = run_quiz("grade", str(path), "--challenge", "softmax", "--format", "json")
    assert code == 0, err
    box = json.loads(out)["sandbox"]
    assert box["mode"] == "isolated" and box["isolated"] is True
    assert {"pid", "net", "mnt", "ipc", "uts"} <= set(box["namespaces"])
    assert box["limits"]["memory_bytes"] == 2 * 2**30 and box["limits"]["processes"] >= 256
    assert box["limits"]["open_files"] == 1024 and box["limits"]["file_bytes"] == 64 * 2**20
    assert not any(Path(p).is_relative_to(REPO / "quizforge") for p in box["visible"])
    assert json.loads(out)["tests"][0]["visibility"] == "after_due_date"


def test_grade_json_end_to_end(run_quiz, tmp_path):
    path = write_submission(tmp_path, "import torch\n\ndef softmax(x, dim=-1):\n    return x\n")
    code, out, err = run_quiz("grade", str(path), "--challenge", "softmax", "--format", "json",
                              "--memory-limit", "1GiB")
    assert code == 0, err
    assert "hidden suite" not in err   # no progress on a pipe or with --format json
    data = json.loads(out)
    assert data["score"] < data["max_score"] and data["max_score"] > 0
    assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(data["tests"][0])
    assert any(t["status"] == "failed" and t["output"] for t in data["tests"])


def test_grade_junit_and_table_for_a_syntax_error(run_quiz, tmp_path):
    path = write_submission(tmp_path, "def softmax(x, dim=-1)\n    return x\n")
    code, out, _ = run_quiz("grade", str(path), "--challenge", "softmax", "--format", "junit")
    assert code == 0
    root = ET.fromstring(out)
    assert int(root.get("failures")) == int(root.get("tests")) > 0
    assert root.find("testcase/failure").get("message") == "syntax error: expected ':' (line 1)"
    code, out, err = run_quiz("grade", str(path), "--challenge", "softmax")
    assert (code, out) == (2, "")   # on the terminal: one line, before any grading (issue 34 item 13)
    assert err == f"error: {path}: syntax error: expected ':' (line 1); nothing was graded\n"


@pytest.mark.parametrize("args, message", [
    (["grade", "/no/such/file.py", "--challenge", "softmax"], "error: /no/such/file.py: no such file"),
    (["grade", "{sub}", "--challenge", "nope"], "error: unknown challenge 'nope'"),
    (["grade", "{sub}", "--challenge", "softmax", "--memory-limit", "lots"], "error: cannot read the size 'lots'"),
    (["grade", "{sub}", "--challenge", "softmax", "--memory-limit", "1MiB"], "too small to import torch"),
    (["challenges", "start", "nope"], "error: unknown challenge 'nope'"),
])
def test_usage_errors_are_one_line_and_exit_2(run_quiz, tmp_path, args, message):
    sub = write_submission(tmp_path, "x = 1\n")
    code, out, err = run_quiz(*[a.format(sub=sub) for a in args])
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_hard_linked_file_is_refused_in_one_line_and_exit_2(run_quiz, tmp_path):
    """Nothing shows that a hard link is solutions/softmax.py under another name: `quiz grade FILE`
    refuses it as a class folder does, before anything is graded."""
    solution = write_submission(tmp_path, (REPO / "solutions" / "softmax.py").read_text(), name="solution.py")
    os.link(solution, tmp_path / "mine.py")
    code, out, err = run_quiz("grade", str(tmp_path / "mine.py"), "--challenge", "softmax")
    assert code == 2 and out == ""
    assert err == (f"error: {tmp_path / 'mine.py'} is a hard link (one file with 2 names): refused, since it may be "
                   "a link to a file the student does not own; grade a copy of it\n")


def test_challenges_list_json(run_quiz):
    code, out, _ = run_quiz("challenges", "list", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows] == challenge_ids()
    for row in rows:
        assert row["names"] and row["title"]


@pytest.fixture
def exercises():
    """A real challenge, whose files `quiz challenges start` copies from exercises/<id>/."""
    return "softmax"


def starter_text(challenge_id: str, name: str) -> str:
    return (REPO / "exercises" / challenge_id / name).read_text()


def test_challenges_start_copies_the_three_files_and_says_what_next(run_quiz, tmp_path, exercises, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_quiz("challenges", "start", exercises)
    assert code == 0, err
    for name in challenges_cli.STARTER_FILES:
        assert (tmp_path / exercises / name).read_text() == starter_text(exercises, name)
    assert f"quiz grade starter.py --challenge {exercises}" in out
    code, _, err = run_quiz("challenges", "start", exercises)
    assert err == (f"error: README.md, starter.py, test_public.py already exist in {exercises}/; not overwriting "
                   "(--force replaces them, or choose another folder)\n")
    assert code == 2 and (tmp_path / exercises / "starter.py").read_text() == starter_text(exercises, "starter.py")
    (tmp_path / exercises / "starter.py").write_text("my work")
    code, _, err = run_quiz("challenges", "start", exercises, "--force")
    assert code == 0, err
    assert (tmp_path / exercises / "starter.py").read_text() == starter_text(exercises, "starter.py")
    # Only what a student may see: nothing of meta/ (the hidden suite, the planted bugs).
    assert sorted(p.name for p in (tmp_path / exercises).iterdir()) == sorted(challenges_cli.STARTER_FILES)


def test_challenges_start_into_a_given_folder(run_quiz, tmp_path, exercises):
    target = tmp_path / "mine" / "work"
    code, out, _ = run_quiz("challenges", "start", exercises, str(target))
    assert code == 0 and sorted(p.name for p in target.iterdir()) == sorted(challenges_cli.STARTER_FILES)


def test_a_missing_exercises_folder_is_one_clear_line(tmp_path):
    from quizforge.challenges import exercises_root
    from quizforge.errors import InputError

    package = tmp_path / "site-packages" / "quizforge"
    package.mkdir(parents=True)
    (tmp_path / "site-packages" / "exercises").mkdir()  # someone else's, beside an installed package: not ours
    with pytest.raises(InputError, match=r"^the exercises folder is not at .*/site-packages/quizforge/exercises; "
                                         r"reinstall quizforge$"):
        exercises_root(package)
    (package / "exercises").mkdir()
    assert exercises_root(package) == package / "exercises"  # an installed wheel's


def test_the_real_exercises_folder_is_found_in_the_checkout():
    from quizforge.challenges import exercises_root, load_challenge

    assert exercises_root() == REPO / "exercises"
    assert load_challenge("softmax").folder == REPO / "exercises" / "softmax"
