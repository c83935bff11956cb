"""Escaping by backslash (typst markup, GIFT): each special character and each backslash behind
one backslash, and nothing else changed."""

from hypothesis import given
from hypothesis import strategies as st

from quizforge.problemsets.lms import gift_escape
from quizforge.text.backslash import backslashed
from quizforge.text.typst import escape

SPECIALS = "#*_`<>@[]~/$=+-"


@given(st.text(alphabet=st.sampled_from(list(SPECIALS + "\\a ü→{}:\n"))))
def test_each_special_and_each_backslash_gets_one_backslash(text):
    expected = "".join("\\" + c if c in SPECIALS + "\\" else c for c in text)
    assert backslashed(text, SPECIALS) == expected == escape(text)


def test_gift_escapes_its_own_specials_and_line_breaks():
    assert gift_escape("a~b=c#d{e}f:g\\h\r\ni") == "a\\~b\\=c\\#d\\{e\\}f\\:g\\\\h\\ni"
    assert escape("\\#") == "\\\\\\#"   # the backslash's own escape is not escaped again
