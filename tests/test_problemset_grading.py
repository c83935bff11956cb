"""Keys and grading of instructor problem sets (issue 21, items 14 to 19 and overrides)."""

from __future__ import annotations

import csv
import io
import json
from decimal import Context, Decimal
from fractions import Fraction
from pathlib import Path

import pytest

from quizforge.bank import registry
from quizforge.bank.registry import question as regenerate
from quizforge.bank.grading import grade, numeric_key

NAT_TEMPLATES = [t for t in registry.all_templates() if t.kind == "NAT"]


def _decimal_text(x: Fraction) -> str:
    """x in e-notation to 200 significant digits (exact for the decimals these tests make)."""
    return format(Context(prec=200).divide(Decimal(x.numerator), Decimal(x.denominator)), "e")


def _just_outside(low: Fraction, high: Fraction) -> tuple[Fraction, Fraction]:
    nudge = (high - low) / 10**6 if high > low else max(abs(low), Fraction(1)) / 10**9
    return low - nudge, high + nudge


@pytest.mark.parametrize("template", NAT_TEMPLATES, ids=[t.id for t in NAT_TEMPLATES])
def test_the_printed_range_ends_are_exactly_what_is_accepted(template):
    for seed in range(50):
        q = template.question(seed)
        key = numeric_key(q)
        printed = key.range_text()
        ends = printed.split(" to ") if " to " in printed else [printed, printed]
        for end in ends:
            assert grade(q, end).correct, (q.id, printed, end)
        low, high = (key.parse(end) for end in ends)
        below, above = _just_outside(Fraction(low), Fraction(high))
        for outside in (below, above):
            text = _decimal_text(outside)
            assert not grade(q, text).correct, (q.id, printed, text)


def test_a_one_percent_range_around_a_float_key_is_read_as_its_decimals():
    q = registry.question("flops.training-a477")
    assert numeric_key(q).range_text() == "1.0395e24 to 1.0605e24"
    assert grade(q, "1.0395e24").correct and grade(q, "1.0605e24").correct
    assert not grade(q, "1.03949e24").correct and not grade(q, "1.06051e24").correct


REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "quiz1.toml"
ROSTER = REPO / "examples" / "roster.csv"


def _spec(tmp_path: Path, templates: list[str], extra: str = "") -> Path:
    path = tmp_path / "spec.toml"
    path.write_text(f'title = "t"\nseed = 7\n{extra}\n[[sections]]\ntemplates = {json.dumps(templates)}\n'
                    f"count = {len(templates)}\n", encoding="utf-8")
    return path


def test_keys_csv_keeps_negative_numbers_numeric_and_guards_only_formulas(run_quiz, tmp_path):
    spec = _spec(tmp_path, ["attention.score", "softmax.masked_positions"])
    code, _, err = run_quiz("set", "make", str(spec), "--variants", "8", "--no-pdf", "-o", str(tmp_path / "s"))
    assert code == 0, err
    text = (tmp_path / "s" / "keys.csv").read_text(encoding="utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    nat = [r for r in rows if r["kind"] == "NAT"]
    negative = [r for r in nat if r["key"].startswith("-")]
    assert negative, "the seeds should give at least one negative score"
    for r in nat:
        float(r["key"]), float(r["low"]), float(r["high"])         # numbers, not text
        q = regenerate(r["question_id"])
        assert grade(q, r["low"]).correct and grade(q, r["high"]).correct
        assert f"{r['low']} to {r['high']}" == r["accepted"].removeprefix("'").replace(",", "")
    for r in negative:   # written bare: a spreadsheet reads a number
        assert f",NAT,{r['key']},'{r['low']} to {r['high']},{r['low']},{r['high']}," in text
    from quizforge.problemsets.keys import spreadsheet_cell

    assert spreadsheet_cell("-0.58") == "-0.58" and spreadsheet_cell("-1,234.5") == '"-1,234.5"'
    assert spreadsheet_cell("=HYPERLINK(1)") == "'=HYPERLINK(1)" and spreadsheet_cell("-0.5 to -0.4") == "'-0.5 to -0.4"
    assert spreadsheet_cell("@SUM(A1)") == "'@SUM(A1)" and spreadsheet_cell(-0.5) == "-0.5"
