import ast
import subprocess
import sys
import time
from decimal import Decimal
from fractions import Fraction as F
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import quizforge.answers as answers
from quizforge.answers import (
    AnswerError,
    Checked,
    ChoiceKey,
    NumericKey,
    check_choice,
    check_numeric,
    exact,
    format_choice,
    format_number,
    gate_score,
    gate_score_exact,
    in_range,
    nat_range,
    parse_choice,
    parse_number,
    round_half_away,
    si_short,
    within_abs,
    within_rel,
)
from quizforge.answers.matrix_questions import matches, read_any_shape
from quizforge.errors import InputError

GiB = 2**30


# =============================================================================== accepted writings

@pytest.mark.parametrize(
    "text, unit, expected",
    [
        # integers and digit grouping
        ("1048576", None, F(1048576)),
        ("1,048,576", None, F(1048576)),
        ("1_048_576", None, F(1048576)),
        ("1 048 576", None, F(1048576)),
        ("1\u2009048\u2009576", None, F(1048576)),        # thin spaces
        ("1\u202f048\u202f576", None, F(1048576)),        # narrow no-break spaces
        ("10,48,576", None, F(1048576)),                   # Indian grouping
        ("1,00,000", None, F(100000)),
        ("12,34,56,789", None, F(123456789)),
        ("  -1,024 ", None, F(-1024)),
        ("2^20", None, F(1048576)),
        ("2**20", None, F(1048576)),
        ("2²⁰", None, F(1048576)),
        ("1.048576e6", None, F(1048576)),
        ("1.048576M", "count", F(1048576)),
        # decimals and scientific notation
        ("0.125", None, F(1, 8)),
        (".125", None, F(1, 8)),
        ("1/8", None, F(1, 8)),
        ("125e-3", None, F(1, 8)),
        (".5", None, F(1, 2)),
        ("-2.", None, F(-2)),
        ("\u22122.5", None, F(-5, 2)),                     # '−' (U+2212)
        ("3.2e9", None, F(3_200_000_000)),
        ("3.2E+9", None, F(3_200_000_000)),
        ("1E-3", None, F(1, 1000)),
        ("3.2×10^9", None, F(3_200_000_000)),
        ("3.2 x 10^9", None, F(3_200_000_000)),
        ("3.2x10^9", None, F(3_200_000_000)),
        ("3.2*10^9", None, F(3_200_000_000)),
        ("3.2·10⁹", None, F(3_200_000_000)),
        ("10⁻³", None, F(1, 1000)),
        # fractions
        ("3/4", None, F(3, 4)),
        ("-1/8", None, F(-1, 8)),
        ("6/8", None, F(3, 4)),
        ("0.75", None, F(3, 4)),
        ("(3)/(4)", None, F(3, 4)),
        ("3 ÷ 4", None, F(3, 4)),
        # arithmetic
        ("4*512^2 + 4*512", None, F(1050624)),
        ("4*512**2+4*512", None, F(1050624)),
        ("4 × 512² + 4 × 512", None, F(1050624)),
        ("2*1024**2*512", None, F(1073741824)),
        ("(512/8)", None, F(64)),
        ("512/8", None, F(64)),
        ("-2^2", None, F(-4)),                             # power binds tighter than the sign
        ("(-2)^2", None, F(4)),
        ("2^-1", None, F(1, 2)),
        ("2^3^2", None, F(512)),                           # right-associative
        ("2**3**2", None, F(512)),
        ("-(-3)", None, F(3)),
        ("1 - 2 - 3", None, F(-4)),
        ("12/3/2", None, F(2)),
        ("sqrt(64)", None, F(8)),
        ("sqrt(9/16)", None, F(3, 4)),
        ("log2(1024)", None, F(10)),
        ("log2(1/8)", None, F(-3)),
        ("log10(1000)", None, F(3)),
        ("log10(0.01)", None, F(-2)),
        ("4^(1/2)", None, F(2)),
        ("8^(2/3)", None, F(4)),
        ("1e30", None, F(10) ** 30),                       # the magnitude limit itself is fine
        # counts
        ("175B", "count", F(175 * 10**9)),
        ("175 B", "count", F(175 * 10**9)),
        ("175G", "count", F(175 * 10**9)),
        ("1.05M", "count", F(1_050_000)),
        ("12k", "count", F(12_000)),
        ("12K", "count", F(12_000)),
        ("1.2T", "count", F(1_200_000_000_000)),
        ("7 billion", "count", F(7 * 10**9)),
        ("3 lakh", "count", F(300_000)),
        ("2 crore", "count", F(20_000_000)),
        ("1 + 2K", "count", F(2001)),                      # a suffix scales the number before it
        ("(1+2)K", "count", F(3000)),
        ("6*175B", "count", F(1050 * 10**9)),
        ("1048576", "count", F(1048576)),
        # bytes: B is a byte here, not a billion
        ("1.25 GiB", "bytes", F(1342177280)),
        ("1.25GiB", "bytes", F(1342177280)),
        ("1280 MiB", "bytes", F(1342177280)),
        ("1342177280", "bytes", F(1342177280)),           # a bare number is bytes
        ("1,342,177,280 B", "bytes", F(1342177280)),
        ("1342177280 bytes", "bytes", F(1342177280)),
        ("512 MB", "bytes", F(512 * 10**6)),
        ("512 kB", "bytes", F(512_000)),
        ("512 KB", "bytes", F(512_000)),
        ("4 KiB", "bytes", F(4096)),
        ("2 TiB", "bytes", F(2 * 2**40)),
        ("1.5 TB", "bytes", F(1_500_000_000_000)),
        ("175B", "bytes", F(175)),
        ("2^30 B", "bytes", F(GiB)),
        ("1 GiB + 512 MiB", "bytes", F(3 * 2**29)),
        ("2*1024**2*512 B", "bytes", F(1073741824)),
        # FLOPs
        ("1.2e15 FLOPs", "flops", F(1_200_000_000_000_000)),
        ("1.2 PFLOP", "flops", F(1_200_000_000_000_000)),
        ("1.2 PFLOPs", "flops", F(1_200_000_000_000_000)),
        ("1200 TFLOPs", "flops", F(1_200_000_000_000_000)),
        ("1.2e6 GFLOPs", "flops", F(1_200_000_000_000_000)),
        ("350 GFLOPS", "flops", F(350 * 10**9)),
        ("3 MFLOP", "flops", F(3_000_000)),
        ("1.2P", "flops", F(1_200_000_000_000_000)),
        ("175B", "flops", F(175 * 10**9)),
        ("175B FLOPs", "flops", F(175 * 10**9)),
        ("6*2*175B", "flops", F(2100 * 10**9)),
        ("42 flops", "flops", F(42)),
        ("42", "flops", F(42)),
    ],
)
def test_number_writings(text, unit, expected):
    got = parse_number(text, unit)
    assert got == expected
    assert type(got) is F


def test_functions_fall_back_to_floats_only_when_inexact():
    assert parse_number("sqrt(2)") == pytest.approx(2**0.5)
    assert type(parse_number("sqrt(2)")) is float
    assert parse_number("ln(2)") == pytest.approx(0.6931471805599453)
    assert parse_number("exp(1)") == pytest.approx(2.718281828459045)
    assert parse_number("2^0.5") == pytest.approx(2**0.5)
    assert parse_number("log10(2)") == pytest.approx(0.30102999566398)
    assert type(parse_number("sqrt(64)")) is F


def test_percentages_only_when_allowed():
    assert parse_number("15%", allow_percent=True) == F(3, 20)
    assert parse_number("12.5 %", allow_percent=True) == F(1, 8)
    assert parse_number("0.15", allow_percent=True) == F(3, 20)
    with pytest.raises(AnswerError, match=r"^a percentage is not expected here .*0\.15 for 15%"):
        parse_number("15%")


def test_scale_reads_bare_numbers_in_the_unit_asked():
    # the question asks "in GiB": a bare number is GiB, a number with a unit is converted
    assert parse_number("1.25", "bytes", scale=GiB) == F(5, 4)
    assert parse_number("1.25 GiB", "bytes", scale=GiB) == F(5, 4)
    assert parse_number("1280 MiB", "bytes", scale=GiB) == F(5, 4)
    assert parse_number("1342177280 B", "bytes", scale=GiB) == F(5, 4)
    assert parse_number("1 GiB + 256 MiB", "bytes", scale=GiB) == F(5, 4)
    assert parse_number("1.05M", "count", scale=10**6) == F(21, 20)
    assert parse_number("1.05", "count", scale=10**6) == F(21, 20)
    key = exact(F(5, 4), unit="bytes", scale=GiB)
    assert check_numeric(key, "1.25 GiB").correct
    assert check_numeric(key, "1.25").correct
    assert not check_numeric(key, "1.25 GB").correct


# =============================================================================== rejections

@pytest.mark.parametrize(
    "text, unit, fragments",
    [
        ("1,2", None, ["'1,2' at position 1 is ambiguous", "(1.2)"]),
        ("0,5", None, ["'0,5'", "ambiguous"]),
        ("0,500", None, ["'0,500'", "ambiguous", "(0.500)"]),
        ("12,34", None, ["ambiguous"]),
        ("1,2,3", None, ["'1,2,3' at position 1 is not a valid digit grouping"]),
        ("1,23,456,789", None, ["not a valid digit grouping"]),
        ("123,45,678", None, ["not a valid digit grouping"]),      # Indian style starts with 1 or 2 digits
        ("1,00,00", None, ["not a valid digit grouping"]),         # … and ends with 3
        ("1048,576", None, ["ambiguous", "(1048.576)"]),
        ("1 2", None, ["'1 2' at position 1 is not a valid digit grouping"]),
        ("1_0", None, ["not a valid digit grouping"]),
        ("1,048 576", None, ["mixes digit separators"]),
        ("1, 2", None, ["unexpected ',' at position 2", "decimal point"]),
        ("abc", None, ["could not read 'abc' as a number"]),
        ("2 + abc", None, ["could not read 'abc' at position 5 as a number"]),
        ("inf", None, ["could not read 'inf' as a number"]),
        ("nan", None, ["could not read 'nan' as a number"]),
        ("1e", None, ["could not read '1e' as a number", "exponent", "missing"]),
        ("1e+", None, ["could not read '1e+' as a number", "exponent"]),
        ("2.5E-", None, ["'2.5E-'", "exponent"]),
        ("1e999", None, ["exponent out of range"]),
        ("1e31", None, ["'1e31' at position 1 is too large", "1e30"]),
        ("2**2**2**2**2", None, ["the power at position 2 is too large", "1e30"]),
        ("9^9^9^9", None, ["the power at position 4 is too large"]),
        ("10^31", None, ["too large"]),
        ("0.5^10000", None, ["needs too many digits"]),
        ("exp(100)", None, ["exp(…) at position 1 is too large"]),
        ("1e20*1e20", None, ["the product at position 5 is too large"]),
        ("1/0", None, ["division by zero at position 2"]),
        ("1/(2-2)", None, ["division by zero at position 2"]),
        ("0^-1", None, ["division by zero"]),
        ("(" * 30 + "1" + ")" * 30, None, ["nested too deeply at position 21", "at most 20"]),
        ("-" * 30 + "1", None, ["two signs in a row"]),
        ("-(" * 30 + "1" + ")" * 30, None, ["nested too deeply"]),
        ("__import__('os')", None, ["unknown function '__import__' at position 1"]),
        ("__import__", None, ["could not read '__import__' as a number"]),
        ("os.system('ls')", None, ["could not read 'os' at position 1"]),
        ("1; 2", None, ["unexpected ';' at position 2"]),
        ("'1'", None, ["unexpected \"'\" at position 1"]),
        ("1.25 GiB", None, ["units 'GiB' are not expected here: give a plain number"]),
        ("1.05M", None, ["units 'M' are not expected here: give a plain number"]),
        ("175B", None, ["units 'B' are not expected here"]),
        ("GiB", "bytes", ["the unit 'GiB' at position 1 needs a number before it"]),
        ("1.25 GiB", "count", ["units 'GiB' are not expected here: give a count"]),
        ("5 Mb", "bytes", ["'Mb' at position 3 would mean bits"]),
        ("5 M", "bytes", ["units 'M' are not expected here: give bytes"]),
        ("5 GiB", "flops", ["units 'GiB' are not expected here: give FLOPs"]),
        ("5 furlongs", "count", ["could not read 'furlongs' at position 3 as a unit"]),
        ("5 GiB MiB", "bytes", ["unexpected 'MiB' at position 7"]),
        ("2K^2", "count", ["unexpected '^' at position 3"]),
        ("2(3)", None, ["missing operator before '(' at position 2", "2*(3)"]),
        ("(1)(2)", None, ["missing operator before '(' at position 4"]),
        ("(1)2", None, ["missing operator before '2' at position 4"]),
        ("2 sqrt(4)", None, ["missing operator before 'sqrt' at position 3"]),
        ("1)", None, ["unexpected ')' at position 2"]),
        ("(1+2))", None, ["unexpected ')' at position 6"]),
        ("(1+2", None, ["the '(' at position 1 is never closed"]),
        ("()", None, ["empty brackets '()' at position 1"]),
        ("5-", None, ["incomplete answer: a number should follow '-' at position 2"]),
        ("*5", None, ["unexpected '*' at position 1"]),
        ("1.2.3", None, ["unexpected '.' at position 4"]),
        ("0x1F", None, ["hexadecimal"]),
        ("x10", None, ["unexpected 'x' at position 1"]),
        ("sqrt 4", None, ["'sqrt' at position 1 needs brackets"]),
        ("sqrt(-4)", None, ["negative"]),
        ("ln(0)", None, ["needs a positive number"]),
        ("log(8)", None, ["'log' at position 1 is ambiguous"]),
        ("(-8)^(1/3)", None, ["not a real number"]),
        ("", None, ["empty answer"]),
        ("--3", None, ["two signs in a row (--) at position 1"]),
        ("   ", None, ["empty answer"]),
        ("1" * 201, None, ["201 characters long", "at most 200"]),
        ("٣", None, ["unexpected '٣' at position 1"]),          # only ASCII digits
    ],
)
def test_rejections_name_the_problem(text, unit, fragments):
    with pytest.raises(AnswerError) as info:
        parse_number(text, unit)
    message = str(info.value)
    assert "\n" not in message
    assert isinstance(info.value, InputError)
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_non_text_is_an_answer_error():
    with pytest.raises(AnswerError, match="expected text"):
        parse_number(12)  # type: ignore[arg-type]
    with pytest.raises(AnswerError, match="expected text"):
        parse_choice(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("text", ["9^9^9^9", "2**2**2**2**2", "9" * 30 + "^" + "9" * 30,
                                  "(1/3)^999999999", "10^(10^29)", "2^-99999999999", "exp(exp(exp(9)))",
                                  "(" * 199 + "1", "1" + "^9" * 99, "2^(1/3)^99999999"])
def test_size_guards_answer_at_once(text):
    start = time.perf_counter()
    with pytest.raises(AnswerError):
        parse_number(text)
    assert time.perf_counter() - start < 0.5


def test_programmer_errors_are_not_answer_errors():
    with pytest.raises(ValueError):
        parse_number("1", "furlongs")
    with pytest.raises(ValueError):
        nat_range(F(1, 2), -1)
    with pytest.raises(ValueError):
        NumericKey(1, "close")
    with pytest.raises(TypeError):
        exact(True)
    with pytest.raises(ValueError):
        exact(float("nan"))


# =============================================================================== NAT keys

def test_nat_range_two_decimals_is_key_rounded_plus_minus_one_unit():
    key = nat_range(F(1, 2), 2)
    assert key.interval() == (F(49, 100), F(51, 100))
    assert key.range_text() == "0.49 to 0.51"
    for text in ["0.50", "0.5", "1/2", "0.495", "0.49", "0.51", "0.505", "49/100"]:
        assert check_numeric(key, text).correct, text
    for text in ["0.52", "0.489", "0.5101", "0.48", "-0.5", "5"]:
        assert not check_numeric(key, text).correct, text


@pytest.mark.parametrize(
    "value, decimals, low, high",
    [
        (F(1, 3), 2, F(32, 100), F(34, 100)),
        (F(2, 3), 2, F(66, 100), F(68, 100)),
        (F(1, 8), 2, F(12, 100), F(14, 100)),        # 0.125 rounds half away from zero: 0.13
        (F(-1, 8), 2, F(-14, 100), F(-12, 100)),
        (F(1, 3), 3, F(332, 1000), F(334, 1000)),
        (F(7, 2), 1, F(34, 10), F(36, 10)),
        (0.1 + 0.2, 2, F(29, 100), F(31, 100)),     # a float key is rounded from its exact value
        (F(9, 2), 0, F(5), F(5)),                    # 0 decimals: an integer answer, exactly
        (F(5), 0, F(5), F(5)),
    ],
)
def test_nat_range_intervals(value, decimals, low, high):
    assert nat_range(value, decimals).interval() == (low, high)


def test_nat_range_zero_decimals_rejects_off_by_one():
    key = nat_range(F(1048576), 0)
    assert check_numeric(key, "1048576").correct
    assert check_numeric(key, "1048576.0").correct
    assert not check_numeric(key, "1048575").correct
    assert not check_numeric(key, "1048576.4").correct


def test_exact_keys_reject_off_by_one():
    key = exact(1050624)
    for text in ["1050624", "1,050,624", "4*512^2 + 4*512", "1.050624e6", "10,50,624"]:
        assert check_numeric(key, text).correct, text
    for text in ["1050623", "1050625", "1050624.5", "4*512^2"]:
        assert not check_numeric(key, text).correct, text


def test_exact_keys_allow_float_rounding_only_for_float_values():
    key = exact(2)
    assert check_numeric(key, "sqrt(2)^2").correct            # 2.0000000000000004
    assert not check_numeric(key, "2.0000000001").correct      # exact decimal input stays exact
    assert exact(0.1).accepts(F(1, 10))                          # float key vs exact input
    assert not exact(F(1, 10)).accepts(F(1, 10) + F(1, 10**15))


def test_relative_and_absolute_tolerances():
    key = within_rel(175 * 10**9, F(1, 100), unit="count")
    assert key.interval() == (F(17325 * 10**7), F(17675 * 10**7))
    assert check_numeric(key, "175B").correct
    assert check_numeric(key, "176.7B").correct
    assert check_numeric(key, "1.74e11").correct
    assert not check_numeric(key, "177B").correct
    assert not check_numeric(key, "173B").correct
    assert within_rel(0, 0.1).accepts(0) and not within_rel(0, 0.1).accepts(1e-9)
    key = within_abs(F(1, 2), F(1, 100))
    assert key.interval() == (F(49, 100), F(51, 100))
    assert key.accepts(F(51, 100)) and not key.accepts(F(511, 1000))


def test_in_range_as_published():
    key = in_range(F(49, 100), F(51, 100))
    assert key.value == F(1, 2)
    assert key.accepts(0.5) and not key.accepts(0.52)
    assert key.with_value(F(1, 4)).interval() == (F(24, 100), F(26, 100))


def test_misconception_values_match_with_the_same_tolerance():
    key = exact(1050624)
    alternatives = {"no biases": 1048576, "one bias": 1049088}
    got = check_numeric(key, "1,048,576", alternatives)
    assert got == Checked(F(1048576), False, "no biases")
    assert check_numeric(key, "1050624", alternatives) == Checked(F(1050624), True, None)
    assert check_numeric(key, "12", alternatives).matched is None
    assert key.matches(F(1048576), 1048576) and not key.matches(F(1048577), 1048576)
    nat = nat_range(F(1, 2), 2)
    assert nat.matches(F(255, 1000), F(1, 4))                    # [0.24, 0.26]
    assert not nat.matches(F(27, 100), F(1, 4))
    assert nat.all_matches(F(25, 100), [("halved", F(1, 4)), ("doubled", 1)]) == ("halved",)
    rel = within_rel(100, F(1, 100))
    assert rel.matches(201, 200) and not rel.matches(203, 200)   # 1 % of the alternative


# =============================================================================== options

@pytest.mark.parametrize("text", ["b", "B", "(b)", "b)", "option b", "Option (B)", " b. ", "answer: b", "{b}", "bb"])
def test_mcq_letters(text):
    assert parse_choice(text, 4, multiple=False) == frozenset({1})


@pytest.mark.parametrize("text", ["a,c", "a c", "A, C", "{a,c}", "ac", "ca", "(a),(c)", "a and c", "a;c", "[A C]",
                                  "options a, c", "a,c,a", "a & c"])
def test_msq_letters(text):
    assert parse_choice(text, 4, multiple=True) == frozenset({0, 2})


def test_single_letter_is_a_valid_msq_answer_and_five_options_allow_e():
    assert parse_choice("d", 4, multiple=True) == frozenset({3})
    assert parse_choice("e", 5) == frozenset({4})


@pytest.mark.parametrize(
    "text, multiple, fragment",
    [
        ("e", False, "there is no option 'e': choose one option from a–d"),
        ("a,e", True, "there is no option 'e': choose one or more options from a–d"),
        ("", False, "no option given: choose one option from a–d"),
        ("  ", True, "no option given"),
        ("{}", True, "no option given"),
        ("option", False, "no option given"),
        ("a,c", False, "choose a single option (a–d), not 2: A, C"),
        ("ab", False, "choose a single option (a–d), not 'ab'"),
        ("2", False, "give option letters (a–d), not numbers such as '2'"),
        ("b?", False, "could not read 'b?' as an option letter"),
        ("xyz", True, "could not read 'xyz' as option letters (a–d)"),
        ("é", False, "could not read 'é'"),
        ("a" * 201, True, "201 characters long"),
    ],
)
def test_choice_rejections(text, multiple, fragment):
    with pytest.raises(AnswerError) as info:
        parse_choice(text, 4, multiple)
    assert fragment in str(info.value)
    assert "\n" not in str(info.value)


def test_choice_keys_are_all_or_nothing():
    msq = ChoiceKey.of("a,c", multiple=True)
    assert msq.kind == "MSQ" and msq.answer == frozenset({0, 2})
    assert check_choice(msq, "c a") == Checked(frozenset({0, 2}), True)
    assert not check_choice(msq, "a").correct
    assert not check_choice(msq, "a,b,c").correct
    mcq = ChoiceKey(frozenset({1}))
    assert mcq.kind == "MCQ"
    assert check_choice(mcq, "(B)").correct and not check_choice(mcq, "c").correct
    with pytest.raises(ValueError):
        ChoiceKey(frozenset({0, 1}))           # an MCQ has one answer
    with pytest.raises(ValueError):
        ChoiceKey(frozenset({4}))
    assert format_choice({2, 0}) == "A, C"


# =============================================================================== matrices

def test_matrix_answers_delegate_to_the_matrix_parser():
    key = ((F(1), F(0)), (F(0), F(1, 2)))
    assert read_any_shape("1 0; 0 0.5") == key
    assert matches(key, read_any_shape("[[1,0],[0,1/2]]"), None)
    assert not matches(key, read_any_shape("[[1,0],[0,1]]"), None)
    assert not matches(key, read_any_shape("1 0 0; 0 0.5 0"), None)     # a wrong shape is a wrong answer
    assert matches(((F(1, 3),),), read_any_shape("0.33"), 2)
    with pytest.raises(AnswerError, match=r"^matrix: row 2 has 1 entry, row 1 has 2$"):
        read_any_shape("[[1,0],[0]]")
    with pytest.raises(AnswerError, match=r"^matrix: "):
        read_any_shape("abc")


# =============================================================================== scoring

@pytest.mark.parametrize(
    "kind, marks, correct, score",
    [
        ("MCQ", 1, True, F(1)), ("MCQ", 1, False, F(-1, 3)), ("MCQ", 1, None, F(0)),
        ("MCQ", 2, True, F(2)), ("MCQ", 2, False, F(-2, 3)), ("MCQ", 2, None, F(0)),
        ("MSQ", 1, True, F(1)), ("MSQ", 2, True, F(2)), ("MSQ", 2, False, F(0)), ("MSQ", 1, None, F(0)),
        ("NAT", 1, True, F(1)), ("NAT", 2, True, F(2)), ("NAT", 2, False, F(0)), ("NAT", 1, None, F(0)),
        ("mcq", 1, False, F(-1, 3)),
    ],
)
def test_gate_scores(kind, marks, correct, score):
    assert gate_score_exact(kind, marks, correct) == score
    assert gate_score(kind, marks, correct) == float(score)
    assert type(gate_score(kind, marks, correct)) is float


def test_gate_score_float_values_and_bad_arguments():
    assert gate_score("MCQ", 1, False) == -1 / 3
    assert gate_score("MCQ", 2, False) == -2 / 3
    with pytest.raises(ValueError):
        gate_score("TF", 1, True)
    with pytest.raises(ValueError):
        gate_score("MCQ", 0, True)
    with pytest.raises(TypeError):
        gate_score("MCQ", 1, "yes")  # type: ignore[arg-type]


# =============================================================================== formatting

@pytest.mark.parametrize(
    "x, decimals, text",
    [
        (1048576, None, "1,048,576"), (F(-1048576), None, "-1,048,576"), (F(1, 8), None, "0.125"),
        (F(1, 3), None, "1/3"), (F(2097153, 2), None, "1,048,576.5"), (0.5, 2, "0.50"), (F(1, 8), 2, "0.13"),
        (F(-1, 8), 2, "-0.13"), (F(9, 2), 0, "5"), (1234567.0, None, "1,234,567"), (1.5e20, None, "1.5e20"),
        (2 ** 0.5, None, "1.41421356237"), (F(3, 2), 3, "1.500"),
    ],
)
def test_format_number(x, decimals, text):
    assert format_number(x, decimals) == text


@pytest.mark.parametrize(
    "x, text",
    [(1048576, "1.05M"), (175 * 10**9, "175B"), (1500, "1.5K"), (512, "512"), (999_999, "1M"),
     (1_200_000_000_000, "1.2T"), (-2500, "-2.5K"), (F(1, 8), "0.125"), (0, "0"), (1000, "1K")],
)
def test_si_short(x, text):
    assert si_short(x) == text
    assert abs(parse_number(text, "count") - F(x)) <= abs(F(x)) * F(5, 1000)   # 3 significant digits


def test_round_half_away():
    assert round_half_away(F(5, 2), 0) == 3 and round_half_away(F(-5, 2), 0) == -3
    assert round_half_away(F(1, 3), 2) == F(33, 100)


@pytest.mark.parametrize("x,places,expected", [
    (0.125, 2, "0.13"), (-0.125, 2, "-0.13"), (0.625, 2, "0.63"), (1.125, 2, "1.13"), (3.125, 2, "3.13"),
    (2.675, 2, "2.68"),       # binary 2.67499999…: rounded as its decimal form reads, not half to even
    (1.005, 2, "1.01"), (0.5, 0, "1"), (2.5, 0, "3"), (-2.5, 0, "-3"), (1.575e25, 2, "15750000000000000000000000.00"),
    (F(1, 8), 2, "0.13"), (Decimal("0.0005"), 3, "0.001"),
])
def test_rounding_is_half_away_from_zero_for_every_type(x, places, expected):
    assert round_half_away(x, places) == F(Decimal(expected))
    assert answers.rounded(x, places) == float(Decimal(expected))
    if places:
        assert format_number(x, places) == f"{Decimal(expected):,}"


def test_nat_range_on_a_tie_is_centred_on_the_rounded_away_key():
    key = nat_range(0.125, 2)                     # flops.rnn_vs_attention-0001: n/d = 1/8
    assert key.interval() == (F(12, 100), F(14, 100)) and not key.accepts(F(11, 100))
    assert nat_range(3.125, 2).range_text() == "3.12 to 3.14"


def test_range_text_reads_like_the_question_never_a_long_fraction():
    assert within_rel(3.15e23, F(1, 100), unit="flops").range_text() == "3.1185e23 to 3.1815e23"
    assert within_rel(1_000_000, F(1, 100)).range_text() == "990,000 to 1,010,000"
    assert nat_range(F(1, 3), 2).range_text() == "0.32 to 0.34"


@pytest.mark.parametrize("text,names,expected", [
    ("4.8 days", ("days", "day"), F(48, 10)), ("1 day", ("days", "day"), F(1)), ("4.8 DAYS", ("days",), F(48, 10)),
    ("4x", ("x",), F(4)), ("4 x", ("x",), F(4)), ("4×", ("x",), F(4)), ("4 times", ("x", "times"), F(4)),
    ("2*3x", ("x",), F(6)), ("2 x 3", ("x",), F(6)),
])
def test_the_unit_a_question_names_may_end_the_answer(text, names, expected):
    assert parse_number(text, names=names) == expected


@pytest.mark.parametrize("text,names", [("4.8 days", ()), ("4x", ()), ("4 days 2", ("days",)), ("days", ("days",)),
                                        ("4 weeks", ("days",))])
def test_unit_names_are_read_only_where_the_question_asks_and_only_at_the_end(text, names):
    with pytest.raises(AnswerError):
        parse_number(text, names=names)


def test_si_short_forms_are_accepted_when_precise_enough():
    key = within_rel(1_050_624, F(1, 100), unit="count")
    assert check_numeric(key, "1.05M").correct and check_numeric(key, "1,050.624K").correct
    assert check_numeric(exact(175_000_000_000, unit="count"), "175B").correct
    assert check_numeric(exact(1_050_624, unit="count"), "1.050624M").correct
    assert check_numeric(exact(25_165_824, unit="flops"), "25165824 FLOPs").correct


@pytest.mark.parametrize("key,text,fragment", [
    (exact(1_050_624, unit="count"), "1.05M", "'1.05M' gives only 3 significant figures; this question needs the exact value"),
    (exact(174_604_259_328, unit="count"), "175B", "3 significant figures"),
    (within_rel(3.15e14, F(1, 100), unit="flops"), "0.3P FLOPs", "within 1.0%"),
    (within_rel(175 * 10**9, F(1, 1000), unit="count"), "0.2T", "1 significant figure"),
])
def test_too_coarse_short_forms_are_refused_with_the_reason(key, text, fragment):
    with pytest.raises(AnswerError) as e:
        check_numeric(key, text)
    assert fragment in str(e.value) and "\n" not in str(e.value)


def test_a_question_that_states_its_decimals_judges_every_writing_by_its_value():
    """Issue 22: '175B' in a question asking for billions to 2 places is the bare '175' written with
    the question's unit; both are judged by GATE's range (wrong), and '1.746e11' is 174.6 (right)."""
    key = nat_range(F(174_604_259_328, 10**9), 2, unit="count", scale=10**9)
    for text in ("175B", "175", "175 billion", "1.75e11"):
        assert not check_numeric(key, text).correct, text
    for text in ("174.6B", "174.6", "1.746e11", "174,604,259,328", "174.60 billion"):
        assert check_numeric(key, text).correct, text


@pytest.mark.parametrize("text", ["6.55M", "6.55e6", "6.55E+6", "655e4", "0.00655e9", "6.55 million", "6.55×10^6",
                                  "6.55 x 10^6", "6.55*10**6", "0.00655B"])
def test_one_precision_rule_for_every_short_form_of_a_count(text):
    with pytest.raises(AnswerError, match=r"gives only 3 significant figures; this question needs the exact value"):
        check_numeric(exact(6_553_600, unit="count"), text)


@pytest.mark.parametrize("text", ["6550000", "6,550,000", "6.553601e6", "6553.601K", "6.550000e6"])
def test_a_count_precise_to_one_is_judged_however_it_is_written(text):
    assert not check_numeric(exact(6_553_600, unit="count"), text).correct


def test_the_rule_holds_for_flops_in_any_scale():
    key = within_rel(3.15e14, F(1, 100), unit="flops")
    for text in ("0.3P FLOPs", "3e14", "3e14 FLOPs", "0.3e6 GFLOPs", "3 x 10^14"):
        with pytest.raises(AnswerError, match="1 significant figure; this question needs an answer within 1.0%"):
            check_numeric(key, text)
    for text in ("3.30e14", "330 TFLOPs", "0.330e6 GFLOPs"):
        assert not check_numeric(key, text).correct


def test_a_short_form_precise_enough_for_the_range_is_marked_wrong_not_refused():
    assert not check_numeric(within_rel(1_050_624, F(1, 100), unit="count"), "2.10M").correct
    assert not check_numeric(within_rel(174_604_259_328, F(1, 100), unit="count"), "350B").correct


def test_the_refusal_depends_on_the_range_width_never_on_the_key():
    for text in ("1.05M", "2.1M"):                # right to 3 figures, or simply wrong: the same message
        with pytest.raises(AnswerError, match="gives only"):
            check_numeric(exact(1_050_624, unit="count"), text)


def test_every_matching_alternative_is_reported():
    checked = check_numeric(exact(3_152_384), "3150336", [("no-norms", 3_150_336), ("no-attention-bias", 3_150_336),
                                                          ("no-ffn", 1_052_672)])
    assert checked.matched == "no-norms" and checked.also == ("no-attention-bias",)


@settings(max_examples=200, deadline=None)
@given(st.decimals(min_value=-10**6, max_value=10**6, places=4, allow_nan=False, allow_infinity=False),
       st.integers(0, 3))
def test_rounding_agrees_with_decimal_round_half_up(d, places):
    from decimal import ROUND_HALF_UP

    expected = F(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    assert round_half_away(F(d), places) == expected
    assert round_half_away(float(d), places) == expected       # a float as its shortest decimal form reads


# =============================================================================== safety contract

def test_no_module_of_the_package_evaluates_text():
    modules = sorted(Path(answers.__file__).parent.glob("*.py"))
    assert {m.stem for m in modules} >= {"grammar", "units", "rounding", "keys", "choices", "matrices", "marks", "display"}
    banned_names = {"eval", "exec", "compile", "__import__"}
    banned_attrs = {"literal_eval", "sympify", "eval", "parse_expr"}
    for node in (n for m in modules for n in ast.walk(ast.parse(m.read_text(encoding="utf-8")))):
        if isinstance(node, ast.Call):
            f = node.func
            assert not (isinstance(f, ast.Name) and f.id in banned_names), ast.dump(f)
            assert not (isinstance(f, ast.Attribute) and f.attr in banned_attrs), ast.dump(f)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            assert not any(n.split(".")[0] in {"torch", "sympy", "numpy", "ast"} for n in names)


def test_import_is_light():
    code = ("import sys, quizforge.answers; "
            "print(sorted(m for m in ('torch', 'sympy', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# =============================================================================== properties

def _indian(n: int) -> str:
    digits = str(abs(n))
    head, tail = digits[:-3], digits[-3:]
    groups = []
    while len(head) > 2:
        groups.insert(0, head[-2:])
        head = head[:-2]
    if head:
        groups.insert(0, head)
    return ("-" if n < 0 else "") + ",".join(groups + [tail])


def _plain(d: Decimal) -> str:
    return format(d, "f")


def integer_writings(n: int) -> list[tuple[str, str | None]]:
    d = Decimal(n)
    sci = format(d, "e")                                   # exact: '1.048576e+6'
    mantissa, _, exp = sci.partition("e")
    out = [
        (str(n), None), (f"{n:,}", None), (f"{n:_}", None), (f"{n:,}".replace(",", " "), None),
        (f"{n:,}".replace(",", "\u2009"), None), (_indian(n), None), (sci, None), (sci.upper(), None),
        (f"{mantissa}×10^{int(exp)}", None), (f"{mantissa} x 10^{int(exp)}", None),
        (f"{mantissa}*10**{int(exp)}", None),
        (f"{2 * n}/2", None), (f"({n})", None), (f"{n} B", "bytes"), (f"{n}", "count"),
        (f"{_plain(d.scaleb(-3))}K", "count"), (f"{_plain(d.scaleb(-6))}M", "count"),
        (f"{_plain(d.scaleb(-9))} billion", "count"), (f"{_plain(d.scaleb(-9))} GFLOPs", "flops"),
        (f"{_plain(d.scaleb(-6))} MB", "bytes"), (f"{_plain(d / 1024)} KiB", "bytes"),
    ]
    return out


@settings(max_examples=100, deadline=None)
@given(st.integers(-10**15, 10**15))
def test_every_writing_of_an_integer_is_accepted(n):
    for text, unit in integer_writings(n):
        key = exact(n, unit=unit)
        assert key.accepts(key.parse(text)), (text, unit)
        assert not key.accepts(key.parse(text) + 1), (text, unit)


@settings(max_examples=150, deadline=None)
@given(st.integers(-10**9, 10**9), st.integers(1, 10**6))
def test_every_writing_of_a_fraction_is_accepted(p, q):
    x = F(p, q)
    writings = [f"{p}/{q}", f"({p})/({q})", f"{p} / {q}", format_number(x), f"{-p}/{-q}" if p else f"0/{q}"]
    if x < 0:
        writings.append(f"-{-p}/{q}")
    for text in writings:
        assert exact(x).accepts(parse_number(text)), text
        assert parse_number(text) == x, text


@settings(max_examples=150, deadline=None)
@given(st.integers(-10**12, 10**12), st.integers(0, 12))
def test_every_writing_of_a_decimal_is_accepted(m, k):
    d = Decimal(m).scaleb(-k)
    x = F(m, 10**k)
    plain = _plain(d)
    writings = [plain, format(d, "e"), format(d, "E"), format_number(x), f"{m}e-{k}", f"{m}/10^{k}", f"{m}*10**-{k}"]
    if plain.startswith("0."):
        writings.append(plain[1:])                         # .5
    if plain.startswith("-0."):
        writings.append("-" + plain[2:])                   # -.5
    if "." not in plain:
        writings.append(plain + ".")                       # -2.
    for text in writings:
        assert parse_number(text) == x, text
    key = nat_range(x, 2)
    assert key.accepts(parse_number(plain))                 # the unrounded value is inside its NAT range
    low, high = key.interval()
    assert high - low == F(2, 100) and low <= round_half_away(x, 2) <= high


@settings(max_examples=150, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(-10**6, 10**6), st.integers(-999, 999), st.integers(0, 6))
def test_simple_expressions_are_accepted(a, b, c, k):
    cases = [
        (f"{a}*{b}", a * b), (f"{a} × {b}", a * b), (f"{a} x {b}", a * b), (f"{a}*{b} + {c}", a * b + c),
        (f"({a}+{b})*{c}", (a + b) * c), (f"{a}-{b}", a - b), (f"{a} - ({b})", a - b), (f"({c})^{k}", c**k),
        (f"({c})**{k}", c**k), (f"{abs(c)}^{k}", abs(c) ** k), (f"2^{k}*{a}", 2**k * a), (f"{a}/2^{k}", F(a, 2**k)),
    ]
    for text, value in cases:
        assert parse_number(text) == value, text
        assert exact(value).accepts(parse_number(text)), text
    assert parse_number(f"-{abs(c)}^2") == -(c * c)          # the sign applies after the power


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10**6), st.sampled_from([("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30), ("KB", 10**3),
                                               ("MB", 10**6), ("GB", 10**9)]), st.integers(0, 2))
def test_byte_sizes(m, unit, places):
    name, size = unit
    value = F(m, 10**places) * size
    text = f"{_plain(Decimal(m).scaleb(-places))} {name}"
    assert exact(value, unit="bytes").accepts(parse_number(text, "bytes")), text
    assert parse_number(text, "bytes", scale=size) == F(m, 10**places)


def _total(text: str) -> None:
    for unit in (None, "count", "bytes", "flops"):
        try:
            value = parse_number(text, unit, allow_percent=True)
        except AnswerError as e:
            assert "\n" not in str(e) and str(e)
        else:
            assert type(value) in (F, float) and abs(value) <= 10**30
    for multiple in (False, True):
        try:
            chosen = parse_choice(text, 4, multiple)
        except AnswerError as e:
            assert "\n" not in str(e)
        else:
            assert chosen and all(0 <= i < 4 for i in chosen)
    try:
        read_any_shape(text)
    except AnswerError as e:
        assert "\n" not in str(e)


@settings(max_examples=200, deadline=1000)
@given(st.text(max_size=260))
def test_arbitrary_text_only_ever_raises_answer_error(text):
    _total(text)


PIECES = list("0123456789.,_ +-*/^()%eExX") + [
    "**", "9^9", "K", "M", "B", "GiB", "MB", "FLOPs", "sqrt(", "ln(", "log2(", "exp(", "×", "⁹", "⁻", "−", "\u2009",
    "1e", "a", "c", "{", "}", "log", "0x", "1,2", "((", "))",
]
GRAMMARISH = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


@settings(max_examples=200, deadline=1000)
@given(GRAMMARISH)
def test_grammar_like_text_only_ever_raises_answer_error(text):
    _total(text)


@settings(max_examples=150, deadline=None)
@given(st.fractions(max_denominator=10**6).filter(lambda x: abs(x) < 10**15))
def test_format_number_reads_back(x):
    assert parse_number(format_number(x)) == x


@settings(max_examples=300, deadline=None)
@given(st.integers(1000, 10**13))
def test_the_short_form_of_an_exact_count_is_accepted_or_refused_with_the_reason(n):
    """'1.05M' for 1,050,624 is never silently marked wrong: right, or too coarse and said so."""
    key = exact(n, unit="count")
    text = si_short(n)
    try:
        checked = check_numeric(key, text)
    except AnswerError as e:
        assert "significant figure" in str(e) and "exact value" in str(e)
    else:
        assert checked.correct and parse_number(text, "count") == n


@settings(max_examples=200, deadline=None)
@given(st.integers(-10**6, 10**6), st.integers(0, 3), st.sampled_from(["days", "day", "x", "times"]))
def test_a_number_followed_by_the_named_unit_reads_as_the_number(m, k, word):
    value = F(m, 10**k)
    text = format_number(value, k) + ("" if word == "x" else " ") + word
    assert parse_number(text, names=("days", "day", "x", "times")) == value
