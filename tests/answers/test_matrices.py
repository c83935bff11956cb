from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quizforge.errors import InputError
from quizforge.answers.matrices import MAX_CHARS, format_fraction, parse_matrix

I2 = [[F(1), F(0)], [F(0), F(1)]]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("[[1,0],[0,1]]", I2),
        ("  [ [ 1 ,0 ]\t, [0 , 1] ]  ", I2),
        ("[[1 0] [0 1]]", I2),                      # whitespace between entries and rows
        ("[[1,0];[0,1]]", I2),
        ("1 0; 0 1", I2),                            # MATLAB style
        ("1,0;0,1", I2),
        ("1 0; 0 1;", I2),                           # trailing ';'
        ("[1 0; 0 1]", I2),
        ("[1,2,3]", [[F(1), F(2), F(3)]]),           # a single row is 1×3
        ("1 2 3", [[F(1), F(2), F(3)]]),
        ("[[1],[2]]", [[F(1)], [F(2)]]),             # a column
        ("7", [[F(7)]]),
        ("[-1, +2, -0]", [[F(-1), F(2), F(0)]]),
        ("[0.5, .5, -2., -.25]", [[F(1, 2), F(1, 2), F(-2), F(-1, 4)]]),
        ("[1e-3, 2.5E2, -1e+1, 1.e0]", [[F(1, 1000), F(250), F(-10), F(1)]]),
        ("[1/2, -3/4, 6/4, +1/3]", [[F(1, 2), F(-3, 4), F(3, 2), F(1, 3)]]),
        ("[[0.1, 1/3]]", [[F(1, 10), F(1, 3)]]),     # decimals are exact: 0.1 is 1/10, not a float
    ],
)
def test_accepted_forms(text, expected):
    got = parse_matrix(text, "--q")
    assert got == expected
    assert all(type(x) is F for row in got for x in row)


def test_sixteen_by_sixteen_is_the_limit():
    row = ",".join(["1"] * 16)
    m = parse_matrix("[" + ",".join(f"[{row}]" for _ in range(16)) + "]")
    assert len(m) == 16 and all(len(r) == 16 for r in m)


def test_input_of_exactly_max_chars_is_accepted():
    assert parse_matrix("1" + " " * (MAX_CHARS - 1)) == [[F(1)]]


@pytest.mark.parametrize(
    "text, fragments",
    [
        ("", ["--q:", "empty input"]),
        ("   \t ", ["--q:", "empty input"]),
        ("[]", ["--q:", "empty matrix"]),
        ("[[]]", ["--q:", "row 1 is empty"]),
        ("[[1,0],[1,2,3]]", ["--q: row 2 has 3 entries, row 1 has 2"]),
        ("1 0; 1", ["--q: row 2 has 1 entry, row 1 has 2"]),
        ("[[1,0],[0,1],[5]]", ["row 3 has 1 entry, row 1 has 2"]),
        ("[1,abc]", ["--q: 'abc' is not a number at position 4"]),
        ("abc", ["'abc' is not a number at position 1"]),
        ("1-2", ["'1-2' is not a number"]),
        ("[1, 2x]", ["'2x' is not a number at position 5"]),
        ("[1, 0x10]", ["'0x10' is not a number"]),
        ("[1, 1_000]", ["'1_000' is not a number"]),
        ("[1, ٣]", ["is not a number"]),             # non-ASCII digits are not numbers here
        ("[1, 1/2/3]", ["'1/2/3' is not a number"]),
        ("[1, 0.5/2]", ["'0.5/2' is not a number"]),
        ("[[[1]]]", ["nesting deeper than 2", "position 3"]),
        ("[[1,[2]]]", ["nesting deeper than 2"]),
        ("[[1,2]", ["unbalanced brackets", "never closed"]),
        ("[1,2", ["unbalanced brackets"]),
        ("[1,2]]", ["unbalanced brackets", "unexpected ']' at position 6"]),
        ("]", ["unexpected ']'"]),
        ("1 2; [3 4]", ["unexpected '['"]),
        ("[1,2] 3", ["unexpected '3'", "after the closing"]),
        ("[1,[2]]", ["mixes numbers and rows"]),
        ("[[1,2],3]", ["mixes numbers and rows"]),
        ("[[1;2]]", ["';' inside a row"]),
        ("nan", ["'nan'", "finite"]),
        ("[1, -inf]", ["'-inf'", "finite"]),
        ("[1, Infinity]", ["'Infinity'", "finite"]),
        ("[1, 1/0]", ["'1/0'", "zero denominator"]),
        ("[1, -3/00]", ["zero denominator"]),
        ("[1e999999999]", ["exponent out of range"]),
        ("[1e16]", ["too large"]),
        ("[1,,2]", ["empty entry at position 4"]),
        ("[,1]", ["empty entry"]),
        ("[1,2,]", ["empty entry before ']'", "trailing ','"]),
        ("1;;2", ["row 2 is empty"]),
        (";1", ["row 1 is empty"]),
        ("1 2,", ["empty entry at the end"]),
        ("1,;2", ["empty entry before ';'"]),
        (",", ["empty entry"]),
        ("[" + ",".join(["1"] * 17) + "]", ["17 columns", "at most 16"]),
        (";".join(["1"] * 17), ["17 rows", "at most 16"]),
        ("1" * (MAX_CHARS + 1), [f"{MAX_CHARS + 1} characters", f"at most {MAX_CHARS}"]),
    ],
)
def test_rejections_name_the_argument_and_the_problem(text, fragments):
    with pytest.raises(InputError) as info:
        parse_matrix(text, "--q")
    message = str(info.value)
    assert message.startswith("--q: ")
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, (fragment, message)


def test_default_name_and_nonstring():
    with pytest.raises(InputError, match=r"^matrix: "):
        parse_matrix("x")
    with pytest.raises(InputError, match=r"^--k: expected text"):
        parse_matrix([[1]], "--k")  # type: ignore[arg-type]


def test_long_bad_token_is_shortened_in_the_message():
    with pytest.raises(InputError) as info:
        parse_matrix("[" + "z" * 500 + "]", "--v")
    assert len(str(info.value)) < 120


@pytest.mark.parametrize(
    "x, text",
    [(F(3), "3"), (F(-1, 4), "-0.25"), (F(1, 3), "1/3"), (F(-5, 6), "-5/6"), (F(1, 1000), "0.001"),
     (F(0), "0"), (F(7, 2), "3.5"), (F(1, 2**10), "1/1024")],
)
def test_format_fraction(x, text):
    assert format_fraction(x) == text
    assert parse_matrix(text) == [[x]]


# --------------------------------------------------------------------------------------- properties

@settings(max_examples=300, deadline=None)
@given(st.text(max_size=60))
def test_arbitrary_text_only_ever_raises_input_error(text):
    _check_total(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="[],; \t0123456789.-+eE/naifINF", max_size=40))
def test_grammar_like_text_only_ever_raises_input_error(text):
    _check_total(text)


def _check_total(text):
    try:
        m = parse_matrix(text, "--q")
    except InputError as e:
        assert str(e).startswith("--q: ") and "\n" not in str(e)
        return
    assert 1 <= len(m) <= 16
    assert all(len(row) == len(m[0]) for row in m) and 1 <= len(m[0]) <= 16
    assert all(type(x) is F for row in m for x in row)


entries = st.one_of(
    st.integers(-99, 99).map(F),
    st.builds(F, st.integers(-40, 40), st.integers(1, 12)),
    st.builds(lambda n, p: F(n, 10**p), st.integers(-9999, 9999), st.integers(0, 3)),  # short decimals
)
matrices = st.integers(1, 5).flatmap(
    lambda cols: st.lists(st.lists(entries, min_size=cols, max_size=cols), min_size=1, max_size=5)
)


@settings(max_examples=200, deadline=None)
@given(matrices, st.sampled_from(["nested", "nested-spaces", "matlab", "matlab-commas", "bracket-matlab"]),
       st.booleans())
def test_round_trip(m, style, as_fractions):
    def fmt(x):
        return f"{x.numerator}/{x.denominator}" if as_fractions else format_fraction(x)

    rows = [[fmt(x) for x in row] for row in m]
    text = {
        "nested": lambda: "[" + ", ".join("[" + ", ".join(r) + "]" for r in rows) + "]",
        "nested-spaces": lambda: "[ " + " ".join("[ " + "  ".join(r) + " ]" for r in rows) + " ]",
        "matlab": lambda: "; ".join(" ".join(r) for r in rows),
        "matlab-commas": lambda: ";".join(",".join(r) for r in rows),
        "bracket-matlab": lambda: "[" + "; ".join(" ".join(r) for r in rows) + "]",
    }[style]()
    assert parse_matrix(text) == m


# --- issue 22: rows on separate lines, a typed minus sign, −∞ for an additive mask -----------------

@pytest.mark.parametrize("text", [
    "1 0\n0 1",                  # one row per line
    "1 0\n0 1\n",                # a trailing line break
    "1, 0\r\n0, 1",              # commas, Windows line ends
    "\n1 0\n\n0 1\n",            # blank lines around and between
    "[1 0\n0 1]",                # MATLAB rows inside brackets
    "[[1, 0],\n [0, 1]]",        # a nested list spread over lines stays a nested list
    "1 0;\n0 1",                 # ';' and a line break are one row break
    "1,\n0; 0 1",                # a line break after a ',' continues the row
])
def test_a_line_break_between_two_numbers_ends_a_row(text):
    assert parse_matrix(text) == I2


def test_a_typed_minus_sign_reads_as_minus():
    assert parse_matrix("−1 2; 3 −4/5") == [[F(-1), F(2)], [F(3), F(-4, 5)]]


@pytest.mark.parametrize("written", ["-inf", "-Inf", "-infinity", "-∞", "−∞", "−inf"])
def test_minus_infinity_only_where_a_caller_allows_it(written):
    rows = parse_matrix(f"0 {written}\n0 0", allow_minus_infinity=True)
    assert rows[0][0] == 0 and rows[0][1] == float("-inf") and rows[1] == [F(0), F(0)]
    with pytest.raises(InputError, match="finite numbers"):
        parse_matrix(f"0 {written}\n0 0")


@pytest.mark.parametrize("text", ["0 inf; 0 0", "0 +inf; 0 0", "0 ∞; 0 0", "0 nan; 0 0", "0 --inf; 0 0"])
def test_plus_infinity_and_nan_stay_refused_even_with_minus_infinity_allowed(text):
    with pytest.raises(InputError):
        parse_matrix(text, allow_minus_infinity=True)
