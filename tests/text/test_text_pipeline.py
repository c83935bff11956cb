"""One text pipeline: every TeX command and Markdown construct the bank (all templates, many
seeds), the interview chains and the challenge statements write is known to the one command
table and renders in the terminal, in typst and in HTML without a fallback."""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from quizforge.bank.registry import all_templates
from quizforge.practice.interview_bank import load_chains
from quizforge.text import tex
from quizforge.text.html import to_html
from quizforge.text.markdown import CONSTRUCTS, constructs, math_spans
from quizforge.text.terminal import markdown_to_terminal, tex_to_unicode
from quizforge.text.typst import markdown_to_typst, tex_to_typst

ROOT = Path(__file__).resolve().parents[2]
SEEDS = range(0, 0x10000, 0x10000 // 48)   # 48 seeds spread over the whole range

# A TeX command left in output: a backslash and a name. (typst writes "\/" and "\{" on purpose.)
RAW_COMMAND = re.compile(r"\\[A-Za-z]{2,}")


def _question_texts(q) -> list[str]:
    steps = [*q.solution, *q.exhibits]
    return [q.title, q.prompt, q.answer_md, *q.hints, *(o.md for o in q.options), *(o.why for o in q.options),
            *(s.title for s in steps), *(s.md for s in steps),
            *(m.feedback for m in q.misconceptions), *(m.label for m in q.misconceptions)]


@lru_cache(maxsize=1)
def corpus() -> dict[str, str]:
    """Every distinct text a person may read, with where it came from."""
    texts: dict[str, str] = {}
    for template in all_templates():
        for seed in SEEDS:
            q = template.question(seed)
            for text in _question_texts(q):
                texts.setdefault(text, q.id)
    for chain in load_chains():
        for p in chain.prompts:
            for text in (p.question, p.model_answer, *p.key_points, *p.pitfalls):
                texts.setdefault(text, p.id)
    for readme in sorted(ROOT.glob("exercises/*/README.md")):
        texts.setdefault(readme.read_text(encoding="utf-8"), str(readme.relative_to(ROOT)))
    texts.pop("", None)
    return texts


def _formulas() -> dict[str, str]:
    return {tex_source: where for text, where in corpus().items()
            for tex_source, is_math, _ in math_spans(text) if is_math}


def test_every_command_has_a_spelling_in_every_medium():
    assert tex.missing("terminal") == [] and tex.missing("typst") == []


def test_a_command_missing_from_one_medium_fails(monkeypatch):
    monkeypatch.setitem(tex.COMMANDS, "hbar", tex.Command("symbol", "ħ", None))
    assert tex.missing("typst") == ["hbar"] and tex.missing("terminal") == []
    with pytest.raises(tex.Untranslatable):
        tex_to_typst(r"\hbar")


def test_every_command_the_texts_write_is_in_the_table():
    unknown = {(name, where) for formula, where in _formulas().items()
               for name in tex.command_names(formula) if name not in tex.COMMANDS}
    assert not unknown, sorted(unknown)


def test_every_construct_the_texts_write_is_one_every_medium_renders():
    unknown = {(kind, where) for text, where in corpus().items() for kind in constructs(text) - CONSTRUCTS}
    assert not unknown, sorted(unknown)


def test_every_formula_renders_in_the_terminal_and_typst_without_a_fallback():
    for formula, where in _formulas().items():
        shown = tex_to_unicode(formula)
        assert "\\" not in shown, (where, formula, shown)
        typst = tex_to_typst(formula)   # raises Untranslatable on anything the table lacks
        assert not RAW_COMMAND.search(typst), (where, formula, typst)


def test_every_text_renders_in_all_three_media_without_a_fallback(monkeypatch):
    from quizforge.text import typst

    def no_fallback(latex: str) -> str:
        raise AssertionError(f"a formula fell back to plain text: {latex}")

    monkeypatch.setattr(typst, "plain_formula", no_fallback)
    markdown_to_typst.cache_clear()
    try:
        for text, where in corpus().items():
            formulas = [piece for piece, is_math, _ in math_spans(text) if is_math]
            terminal = markdown_to_terminal(text)
            assert not any(f"${formula}$" in terminal for formula in formulas), (where, terminal)
            source = markdown_to_typst(text)
            assert "untranslatable" not in source.lower(), (where, source)
            html = to_html(text)
            assert html.count("\\(") + html.count("\\[") == len(formulas), (where, html)
    finally:
        markdown_to_typst.cache_clear()


def test_challenge_statements_typeset():
    import typst

    from quizforge.problemsets.typeset import PREAMBLE

    for readme in sorted(ROOT.glob("exercises/*/README.md")):
        typst.compile((PREAMBLE + markdown_to_typst(readme.read_text(encoding="utf-8"))).encode())


def _sample(name: str, command: tex.Command) -> str:
    """A formula that uses the command NAME as the bank would."""
    return {"frac": rf"\{name}{{1}}{{2}}", "sqrt": rf"\{name}{{x}}", "accent": rf"\{name}{{x}}",
            "font": rf"\{name}{{x}}", "text": rf"\{name}{{ab}}", "operator": rf"\{name}{{ab}}",
            "environment": r"\begin{bmatrix} 1 & 2 \\ 3 & 4 \end{bmatrix}"}.get(command.kind, rf"a \{name} b")


def test_every_commands_typst_spelling_compiles_and_its_terminal_spelling_reads():
    import typst

    from quizforge.problemsets.typeset import PREAMBLE

    formulas = {name: _sample(name, command) for name, command in tex.COMMANDS.items()}
    body = "\n\n".join(f"${tex_to_typst(formula)}$" for formula in formulas.values())
    typst.compile((PREAMBLE + body).encode())   # one document: a bad spelling names its line
    for name, formula in formulas.items():
        shown, spelling = tex_to_unicode(formula), tex.COMMANDS[name].terminal
        assert "\\" not in shown, (name, shown)
        if tex.COMMANDS[name].kind == "symbol" and name.isalpha() and spelling != name:
            assert name not in shown, (name, shown)   # 'omega' spelled out is a command the table lacks
