"""`quiz grade --batch`: a whole class graded through jobs with zygotes, resumably, and
nothing left running when the batch is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grading_support import NO_SANDBOX, namespaces_available
from signal_support import sigint_as_usual
from quizforge.challenges import load_challenge
from quizforge.grading.batch.driver import find_submissions
from quizforge.grading.sandbox_host.sandbox import descendants

REPO = Path(__file__).resolve().parents[2]
SOFTMAX = load_challenge("softmax")
HANG = "def softmax(x, dim=-1):\n    while True:\n        pass\n"


def test_submissions_are_files_or_folders_named_after_students(tmp_path):
    (tmp_path / "ada.py").write_text("x = 1\n")
    (tmp_path / "bob").mkdir()
    (tmp_path / "bob" / "whatever.py").write_text("x = 1\n")
    (tmp_path / "cy").mkdir()
    (tmp_path / "cy" / "helper.py").write_text("x = 1\n")
    (tmp_path / "cy" / "softmax.py").write_text("x = 1\n")
    (tmp_path / "dee").mkdir()
    (tmp_path / "dee" / "a.py").write_text("x = 1\n")
    (tmp_path / "dee" / "b.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("not a submission")
    (tmp_path / ".hidden.py").write_text("x = 1\n")
    found = {e.student: (e.path.name if e.path else None, e.problem) for e in find_submissions(tmp_path, SOFTMAX)}
    assert found == {"ada": ("ada.py", ""), "bob": ("whatever.py", ""), "cy": ("softmax.py", ""),
                     "dee": (None, "2 .py files and none named softmax.py in dee/")}


def test_a_file_and_a_folder_for_one_student_is_a_problem_not_the_end_of_the_batch(tmp_path):
    (tmp_path / "ada.py").write_text("x = 1\n")
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "softmax.py").write_text("x = 1\n")
    (tmp_path / "bob.py").write_text("x = 1\n")
    found = {(e.student, e.path is None, e.problem) for e in find_submissions(tmp_path, SOFTMAX)}
    assert found == {("ada", True, "two submissions under this name (a file and a folder): keep one"),
                     ("bob", False, "")}


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killing_the_batch_leaves_no_process_behind(tmp_path, how):
    folder = tmp_path / "class"
    folder.mkdir()
    for i in range(4):
        (folder / f"s{i}.py").write_text(HANG)
    driver = subprocess.Popen([sys.executable, "-m", "quizforge", "grade", "--batch", str(folder), "--challenge",
                               "softmax", "--jobs", "2", "-o", str(tmp_path / "out")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO, text=True)
    if not namespaces_available():
        assert driver.wait(120) == 1 and "namespaces" in driver.stderr.read()
        pytest.skip(NO_SANDBOX)
    deadline = time.monotonic() + 60
    tree: list[int] = []
    while time.monotonic() < deadline:
        tree = descendants(driver.pid)
        if sum(_spinning(pid) for pid in tree) >= 2:  # both jobs' workers are in their hanging call
            break
        time.sleep(0.1)
    else:
        driver.kill()
        raise AssertionError("the batch never started grading")
    tree = descendants(driver.pid)
    driver.send_signal(how)
    end = time.monotonic() + 2.0
    alive = tree
    while alive and time.monotonic() < end:
        alive = [pid for pid in tree if _alive(pid)]
        time.sleep(0.05)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    driver.wait(10)
    assert alive == []


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _spinning(pid: int) -> bool:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return False
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return fields[0] == "R" and cpu > 0.5 and b"zygote" in cmdline


def test_a_class_is_graded_end_to_end_and_a_rerun_skips_what_is_done(tmp_path):
    import csv
    import json

    folder = tmp_path / "class"
    folder.mkdir()
    solution = (REPO / "solutions" / "softmax.py").read_text()
    (folder / "ada.py").write_text(solution)
    (folder / "bob.py").write_text(next(v.text for v in load_challenge("softmax").variants("bug")
                                        if v.name == "bug_no_max_shift"))
    (folder / "cy").mkdir()
    (folder / "cy" / "softmax.py").write_text("import os\n\ndef softmax(x, dim=-1):\n    os._exit(3)\n")
    (folder / "dee").mkdir()
    (folder / "eve.py").write_text(solution.replace("def softmax", "def  softmax"))  # ada's, barely changed
    out = tmp_path / "out"
    args = ["grade", "--batch", str(folder), "--challenge", "softmax", "--jobs", "2", "-o", str(out)]
    done = subprocess.run([sys.executable, "-m", "quizforge", *args], capture_output=True, text=True, cwd=REPO,
                          timeout=300)
    if not namespaces_available():
        assert done.returncode == 1 and "namespaces" in done.stderr
        pytest.skip(NO_SANDBOX)
    assert done.returncode == 0, done.stderr
    assert "4 graded (0 from an earlier run), 1 not gradable" in done.stdout
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open())}
    assert set(rows) == {"ada", "bob", "cy", "eve"}
    assert rows["ada"]["score"] == rows["ada"]["max_score"] == "28" and float(rows["bob"]["score"]) < 28
    assert rows["cy"]["score"] == "0"
    result = json.loads((out / "results" / "ada.json").read_text())
    assert result["score"] == 28 and result["sandbox"]["namespaces"][0] == "user"
    assert result["tests"][0]["visibility"] == "after_due_date"
    assert "dee" in (out / "problems.csv").read_text()
    items = json.loads((out / "item_analysis.json").read_text())
    assert len(items) == 14 and all(0 <= i["pass_rate"] <= 1 for i in items)
    pairs = json.loads((out / "similarity.json").read_text())
    assert {(p["a"], p["b"]) for p in pairs} == {("ada", "eve")}
    again = subprocess.run([sys.executable, "-m", "quizforge", *args], capture_output=True, text=True, cwd=REPO,
                           timeout=300)
    assert "4 graded (4 from an earlier run)" in again.stdout
    (folder / "bob.py").write_text(solution)  # a new version is graded again
    again = subprocess.run([sys.executable, "-m", "quizforge", *args], capture_output=True, text=True, cwd=REPO,
                           timeout=300)
    assert "4 graded (3 from an earlier run)" in again.stdout
    assert json.loads((out / "results" / "bob.json").read_text())["score"] == 28


def test_force_grades_everything_again_and_a_terminal_shows_progress_with_an_eta(tmp_path):
    import pexpect

    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("ada", "bob", "cy"):
        (folder / f"{name}.py").write_text((REPO / "solutions" / "softmax.py").read_text())
    out = tmp_path / "out"
    args = ["-m", "quizforge", "grade", "--batch", str(folder), "--challenge", "softmax", "-o", str(out)]
    first = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=REPO, timeout=300)
    if not namespaces_available():
        assert first.returncode == 1
        pytest.skip(NO_SANDBOX)
    assert "3 graded (0 from an earlier run)" in first.stdout
    child = pexpect.spawn(sys.executable, [*args, "--force"], cwd=str(REPO), timeout=120, encoding="utf-8",
                          dimensions=(24, 100))
    child.expect("ETA")
    child.expect(r"3 graded \(0 from an earlier run\)")
    child.expect(pexpect.EOF)


LOOPING_SOFTMAX = "def softmax(x, dim=-1):\n    while True:\n        pass\n"


@pytest.mark.parametrize("batch", [False, True], ids=["one file", "batch"])
def test_ctrl_c_clears_the_spinner_and_says_interrupted(tmp_path, batch):
    import re

    import pexpect

    if not namespaces_available():
        pytest.skip("needs the sandbox")
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "ada.py").write_text(LOOPING_SOFTMAX)
    out = tmp_path / "out"
    target = ["--batch", str(folder), "-o", str(out)] if batch else [str(folder / "ada.py")]
    child = pexpect.spawn(sys.executable, ["-m", "quizforge", "grade", *target, "--challenge", "softmax"],
                          cwd=str(REPO), timeout=60, dimensions=(24, 200), preexec_fn=sigint_as_usual)
    child.expect("grading softmax" if batch else "starting the sandbox")
    time.sleep(1.5)
    child.sendintr()
    child.expect(pexpect.EOF)
    child.close()
    screen = child.before.decode("utf-8", "replace")
    assert child.exitstatus == 130
    said = ("interrupted: 0 submissions graded and kept in " + str(out / "results") if batch
            else "interrupted: nothing was graded")
    assert said in screen
    # the spinner's (or the bar's) last drawing is erased before the line is said
    before = screen[:screen.index("interrupted:")]
    assert before.rstrip("\r\n").endswith("\x1b[2K")
    assert re.search(r"grading (ada|softmax)", screen[screen.index("interrupted:"):]) is None
