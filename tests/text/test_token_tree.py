"""One token tree for every medium: math is where markdown-it's dollarmath finds it, in the
terminal (which keeps the rest as written), in typst and in HTML alike."""

from __future__ import annotations

import subprocess
import sys

import pytest

from quizforge.text.html import inline_html, to_html
from quizforge.text.markdown import constructs, math_spans, parse
from quizforge.text.terminal import markdown_to_terminal
from quizforge.text.typst import markdown_to_typst


def test_math_spans_are_the_trees_math_placed_in_the_text_as_written():
    text = "> a $x\n> +y$ and `$z$` and $$w$$\n\n| $p$ | $p$ |\n|---|---|\n\n$$\nq\n$$\n"
    pieces = list(math_spans(text))
    assert "".join(piece for piece, is_math, _ in pieces if not is_math) == \
        "> a  and `$z$` and \n\n|  |  |\n|---|---|\n\n\n"
    assert [(piece, displayed) for piece, is_math, displayed in pieces if is_math] == \
        [("x\n+y", False), ("w", True), ("p", False), ("p", False), ("\nq\n", True)]


@pytest.mark.parametrize("text", ["Run `echo $x$` then $y$", "```\nprint('$x$')\n```\n\n$y$"])
def test_math_inside_code_is_code_in_every_medium(text):
    assert "$x$" in markdown_to_terminal(text) and "y" in markdown_to_terminal(text).replace("$x$", "")
    assert "$x$" in to_html(text) and "\\(y\\)" in to_html(text) and "\\(x\\)" not in to_html(text)
    assert "$x$" in markdown_to_typst(text) and "\\(x\\)" not in inline_html(text)


def test_an_escaped_dollar_is_a_dollar_sign_everywhere():
    text = r"It costs \$5, and $x$"
    assert markdown_to_terminal(text) == r"It costs \$5, and x"   # the terminal shows Markdown as written
    assert to_html(text) == r"<p>It costs $5, and \(x\)</p>"
    assert markdown_to_typst(text) == r"It costs \$5, and $x$"


def test_displayed_math_in_a_paragraph_and_on_its_own_lines():
    assert to_html("a $$x$$ b") == r"<p>a \[x\] b</p>"
    assert to_html("$$\nx < y\n$$") == r"<p>\[x &lt; y\]</p>"
    assert "\n$ x $\n" in markdown_to_typst("a $$x$$ b") and "\n$ x $\n" in markdown_to_typst("$$\nx\n$$")
    assert {"math_inline_double", "math_block"} <= constructs("a $$x$$ b\n\n$$\ny\n$$")


def test_code_inside_a_list_item_stays_in_the_item_in_typst():
    text = "- Split with\n\n  ```python\n  re.findall(r\"x\", s)\n  ```\n\n  and count.\n- Next"
    typst = markdown_to_typst(text)
    assert '\n  #raw(block: true, lang: "python", "re.findall(r\\"x\\", s)")\n' in typst
    assert "```" not in typst and "\n  and count.\n- Next" in typst


def test_the_tree_is_parsed_once_per_text():
    assert parse("$x$ and **y**") is parse("$x$ and **y**")


def test_importing_the_renderers_does_not_import_markdown_it():
    probe = ("import sys\nimport quizforge.text.terminal, quizforge.text.typst, quizforge.text.html\n"
             "from quizforge.text.terminal import markdown_to_terminal\nmarkdown_to_terminal('no math')\n"
             "print(sorted(m for m in sys.modules if m.startswith(('markdown_it', 'mdit_py_plugins'))))")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


# --- the plain-line shortcut: what markdown-it would write, without markdown-it ----------------

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from quizforge.text import html as html_text  # noqa: E402

LINE_PIECES = st.sampled_from(["a", "Q", "7", " ", "  ", "**", "*", "_", "`", "\\", "&", "<", ">", '"', "'", "#",
                               "- ", "1. ", "2) ", "[", "]", "!", "|", "~", "=", "+", "\t", "\n", "√", "—", ":",
                               "$", "$", "$$", "\\$", "$x$", "$d_{k}$", "$ a$", "$b $", "$$y$$", "$$ z $$", "{", "}", "^", "\\sqrt"])
LINES = st.lists(LINE_PIECES, max_size=12).map("".join)


def _markdown_it(source: str, inline: bool) -> str:
    tokens = html_text.parse_inline(source) if inline else html_text.parse(source)
    return html_text._renderer().render(tokens, html_text.parser().options, {}).strip()


@settings(max_examples=600, deadline=None)
@given(LINES, st.booleans())
def test_a_line_the_shortcut_takes_renders_as_markdown_it_renders_it(line, inline):
    simple = html_text._simple(line, inline)
    if simple is not None:
        assert simple.strip() == _markdown_it(line, inline)


def _math(latex: str, display: bool) -> str:
    return f"<{latex}|{display}>"


@settings(max_examples=600, deadline=None)
@given(LINES)
def test_a_line_the_shortcut_takes_is_the_trees_in_typst_and_in_the_terminals_math(line):
    from quizforge.text import markdown, typst

    simple = markdown.simple_line(line, inline=False)
    if simple is not None:
        assert typst.simple_typst(simple, _math) == typst.tree_typst(line, _math)
        assert list(markdown.simple_math_spans(line)) == list(markdown.tree_math_spans(line))


@pytest.mark.parametrize("line", ["Choose ONE option.", "**Answer:** 42 tokens", "*Choose ONE option.* Then go",
                                  "**Answer:** $N = 2 \\cdot d_{model}^{2}$ (accepted: 1,024)",
                                  "A layer with $d_{model} = 512$ and $h = 8$ heads: what is $d_k$?",
                                  "**Scale.** $$-3 / \\sqrt{4} = -1.5000 \\approx -1.50$$"])
def test_plain_lines_and_lines_with_formulas_take_the_shortcut(line):
    from quizforge.text import markdown, typst

    assert html_text._simple(line, False) == _markdown_it(line, False) + "\n"
    simple = markdown.simple_line(line, inline=False)
    assert simple is not None and typst.simple_typst(simple, _math) == typst.tree_typst(line, _math)
