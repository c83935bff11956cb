"""A class folder is hostile input (issue #20, items 9-12 and 15): links, names, sizes and
bytes that would make `quiz grade --batch` or Gradescope's run_autograder read what it must
not, stop, or draw on the instructor's terminal. One batch, through the real CLI and the
real sandbox, is shared by most tests here."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from grading_support import namespaces_available

REPO = Path(__file__).resolve().parents[2]
SOLUTION = (REPO / "solutions" / "softmax.py").read_text()
LONG_NAME = "x" * 250
# A folder name that would be an image and a link in Markdown, and a column break.
HTML_NAME = "<img src=x onerror=alert(1)>|[a](javascript:alert(1))"
# A failure message that clears and redraws a terminal, and hides text behind an RTL override.
HOSTILE_MESSAGE = ("\\x1bc\\x1b[2J\\x1b[10;10H\\x9b31m <img src=x onerror=alert(1)> [click](javascript:alert(1)) "
                   "`code` | pipe \\u202eevil")
ESCAPES = f"import torch\n\n\ndef softmax(x, dim=-1):\n    raise ValueError(\"{HOSTILE_MESSAGE}\")\n"


def _quiz(*args: str, timeout: float = 300, columns: int | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, COLUMNS=str(columns)) if columns else None
    return subprocess.run([sys.executable, "-m", "quizforge", *args], capture_output=True, cwd=REPO,
                          timeout=timeout, env=env)


def _class_folder(folder: Path) -> None:
    """Every kind of hostile entry, beside honest ones. Whatever must not be read holds the
    solution: had it been followed or read, it would score full marks or pair with ada."""
    folder.mkdir()
    (folder / "ada.py").write_text(SOLUTION)
    (folder / "linked_solution.py").symlink_to(REPO / "solutions" / "softmax.py")
    (folder / "linked_reference.py").symlink_to(REPO / "quizforge" / "reference" / "attention.py")
    (folder / "linked_folder").symlink_to(REPO / "solutions")
    (folder / "carl").mkdir()
    (folder / "carl" / "softmax.py").symlink_to(REPO / "solutions" / "softmax.py")
    # Hard links look like any file: to the instructor's copy of the solution, beside the class.
    (folder.parent / "solutions").mkdir()
    (folder.parent / "solutions" / "softmax.py").write_text(SOLUTION)
    os.link(folder.parent / "solutions" / "softmax.py", folder / "hardlinked.py")
    (folder / "dora").mkdir()
    os.link(folder.parent / "solutions" / "softmax.py", folder / "dora" / "softmax.py")
    (folder / LONG_NAME).mkdir()
    (folder / LONG_NAME / "softmax.py").write_text(SOLUTION)
    (folder / HTML_NAME).mkdir()
    (folder / HTML_NAME / "softmax.py").write_text(SOLUTION)
    bad = os.fsencode(folder) + b"/bad\xff"
    os.mkdir(bad)
    with open(bad + b"/softmax.py", "w") as f:
        f.write(SOLUTION)
    (folder / "rtl\u202eyp.py").write_text(SOLUTION)
    (folder / "big.py").write_text(SOLUTION * (10 * 2**20 // len(SOLUTION) + 1))  # 10 MB
    (folder / "binary.py").write_bytes(SOLUTION.encode() + b"\0\1\2")
    os.mkfifo(folder / "fifo.py")  # would hang a reader that waits for a writer
    (folder / "esc.py").write_text(ESCAPES)
    (folder / "=HYPERLINK(1).py").write_text(ESCAPES)  # twice: the commonest failure, shown in the .md


@pytest.fixture(scope="module")
def batch(tmp_path_factory):
    """The class graded once, then again (a re-run must not crash where the first did not)."""
    root = tmp_path_factory.mktemp("class_folder")
    folder = root / "class"
    _class_folder(folder)
    out = folder / "grades"  # inside the submissions: passed over, and said so
    args = ["grade", "--batch", str(folder), "--challenge", "softmax", "-o", str(out)]
    first = _quiz(*args)
    again = _quiz(*args) if first.returncode == 0 else None
    return folder, out, first, again


def _needs_sandbox(done: subprocess.CompletedProcess) -> None:
    if not namespaces_available():
        assert done.returncode == 1 and b"namespaces" in done.stderr
        pytest.skip("no namespaces here: the batch refuses, as it must")


def _problems(out: Path) -> dict[str, str]:
    return {row["student"]: row["problem"] for row in csv.DictReader((out / "problems.csv").open(encoding="utf-8"))}


def test_the_batch_grades_the_honest_and_lists_every_hostile_entry_once(batch):
    folder, out, first, again = batch
    _needs_sandbox(first)
    assert first.returncode == 0, first.stderr.decode()
    stdout = first.stdout.decode()
    assert "5 graded (0 from an earlier run), 11 not gradable" in stdout
    assert "skipped grades: the output folder, not a student" in stdout
    rows = {r["student"]: r for r in csv.DictReader((out / "gradebook.csv").open(encoding="utf-8"))}
    assert {s: r["score"] for s, r in rows.items()} == {
        "ada": "28", LONG_NAME: "28", HTML_NAME: "28", "esc": "0", "'=HYPERLINK(1)": "0"}
    problems = _problems(out)
    link = "is a symbolic link: hand in the file"
    assert set(problems) == {"linked_solution", "linked_reference", "linked_folder", "carl", "hardlinked", "dora",
                             "bad\\xff", "rtl\\u202eyp", "big", "binary", "fifo"}
    for student in ("linked_solution", "linked_reference", "linked_folder"):
        assert link in problems[student]
    assert problems["carl"] == "carl/softmax.py is a symbolic link: hand in the file itself"
    hard_link = ("is a hard link (one file with 3 names): refused, since it may be a link to a file the student "
                 "does not own; hand in a copy")
    assert problems["hardlinked"] == f"hardlinked.py {hard_link}"
    assert problems["dora"] == f"dora/softmax.py {hard_link}"
    assert problems["bad\\xff"] == "its name is not valid UTF-8: rename it"
    assert problems["rtl\\u202eyp"] == "its name holds control or bidi-override characters: rename it"
    assert problems["big"] == "the file is 10.0 MiB; a submission may be at most 1 MiB"
    assert problems["binary"] == "a binary file (it holds NUL bytes), not Python source"
    assert problems["fifo"] == "fifo.py is not a regular file"


def test_result_files_have_short_safe_names_and_the_gradebook_the_original(batch):
    folder, out, first, _ = batch
    _needs_sandbox(first)
    names = sorted(p.name for p in (out / "results").iterdir())
    assert len(names) == 5 and "ada.json" in names and "esc.json" in names
    assert all(len(n) <= 64 and all(c.isalnum() or c in "._-~" for c in n) for n in names), names
    long_file = next(n for n in names if n.startswith("xxxx"))
    assert long_file.startswith("x" * 40 + "~")
    stored = json.loads((out / "results" / long_file).read_text())
    assert stored["quizforge"]["student"] == LONG_NAME and stored["score"] == 28
    html_file = next(n for n in names if n.startswith("img"))
    assert json.loads((out / "results" / html_file).read_text())["quizforge"]["student"] == HTML_NAME


def test_a_rerun_reuses_every_result_and_writes_the_reports_again(batch):
    folder, out, first, again = batch
    _needs_sandbox(first)
    assert again.returncode == 0, again.stderr.decode()
    assert "5 graded (5 from an earlier run), 11 not gradable" in again.stdout.decode()
    assert len(_problems(out)) == 11


def test_nothing_refused_is_read_for_similarity(batch):
    """big.py, binary.py and the links (symbolic and hard) all hold the solution: read, any of
    them would pair with ada."""
    folder, out, first, _ = batch
    _needs_sandbox(first)
    pairs = json.loads((out / "similarity.json").read_text())
    assert {frozenset((p["a"], p["b"])) for p in pairs} == {
        frozenset(("ada", LONG_NAME)), frozenset(("ada", HTML_NAME)), frozenset((LONG_NAME, HTML_NAME))}


def test_reports_carry_no_escape_sequence_bidi_override_or_markup(batch):
    folder, out, first, _ = batch
    _needs_sandbox(first)
    analysis = (out / "item_analysis.md").read_text(encoding="utf-8")
    assert "ValueError: ?c?\\[2J?\\[10;10H?31m &lt;img src=x onerror=alert(1)&gt; \\[click\\](javascript:alert(1))" \
        in analysis
    assert "\\`code\\` \\| pipe ?evil" in analysis
    similarity = (out / "similarity.md").read_text(encoding="utf-8")
    assert "| &lt;img src=x onerror=alert(1)&gt;\\|\\[a\\](javascript:alert(1)) |" in similarity
    for text in (analysis, similarity, (out / "item_analysis.json").read_text(encoding="utf-8"),
                 (out / "problems.csv").read_text(encoding="utf-8"), (out / "gradebook.csv").read_text("utf-8"),
                 first.stdout.decode(), first.stderr.decode()):
        assert not any(c in text for c in "\x1b\x9b\u202e\r"), text[:300]
    for report in (analysis, similarity):  # no tag, and no "[" or "`" Markdown would read as syntax
        assert "<img" not in report and not re.search(r"(?<!\\)[\[`]", re.sub(r"`test_[^`|]*`", "", report))
    for item in json.loads((out / "item_analysis.json").read_text()):
        for failure in item["failures"]:
            for text in (failure["diagnosis"], failure["example"]):
                assert "\x1b" not in text and "\u202e" not in text


def test_the_terminal_table_shows_no_escape_sequence_or_bidi_override(tmp_path):
    path = tmp_path / "esc.py"
    path.write_text(ESCAPES)
    # Wide enough that the message is one line of its cell, so the inert text reads in one piece.
    done = _quiz("grade", str(path), "--challenge", "softmax", columns=250)
    _needs_sandbox(done)
    assert done.returncode == 0
    table = done.stdout.decode()
    assert "?c?[2J?[10;10H?31m <img" in table  # shown, inert
    assert not any(c in table for c in "\x1b\x9b\u202e\r")


# --- -o: checked before anything is graded --------------------------------------------------

def test_an_output_path_that_is_a_file_is_one_line_and_exit_2(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "gina.py").write_text(SOLUTION)
    started = time.monotonic()
    done = _quiz("grade", "--batch", str(folder), "--challenge", "softmax", "-o", str(folder / "gina.py"))
    assert done.returncode == 2 and done.stdout == b""
    assert done.stderr.decode() == f"error: --output: {folder / 'gina.py'} exists and is not a folder\n"
    assert time.monotonic() - started < 20  # refused up front: nothing was graded (a grading takes a zygote)


def test_an_output_folder_whose_parent_is_missing_is_refused_and_not_created(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    (folder / "gina.py").write_text(SOLUTION)
    done = _quiz("grade", "--batch", str(folder), "--challenge", "softmax", "-o", str(tmp_path / "no" / "out"))
    assert done.returncode == 2
    assert done.stderr.decode() == f"error: --output: {tmp_path / 'no'} does not exist: create it first, " \
                                   "or choose another output folder\n"
    assert not (tmp_path / "no").exists()


def test_the_submissions_folder_itself_cannot_be_the_output(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    done = _quiz("grade", "--batch", str(folder), "--challenge", "softmax", "-o", str(folder))
    assert done.returncode == 2 and "is the submissions folder itself" in done.stderr.decode()
    assert done.stderr.count(b"\n") == 1
    (folder / "gina").mkdir()  # a student's folder: an output inside it would hide her
    done = _quiz("grade", "--batch", str(folder), "--challenge", "softmax", "-o", str(folder / "gina" / "out"))
    assert done.returncode == 2 and "which could be a student's" in done.stderr.decode()


@pytest.mark.parametrize("where, message", [
    ("nonexistent/x.zip", "does not exist: create it first (no folder is created for you)"),
    (".", "is a folder: give the file's name"),
])
def test_export_gradescope_refuses_a_bad_output_path(tmp_path, run_quiz, where, message):
    code, out, err = run_quiz("export", "gradescope", "softmax", "-o", str(tmp_path / where))
    assert code == 2 and message in err and err.count("\n") == 1
    assert not (tmp_path / "nonexistent").exists()


def test_export_github_classroom_refuses_a_bad_output_path(tmp_path, run_quiz):
    (tmp_path / "file").write_text("")
    code, _, err = run_quiz("export", "github-classroom", "softmax", "-o", str(tmp_path / "file"))
    assert code == 2 and err == f"error: --output: {tmp_path / 'file'} exists and is not a folder\n"
    code, _, err = run_quiz("export", "github-classroom", "softmax", "-o", str(tmp_path / "no" / "repo"))
    assert code == 2 and "does not exist: create it first" in err and not (tmp_path / "no").exists()


# --- Gradescope's run_autograder: the same rules -------------------------------------------

@pytest.fixture(scope="module")
def autograder(tmp_path_factory):
    from quizforge.challenges import load_challenge
    from quizforge.grading.exports.course_platforms import gradescope_zip

    root = tmp_path_factory.mktemp("autograder")
    with zipfile.ZipFile(gradescope_zip(load_challenge("softmax"), root / "autograder.zip")) as archive:
        archive.extractall(root / "source")
    return root


def _run_autograder(root: Path, fill) -> dict:
    import shutil

    shutil.rmtree(root / "submission", ignore_errors=True)
    (root / "submission").mkdir()
    fill(root / "submission")
    env = dict(os.environ, QUIZFORGE_AUTOGRADER_ROOT=str(root), QUIZFORGE_PYTHON=sys.executable)
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads((root / "results" / "results.json").read_text())


def _linked_file(folder: Path) -> None:
    (folder / "softmax.py").symlink_to(REPO / "quizforge" / "reference" / "attention.py")


def _linked_solution(folder: Path) -> None:
    (folder / "softmax.py").symlink_to(REPO / "solutions" / "softmax.py")


def _linked_folder(folder: Path) -> None:
    (folder / "work").symlink_to(REPO / "solutions")


def _hard_link(folder: Path) -> None:
    """An upload that is another name for the instructor's own copy of the solution."""
    (folder.parent / "solution.py").write_text(SOLUTION)
    os.link(folder.parent / "solution.py", folder / "softmax.py")


def _oversize(folder: Path) -> None:
    (folder / "softmax.py").write_text(SOLUTION * (10 * 2**20 // len(SOLUTION) + 1))


def _binary(folder: Path) -> None:
    (folder / "softmax.py").write_bytes(SOLUTION.encode() + b"\0")


@pytest.mark.parametrize("fill, reason", [
    (_linked_file, "Not graded: softmax.py is a symbolic link: upload the file itself."),
    (_linked_solution, "Not graded: softmax.py is a symbolic link: upload the file itself."),
    (_linked_folder, "Not graded: work is a symbolic link: upload the file itself."),
    (_hard_link, "Not graded: softmax.py is a hard link (one file with 2 names): refused, since it may be a link "
                 "to a file the student does not own; hand in a copy."),
    (_oversize, "Not graded: the file is 10.0 MiB; a submission may be at most 1 MiB."),
    (_binary, "Not graded: a binary file (it holds NUL bytes), not Python source."),
], ids=["link-to-reference", "link-to-solution", "linked-folder", "hard-link", "oversize", "binary"])
def test_run_autograder_refuses_what_a_batch_refuses(autograder, fill, reason):
    results = _run_autograder(autograder, fill)
    assert results["score"] == 0 and results["tests"] == [] and results["output"] == reason


def test_run_autograder_still_grades_a_file_in_a_subfolder(autograder):
    def nested(folder: Path) -> None:
        (folder / "src").mkdir()
        (folder / "src" / "softmax.py").write_text(SOLUTION)

    results = _run_autograder(autograder, nested)
    assert results["score"] == (28 if namespaces_available() else 0)


# --- the shared sanitiser, on its own -------------------------------------------------------

def test_text_safety_covers_every_bidi_control_and_c1():
    from quizforge.grading.intake.text_safety import markdown_text, plain, visible_name

    bidi = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
    assert plain(f"a{bidi}\x85\x9b\x1b\x07b\r\nc\rd\te") == "a" + "?" * 16 + "b\nc?d\te"
    assert markdown_text('a|b <x> [l](u) ![i](j) `c` *e* _f_ \\ ~~s~~ & "q"') == \
        "a\\|b &lt;x&gt; \\[l\\](u) !\\[i\\](j) \\`c\\` \\*e\\* \\_f\\_ \\\\ \\~\\~s\\~\\~ &amp; &quot;q&quot;"
    assert visible_name("a\udcffb\u202ec\x1b") == "a\\xffb\\u202ec\\x1b"
    assert io.StringIO(markdown_text("two\nlines")).read() == "two lines"
