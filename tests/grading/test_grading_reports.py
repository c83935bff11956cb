"""What a batch writes besides the results: the gradebook, the item analysis, similarity hints."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from quizforge.challenges import load_challenge
from quizforge.grading.batch.gradebook import csv_cell, gradebook_csv
from quizforge.grading.batch.item_analysis import analyse, diagnosis, markdown, message_pattern
from quizforge.grading.batch.similarity import fingerprint, similar_pairs, starter_source
from quizforge.grading.judge.hidden_suite import SuiteResult
from quizforge.grading.judge.hidden_suite import TestResult as Case

REPO = Path(__file__).resolve().parents[2]


def suite(*cases: tuple[str, str, float, float, str], seed: int | None = 7) -> SuiteResult:
    return SuiteResult("softmax", [Case(n, s, p, m, msg) for n, s, p, m, msg in cases], seed=seed)


GRADED = [
    ("ada", suite(("test_a", "passed", 2, 2, ""), ("test_b", "passed", 1, 1, ""))),
    ("=cmd|calc", suite(("test_a", "failed", 0, 2, "wrong at line 12"), ("test_b", "passed", 1, 1, ""))),
    ("cy", suite(("test_a", "failed", 0, 2, "wrong at line 13"), ("test_b", "failed", 0, 1, "timed out"),
                 seed=4294967295)),
]


def test_the_gradebook_has_a_row_per_student_and_a_column_per_test():
    rows = list(csv.reader(io.StringIO(gradebook_csv(GRADED))))
    assert rows[0] == ["student", "score", "max_score", "seed", "test_a", "test_b"]
    assert rows[1] == ["ada", "3", "3", "7", "2", "1"]
    assert rows[3] == ["cy", "0", "3", "4294967295", "0", "0"]


def test_a_cell_is_never_read_as_a_formula():
    rows = list(csv.reader(io.StringIO(gradebook_csv(GRADED))))
    assert rows[2][0] == "'=cmd|calc"
    assert csv_cell("-1+2") == "'-1+2" and csv_cell("a,b") == '"a,b"' and csv_cell(2.5) == "2.5"
    assert csv_cell(-0.5) == "-0.5"  # a number stays a number


def test_item_analysis_gives_pass_rates_and_groups_failures_by_pattern():
    items = {i["test"]: i for i in analyse(GRADED)}
    assert items["test_a"]["pass_rate"] == round(1 / 3, 4)
    assert [(f["diagnosis"], f["count"]) for f in items["test_a"]["failures"]] == [("wrong at line #", 2)]
    assert items["test_a"]["failures"][0]["example"] == "wrong at line 12"   # tie: first seen
    assert items["test_b"]["passed"] == 2 and items["test_b"]["failures"][0]["diagnosis"] == "timed out"
    assert message_pattern("off by 1.5e-3 at  row 2") == "off by # at row #"
    assert "| `test_a` | 33% of 3 | wrong at line # (2×) |" in markdown(analyse(GRADED), "softmax")


def test_a_renamed_and_reformatted_copy_is_flagged_where_it_was_copied():
    original = (REPO / "solutions" / "scaled_dot_product_attention.py").read_text()
    copy = re.sub(r"\bscores\b", "logits", original).replace("weights", "attn")
    copy = "# my own work\n\n\n" + copy.replace("    ", "        ")
    pairs = similar_pairs({"ada": original, "bob": copy})
    assert len(pairs) == 1 and pairs[0]["score"] == 1.0
    assert original.startswith('"""')  # a docstring on line 1, which is not compared
    assert pairs[0]["regions_a"][0][0] > 1 and pairs[0]["regions_a"][-1][1] >= len(original.splitlines()) - 1
    assert pairs[0]["regions_b"][0][0] == pairs[0]["regions_a"][0][0] + 3  # the three added lines


def test_independent_correct_solutions_are_not_flagged():
    sources = {v.name: v.text for v in load_challenge("scaled_dot_product_attention").variants("ok")}
    sources["reference"] = (REPO / "solutions" / "scaled_dot_product_attention.py").read_text()
    assert similar_pairs(sources, starter_source("scaled_dot_product_attention")) == []


def test_the_starter_every_student_got_is_not_evidence():
    starter = starter_source("scaled_dot_product_attention")
    assert starter and len(fingerprint(starter).spans) > 0
    assert similar_pairs({"ada": starter, "bob": starter}, starter) == []


def test_tiny_submissions_are_not_flagged_for_sharing_a_signature():
    stub = "def softmax(x, dim=-1):\n    return x.exp() / x.exp().sum(dim, keepdim=True)\n"
    assert similar_pairs({"ada": stub, "bob": stub.replace("x", "y")}) == []


def test_a_tie_names_the_diagnosis_rather_than_the_bare_exception():
    raised = "softmax(float32[2, 3], dim=-1) raised NotImplementedError: not yet (line 4)"
    overflow = "softmax(float32[2, 3], dim=-1) gives nan for logits of 1000: subtract the row max first"
    graded = [("ada", suite(("test_large", "failed", 0, 2, raised))),
              ("bo", suite(("test_large", "failed", 0, 2, overflow))),
              ("cy", suite(("test_large", "failed", 0, 2, raised.replace("line 4", "line 9")))),
              ("di", suite(("test_large", "failed", 0, 2, overflow.replace("1000", "900"))))]
    failures = analyse(graded)[0]["failures"]
    assert [f["diagnosis"] for f in failures] == [message_pattern(overflow), "raised NotImplementedError"]
    assert [f["count"] for f in failures] == [2, 2] and [f["named"] for f in failures] == [True, False]
    assert failures[1]["example"] in (raised, raised.replace("line 4", "line 9"))   # a real message
    table = markdown(analyse(graded), "softmax")
    assert "| 0% of 4 | softmax(float#\\[#, #\\], dim=#) gives nan for logits of #: subtract the row max first (2×) |" \
        in table
    # more often wins over named
    assert analyse(graded[:3])[0]["failures"][0]["diagnosis"] == "raised NotImplementedError"


def test_failures_are_grouped_by_the_bug_they_name_with_one_real_example_each():
    scale = "attention(float32[2, 4, 8]) differs from the reference by 0.31 — the scores are not divided by sqrt(d_k)"
    axis = "attention(float32[2, 4, 8]) differs from the reference by 0.52 — the softmax runs over the queries"
    graded = [(f"s{i}", suite(("test_values", "failed", 0, 2, message))) for i, message in enumerate(
        [scale, scale.replace("0.31", "0.29"), axis, "attention(float32[2, 4, 8]) raised ValueError: shapes (line 7)",
         "attention(float32[2, 4, 8]) raised ValueError: shapes (line 9)",
         "attention(float32[2, 4, 8]) failed (timeout): ran past 5 s", "some other wording 1", "some other wording 2"])]
    assert diagnosis(scale) == ("the scores are not divided by sqrt(d_k)", True)
    assert diagnosis("f(x) failed (timeout): ran past 5 s") == ("failed (timeout)", False)
    failures = analyse(graded)[0]["failures"]
    assert [(f["diagnosis"], f["count"]) for f in failures] == [
        ("the scores are not divided by sqrt(d_k)", 2), ("some other wording #", 2), ("raised ValueError", 2),
        ("the softmax runs over the queries", 1), ("failed (timeout)", 1)]
    assert failures[0]["example"] in (scale, scale.replace("0.31", "0.29"))
    text = markdown(analyse(graded), "attention")
    assert "## Failures by diagnosis" in text and "### `test_values`: 0% of 8 passed" in text
    assert "- **the scores are not divided by sqrt(d\\_k)** (2×)" in text
    assert "for example: attention(float32\\[2, 4, 8\\]) differs from the reference by 0.3" in text
    assert "- and 2 more in 2 other kinds (item_analysis.json lists them)" in text


def test_an_empty_class_folder_says_there_was_nothing_to_grade(run_quiz, tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    (tmp_path / "class").mkdir()
    code, out, err = run_quiz("grade", "--batch", str(tmp_path / "class"), "--challenge", "softmax")
    assert code == 0, err
    assert out.splitlines()[0] == f"nothing to grade: no submissions in {tmp_path / 'class'}"
    assert "mean" not in out and "0 graded" not in out
    analysis = (tmp_path / "class-grades" / "item_analysis.md").read_text()
    assert analysis == "# Item analysis: softmax\n\nNothing was graded, so there is nothing to analyse.\n"
