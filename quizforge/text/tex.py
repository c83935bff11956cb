"""The TeX math the bank writes: one reader and one table of commands, each with its terminal
(Unicode) and its typst spelling. HTML keeps the TeX itself, for KaTeX and MathJax.

A command has a kind, which says how its arguments are read; the renderers in `terminal` and
`typst` walk the same source with the same `Reader` and look every command up here, so a
command one medium knows and another does not is a gap in this table, which the tests catch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class Untranslatable(ValueError):
    """TeX a strict reader cannot take (unbalanced braces, a lone backslash)."""


@dataclass(frozen=True)
class Command:
    """How one TeX command is written in each medium.

    kind: "symbol" (a spelling in place of the command), "space" (a thin or medium space),
    "frac", "sqrt", "accent" and "font" (one braced argument, two for frac: `terminal` is the
    combining mark an accent puts on one letter, `typst` the function around the argument),
    "text" and "operator" (an argument read as words), "environment" (\\begin{…}…\\end{…}).
    spaced: typst sets a symbol apart from its neighbours (`a dot.c b`); a few must touch them.
    """

    kind: str
    terminal: str | None
    typst: str | None
    spaced: bool = True


def _symbols(pairs: dict[str, tuple[str, str]], spaced: bool = True) -> dict[str, Command]:
    return {name: Command("symbol", terminal, typst, spaced) for name, (terminal, typst) in pairs.items()}


QUAD = "\x00"   # a space a \quad asks for in a terminal: kept when stray spaces collapse

COMMANDS: dict[str, Command] = {
    **_symbols({
        "times": ("×", "times"), "cdot": ("·", "dot.c"), "cdotp": ("·", "dot.c"), "odot": ("⊙", "dot.o"),
        "pm": ("±", "plus.minus"), "le": ("≤", "<="), "leq": ("≤", "<="), "ge": ("≥", ">="), "geq": ("≥", ">="),
        "neq": ("≠", "!="), "approx": ("≈", "approx"), "sim": ("~", "tilde.op"), "propto": ("∝", "prop"),
        "ll": ("≪", "<<"), "gg": ("≫", ">>"), "in": ("∈", "in"), "mid": ("|", "|"),
        "to": ("→", "->"), "rightarrow": ("→", "->"), "Rightarrow": ("⇒", "=>"), "implies": ("⇒", "=>"),
        "infty": ("∞", "infinity"), "top": ("ᵀ", "top"), "sum": ("Σ", "sum"), "prod": ("Π", "product"),
        "ldots": ("…", "..."), "dots": ("…", "..."), "cdots": ("⋯", "dots.c"),
        "quad": (QUAD * 2, "quad"), "qquad": (QUAD * 4, "wide"),
        "lfloor": ("⌊", "⌊"), "rfloor": ("⌋", "⌋"), "lceil": ("⌈", "⌈"), "rceil": ("⌉", "⌉"),
        "lVert": ("‖", "||"), "rVert": ("‖", "||"), "Vert": ("‖", "||"), "vert": ("|", "|"),
        "ell": ("ℓ", "ell"), "partial": ("∂", "partial"), "nabla": ("∇", "nabla"), "colon": (":", ":"),
        "prime": ("′", "prime"), "cap": ("∩", "inter"), "cup": ("∪", "union"), "forall": ("∀", "forall"),
        "exists": ("∃", "exists"), "!": ("", ""),
        # operators typst sets upright, as TeX does
        **{name: (name, name) for name in ("log", "ln", "exp", "sin", "cos", "tan", "tanh", "sinh", "cosh",
                                           "max", "min", "arg", "det", "dim", "lim", "sup", "inf")},
        "softmax": ("softmax", 'op("softmax")'),
    }),
    # Every Greek letter, so no command name ('omega', 'phi') is ever spelled out in a terminal.
    **_symbols(dict(zip(
        "alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi omicron pi "
        "varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi "
        "Sigma Upsilon Phi Psi Omega".split(),
        zip("αβγδεεζηθϑικλμνξοπϖρϱσςτυφφχψωΓΔΘΛΞΠΣΥΦΨΩ",
            "alpha beta gamma delta epsilon epsilon zeta eta theta theta.alt iota kappa lambda mu nu xi omicron pi "
            "pi.alt rho rho.alt sigma sigma.alt tau upsilon phi phi chi psi omega Gamma Delta Theta Lambda Xi Pi "
            "Sigma Upsilon Phi Psi Omega".split())))),
    # braces, percent and sizing touch their neighbours in typst: "f\{x" is not "f \{ x"
    **_symbols({"{": ("{", "\\{"), "}": ("}", "\\}"), "%": ("%", "\\%"), "left": ("", ""), "right": ("", "")},
               spaced=False),
    **{name: Command("space", " ", typst) for name, typst in ((",", "thin"), (";", "med"), (":", "med"), (" ", " "))},
    **{name: Command("frac", "/", "frac") for name in ("frac", "dfrac", "tfrac")},
    "sqrt": Command("sqrt", "√", "sqrt"),
    **{name: Command("accent", mark, typst) for name, (mark, typst) in {
        "hat": ("\u0302", "hat"), "bar": ("\u0304", "overline"), "overline": ("\u0305", "overline"),
        "tilde": ("\u0303", "tilde"), "vec": ("\u20d7", "arrow"), "dot": ("\u0307", "dot")}.items()},
    **{name: Command("font", "", typst) for name, typst in {
        "mathbf": "bold", "boldsymbol": "bold", "mathcal": "cal", "mathrm": "upright", "mathbb": "bb",
        "mathit": "italic"}.items()},
    "text": Command("text", "", "text"), "textrm": Command("text", "", "text"),
    "operatorname": Command("operator", "", "op"),
    "begin": Command("environment", "", "mat"),
}

MATRIX_DELIMITERS = {"bmatrix": ("[", "]"), "pmatrix": ("(", ")"), "matrix": ("", "")}
BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "E": "𝔼"}   # \mathbb{R} in a terminal

_COMMAND = re.compile(r"\\([A-Za-z]+|.)")
DIGIT_GROUPS = re.compile(r"\d{1,3}(?:\{,\}\d{3})+(?:\.\d+)?")   # 50{,}257: one number


def missing(medium: str) -> list[str]:
    """The commands this table gives no spelling for in MEDIUM ("terminal" or "typst")."""
    return sorted(name for name, command in COMMANDS.items() if getattr(command, medium) is None)


def command_names(latex: str) -> list[str]:
    """Every command a formula writes, without its backslash (environments by name: 'begin')."""
    return [m.group(1) for m in _COMMAND.finditer(latex)]


class Reader:
    """TeX source read from left to right: a command, a braced group or one character at a time.
    A strict reader raises Untranslatable on source TeX would refuse; a lenient one (for the
    terminal, which must always show something) reads what it can."""

    def __init__(self, text: str, strict: bool) -> None:
        self.text, self.i, self.strict = text, 0, strict

    def done(self) -> bool:
        return self.i >= len(self.text)

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def command(self) -> str:
        """The command at the reader ('frac', ',', '' for a lone backslash), consumed."""
        m = _COMMAND.match(self.text, self.i)
        if m is None:
            if self.strict:
                raise Untranslatable("a lone backslash")
            self.i += 1
            return ""
        self.i = m.end()
        return m.group(1)

    def group(self) -> str:
        """The next {…} group's source, or the single command or character there (after any
        spaces, as TeX reads '\\hat x')."""
        while self.peek() == " ":
            self.i += 1
        if self.peek() == "\\":
            start = self.i
            word = self.command()
            return self.text[start:self.i] if word else ""
        if self.peek() != "{":
            ch = self.peek()
            self.i += len(ch)
            return ch
        depth, start = 0, self.i
        while self.i < len(self.text):
            ch = self.text[self.i]
            depth += (ch == "{") - (ch == "}")
            self.i += 1
            if depth == 0:
                return self.text[start + 1:self.i - 1]
        if self.strict:
            raise Untranslatable("unbalanced braces")
        return self.text[start + 1:]

    def environment(self, name: str) -> tuple[list[list[str]], tuple[str, str]]:
        """A matrix environment's cells (source) and delimiters; the reader is past its \\end."""
        end = self.text.find(f"\\end{{{name}}}", self.i)
        if name not in MATRIX_DELIMITERS or end < 0:
            raise Untranslatable(f"environment {name}")
        body, self.i = self.text[self.i:end], end + len(f"\\end{{{name}}}")
        rows = [row for row in body.split("\\\\") if row.strip()]
        return [[cell.strip() for cell in row.split("&")] for row in rows], MATRIX_DELIMITERS[name]
