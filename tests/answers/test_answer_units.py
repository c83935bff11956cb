"""Issue 22 item 2 and the README's "Answers can be written the way people write them":
every form it lists, typed into `quiz check` (click's CliRunner), graded as it says."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from quizforge.cli import cli


def check(question_id: str, *words: str) -> dict:
    result = CliRunner().invoke(cli, ["check", question_id, *words, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture
def refused(run_quiz):
    """The one-line error `quiz` prints (exit status 2) for an answer it will not judge."""
    def run(question_id: str, *words: str) -> str:
        code, out, err = run_quiz("check", question_id, *words)
        assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), (out, err)
        return err
    return run


@pytest.mark.parametrize("qid,text", [
    ("params.projections-002a", "1,048,576"), ("params.projections-002a", "1_048_576"),
    ("params.projections-002a", "1 048 576"),                    # 4·512²
    ("flops.training-0000", "3.15e22"), ("flops.training-0000", "31.5e21 FLOPs"),
    ("positional.pe_value-0007", "-0.737"), ("params.rule_of_thumb-000a", "3/4"),
    ("params.projections-0002", "4*512^2 + 4*512"), ("flops.rnn_vs_attention-001d", "4x"),
    ("memory.kv_cache-0004", "1.25 GiB"), ("memory.kv_cache-0004", "1280 MiB"),
    ("flops.qk-0000", "25165824 FLOPs"),
])
def test_each_plain_form_in_the_readme_is_accepted(qid, text):
    verdict = check(qid, text)
    assert verdict["correct"] is True and verdict["given"] == text


@pytest.mark.parametrize("text", ["4.8 days", "4.8day", "4.8days", "4.8 d", "115.2 hours", "115.2 h", "6912 min",
                                  "414720 s", "(4.8/7) weeks", "4.8"])
def test_durations_convert_between_units_of_one_kind(text):
    verdict = check("flops.training_days-0007", text)          # 4.8 days
    assert verdict["answer"] == "4.8 days" and verdict["correct"] is True, (text, verdict)
    assert verdict["read_as"] == "4.8"


def test_a_bare_number_of_hours_in_a_days_question_is_named_as_hours(refused):
    verdict = check("flops.training_days-0007", "115.2")
    assert verdict["correct"] is False and verdict["misconception"]["tag"] == "hours-not-days"
    assert "in hours" in verdict["feedback"]
    out = refused("flops.training_days-0007", "4.8 GiB")
    assert "not expected here" in out and "duration" in out


def test_the_original_transformer_counts_in_millions_take_every_writing():
    qid = "params.transformer_paper-0001"                       # 25,224,192 → 25.224 million
    for text in ("25.224", "25.224M", "25.224 million", "25,224,192", "25224192", "25.224e6", "25.224 mn",
                 "25,224,192 parameters"):
        verdict = check(qid, text)
        assert verdict["correct"] is True and verdict["answer"] == "25.224 million", text
    assert "25.224192" == check(qid, "25,224,192")["read_as"]


def test_the_instruction_names_the_unit():
    result = CliRunner().invoke(cli, ["ask", "params.transformer_paper-0001", "--json"])
    assert json.loads(result.output)["instruction"] == "Enter a number in millions rounded to 3 decimal places."
    assert json.loads(result.output)["unit"] == "millions"


def test_a_raw_count_in_a_billions_question_is_read_as_the_count():
    qid = "params.rule_of_thumb-0001"                           # 12·16·8064² = 12,485,640,192 → 12.49 billion
    for text in ("1.249e10", "12,490,000,000", "12.49B", "12.49 billion", "12.49 billions", "12.49 bn"):
        verdict = check(qid, text)
        assert verdict["correct"] is True and verdict["answer"] == "12.49 billion", text
    wrong = check(qid, "1.26e10")
    assert wrong["correct"] is False and wrong["read_as"] == "12.6"
    assert "The question asks for billions: 1.26e10 is 12.6 billion." in wrong["feedback"]
    assert "question asks for billions" not in check(qid, "12.6")["feedback"]     # already in billions


@pytest.mark.parametrize("qid,text", [
    ("params.projections-002a", "1048576 params"), ("params.projections-002a", "1,048,576 parameters"),
    ("flops.training-0000", "31.5 ZFLOPs"),                           # 3.15e22 FLOPs
    ("params.rule_of_thumb-0001", "12.49 bn"), ("params.transformer_paper-0001", "25.224 mn"),
    ("memory.kv_reduction-0001", "{factor}:1"),
])
def test_the_forms_people_type_are_accepted(qid, text):
    """Issue 33 item 9, through `quiz check`: nouns after a count, ZFLOPs, bn and mn, a ratio a:b."""
    if "{factor}" in text:
        from quizforge.bank import registry

        text = text.format(factor=registry.question(qid).answer)
    verdict = check(qid, text)
    assert verdict["correct"] is True and verdict["given"] == text, verdict


def test_a_ratio_written_with_a_colon_is_read_as_the_quotient_and_refused_elsewhere(refused):
    from quizforge.bank import registry

    factor = registry.question("memory.kv_reduction-0001").answer
    assert check("memory.kv_reduction-0001", f"{2 * factor}:2")["correct"] is True
    assert check("memory.kv_reduction-0001", f"1:{factor}")["correct"] is False       # the inverted ratio
    assert "divides by zero" in refused("memory.kv_reduction-0001", "4:0")
    assert "unexpected ':'" in refused("params.projections-002a", "4:1")


def test_a_matrix_typed_one_row_per_argument_is_read_row_by_row():
    from quizforge.bank import registry

    q = registry.question("matrices.causal_mask-0003")             # 2×4: the last 2 of 4 positions
    rows = [" ".join(str(x) for x in row) for row in q.answer]
    assert check(q.id, *rows)["correct"] is True
    wrong = [rows[0], rows[0]]
    verdict = check(q.id, *wrong)
    assert verdict["correct"] is False and "(2,4)" in verdict["feedback"]


def test_json_goes_anywhere_even_after_the_double_dash(refused):
    for words in (["--", "-0.737", "--json"], ["--json", "--", "-0.737"], ["-0.737", "--json"]):
        result = CliRunner().invoke(cli, ["check", "positional.pe_value-0007", *words])
        assert result.exit_code == 0 and json.loads(result.output)["correct"] is True, words
    assert "no answer given" in refused("positional.pe_value-0007", "--", "--json")


def test_an_answer_in_several_words_is_read_whole():
    assert check("params.projections-002a", "1", "048", "576")["correct"] is True


def test_too_coarse_short_forms_are_refused_where_the_question_asks_for_exactness(refused):
    for text in ("6.55M", "6.55e6", "6.55 million"):
        assert "gives only 3 significant figures; this question needs the exact value" in refused("params.projections-7f3a", text)
    assert "needs an answer within 1.0%" in refused("flops.training-0000", "3.2e22")


def test_read_as_is_a_decimal_never_a_fraction():
    verdict = check("memory.kv_cache-0004", "500 MB")             # 500e6 / 2^30 GiB = 1,953,125/4,194,304
    assert verdict["read_as"] == "0.465661287308" and "/" not in json.dumps(verdict)


def test_durations_in_the_parser_and_what_it_refuses():
    from fractions import Fraction

    from quizforge.answers import AnswerError, parse_number

    day = 86400
    assert parse_number("4.8 d", "time", scale=day) == Fraction(24, 5)
    assert parse_number("1 w + 12 h", "time", scale=day) == Fraction(15, 2)
    assert parse_number("90 min", "time", scale=3600) == Fraction(3, 2)
    with pytest.raises(AnswerError, match="could not read 'm' at position 3 as a unit: give a duration"):
        parse_number("5 m", "time", scale=day)           # minutes or months: not guessed
    with pytest.raises(AnswerError, match="units 'GiB' are not expected here: give a duration"):
        parse_number("4.8 GiB", "time", scale=day)
