"""Parse small matrices typed on the command line into exact fractions.

A hand-written tokenizer and recursive-descent parser over a restricted grammar;
nothing here evaluates the text. Accepted forms:

    [[1,0],[0,1]]        nested lists (commas or whitespace between entries)
    [1, 2, 3]            one row: a 1×3 matrix
    1 0; 0 1             MATLAB style: ';' between rows, spaces or commas between entries
    [1 0; 0 1]           the same inside one pair of brackets
    1 0                  rows on separate lines: a line break between two numbers ends a row
    0 1

Entries: integers, decimals (0.5, .5, -2.), scientific notation (1e-3) and simple
fractions (1/2, -3/4); '−' (U+2212) reads as '-'. With allow_minus_infinity (an additive
mask), -inf, -infinity and -∞ are read as float('-inf'). Every problem is reported as an InputError whose one-line
message starts with the argument's name, e.g. "--q: row 2 has 3 entries, row 1 has 2".
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from quizforge.errors import InputError

MAX_ROWS = 16
MAX_COLS = 16
MAX_CHARS = 4000
MAX_EXPONENT = 400          # |e| in 1e<e>: bounds the work Fraction does on "1e999999999"
MAX_MAGNITUDE = Fraction(10) ** 15  # entries must stay well inside float range for the hand calculations

Matrix = list[list[Fraction]]

_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE](?P<exp>[+-]?[0-9]+))?")
_FRACTION = re.compile(r"(?P<num>[+-]?[0-9]+)/(?P<den>[0-9]+)")
_NON_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity|∞)", re.IGNORECASE)
_MINUS_INFINITY = re.compile(r"-(?:inf|infinity|∞)", re.IGNORECASE)
MINUS_INFINITY = float("-inf")
_PUNCT = "[],;"


@dataclass(frozen=True)
class _Token:
    kind: str   # one of "[", "]", ",", ";", "num"
    text: str
    pos: int    # 1-based character position in the original text
    value: Fraction | None = None


def _fail(name: str, message: str) -> InputError:
    return InputError(f"{name}: {message}")


def quoted(word: str, limit: int = 20) -> str:
    """Quote a user's word for an error message, shortened and on one line."""
    word = word if len(word) <= limit else word[: limit - 1] + "…"
    return repr(word)


def _number(word: str, pos: int, name: str, allow_minus_infinity: bool = False) -> Fraction | float:
    word = word.replace("\u2212", "-")
    if allow_minus_infinity and _MINUS_INFINITY.fullmatch(word):
        return MINUS_INFINITY
    if _NON_FINITE.fullmatch(word):
        raise _fail(name, f"{quoted(word)} at position {pos} is not allowed: entries must be finite numbers")
    m = _FRACTION.fullmatch(word)
    if m:
        if int(m["den"]) == 0:
            raise _fail(name, f"{quoted(word)} at position {pos} has a zero denominator")
        value = Fraction(int(m["num"]), int(m["den"]))
    else:
        m = _DECIMAL.fullmatch(word)
        if not m:
            raise _fail(name, f"{quoted(word)} is not a number at position {pos}")
        if m["exp"] is not None and abs(int(m["exp"])) > MAX_EXPONENT:
            raise _fail(name, f"{quoted(word)} at position {pos}: exponent out of range (at most ±{MAX_EXPONENT})")
        value = Fraction(word)
    if abs(value) > MAX_MAGNITUDE:
        raise _fail(name, f"{quoted(word)} at position {pos} is too large (|entry| ≤ 1e15)")
    return value


def _tokenize(text: str, name: str, allow_minus_infinity: bool = False) -> list[_Token]:
    tokens: list[_Token] = []
    line_break: int | None = None   # position of a line break since the last token
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            if ch == "\n" and line_break is None:
                line_break = i + 1
            i += 1
        elif ch in _PUNCT:
            tokens.append(_Token(ch, ch, i + 1))
            line_break = None
            i += 1
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] not in _PUNCT:
                i += 1
            word = text[start:i]
            if line_break is not None and tokens and tokens[-1].kind == "num":
                tokens.append(_Token(";", "\n", line_break))   # rows typed on separate lines
            tokens.append(_Token("num", word, start + 1, _number(word, start + 1, name, allow_minus_infinity)))
            line_break = None
    return tokens


class _Parser:
    def __init__(self, tokens: list[_Token], name: str, length: int) -> None:
        self.tokens = tokens
        self.i = 0
        self.name = name
        self.end = length + 1  # the position reported for "end of input"

    def peek(self) -> _Token | None:
        return self.tokens[self.i] if self.i < len(self.tokens) else None

    def fail(self, message: str) -> InputError:
        return _fail(self.name, message)

    # ---- bracket form -------------------------------------------------------------------
    def bracketed(self) -> Matrix:
        tok = self.peek()
        assert tok is not None and tok.kind == "["
        items, semicolons = self.list_(depth=1)
        extra = self.peek()
        if extra is not None:
            if extra.kind == "]":
                raise self.fail(f"unbalanced brackets: unexpected ']' at position {extra.pos}")
            raise self.fail(f"unexpected {quoted(extra.text)} at position {extra.pos} after the closing ']'")
        if not items:
            raise self.fail("empty matrix '[]'")
        if isinstance(items[0], list):           # [[...], [...]]: a list of rows
            return items  # type: ignore[return-value]
        if semicolons:                            # [1 0; 0 1]: MATLAB rows inside brackets
            return self.split_rows(items, semicolons)
        return [items]  # type: ignore[list-item]   # [1, 2, 3]: a single row

    def list_(self, depth: int) -> tuple[list, list[int]]:
        """Parse '[' items ']' after checking depth; return (items, item indices where ';' split rows)."""
        open_tok = self.tokens[self.i]
        if depth > 2:
            raise self.fail(f"nesting deeper than 2 levels at position {open_tok.pos} (a matrix is a list of rows)")
        self.i += 1
        items: list = []
        semicolons: list[int] = []
        kinds: set[str] = set()
        expect_item = True      # just after '[' or a separator
        last_sep: _Token | None = None
        while True:
            tok = self.peek()
            if tok is None:
                raise self.fail(f"unbalanced brackets: the '[' at position {open_tok.pos} is never closed")
            if tok.kind == "]":
                if last_sep is not None and last_sep.kind == "," and items:
                    raise self.fail(f"empty entry before ']' at position {tok.pos} (trailing {quoted(last_sep.text)})")
                self.i += 1
                return items, semicolons
            if tok.kind in ",;":
                if tok.kind == ";" and depth > 1:
                    raise self.fail(f"';' inside a row at position {tok.pos} (use ',' between entries)")
                if expect_item:
                    raise self.fail(f"empty entry at position {tok.pos} (nothing before {quoted(tok.text)})")
                if tok.kind == ";":
                    semicolons.append(len(items))
                expect_item, last_sep = True, tok
                self.i += 1
                continue
            # an item: a nested list or a number; whitespace alone may also separate items
            if tok.kind == "[":
                sub, _ = self.list_(depth + 1)
                if not sub:
                    raise self.fail(f"row {len(items) + 1} is empty ('[]' at position {tok.pos})")
                items.append(sub)
                kinds.add("row")
            else:
                items.append(tok.value)
                kinds.add("number")
                self.i += 1
            if len(kinds) > 1:
                raise self.fail(f"a list mixes numbers and rows at position {tok.pos}")
            expect_item, last_sep = False, None

    def split_rows(self, items: list, cuts: list[int]) -> Matrix:
        bounds = [0, *cuts, len(items)]
        rows = [items[a:b] for a, b in zip(bounds, bounds[1:])]
        if not rows[-1] and len(rows) > 1:
            rows.pop()  # a trailing ';' as in "[1 0; 0 1;]"
        return rows

    # ---- bare MATLAB form ---------------------------------------------------------------
    def bare(self) -> Matrix:
        rows: Matrix = [[]]
        expect_item = True
        for tok in self.tokens:
            if tok.kind in "[]":
                raise self.fail(
                    f"unexpected {quoted(tok.text)} at position {tok.pos} "
                    "(use either [[1,0],[0,1]] or 1 0; 0 1, not both)"
                )
            if tok.kind == ";":
                if not rows[-1]:
                    raise self.fail(f"row {len(rows)} is empty (';' at position {tok.pos})")
                if expect_item:
                    raise self.fail(f"empty entry before ';' at position {tok.pos}")
                rows.append([])
                expect_item = True
            elif tok.kind == ",":
                if expect_item:
                    raise self.fail(f"empty entry at position {tok.pos} (nothing before ',')")
                expect_item = True
            else:
                rows[-1].append(tok.value)  # type: ignore[arg-type]
                expect_item = False
        if not rows[-1]:
            if len(rows) == 1:
                raise self.fail("empty matrix")
            rows.pop()  # trailing ';'
        elif expect_item:
            raise self.fail(f"empty entry at the end (trailing ',' before position {self.end})")
        return rows


def check_shape(rows: Sequence[Sequence[object]], name: str = "matrix") -> None:
    """Raise InputError unless rows is a non-empty rectangular matrix within MAX_ROWS × MAX_COLS."""
    if len(rows) == 0:
        raise _fail(name, "empty matrix")
    if len(rows) > MAX_ROWS:
        raise _fail(name, f"{len(rows)} rows is too many for a hand calculation (at most {MAX_ROWS})")
    width = len(rows[0])
    for r, row in enumerate(rows, start=1):
        if len(row) == 0:
            raise _fail(name, f"row {r} is empty")
        if len(row) != width:
            entries = "entry" if len(row) == 1 else "entries"
            raise _fail(name, f"row {r} has {len(row)} {entries}, row 1 has {width}")
    if width > MAX_COLS:
        raise _fail(name, f"{width} columns is too many for a hand calculation (at most {MAX_COLS})")


def parse_matrix(text: str, name: str = "matrix", *, allow_minus_infinity: bool = False) -> Matrix:
    """Parse text such as "[[1,0],[0,1]]", "1 0; 0 1" or rows on separate lines into exact
    Fractions, row by row (with allow_minus_infinity, -inf entries as float('-inf')).

    Raises InputError with a one-line message naming `name` for anything that is not a
    rectangular matrix of finite numbers with 1..16 rows and 1..16 columns.
    """
    if not isinstance(text, str):
        raise _fail(name, f"expected text, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise _fail(name, f"input is {len(text)} characters long (at most {MAX_CHARS})")
    if not text.strip():
        raise _fail(name, "empty input: give a matrix such as [[1,0],[0,1]] or '1 0; 0 1'")
    tokens = _tokenize(text, name, allow_minus_infinity)
    parser = _Parser(tokens, name, len(text))
    rows = parser.bracketed() if tokens[0].kind == "[" else parser.bare()
    check_shape(rows, name)
    return rows


def format_fraction(x: Fraction) -> str:
    """Exact, parseable text for x: '3', '-0.25', '1/3' (a decimal only when it terminates briefly)."""
    x = Fraction(x)
    if x.denominator == 1:
        return str(x.numerator)
    d, twos, fives = x.denominator, 0, 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    places = max(twos, fives)
    if d == 1 and places <= 6:
        sign = "-" if x < 0 else ""
        scaled = abs(x) * 10**places
        whole, frac = divmod(int(scaled), 10**places)
        return f"{sign}{whole}.{frac:0{places}d}"
    return f"{x.numerator}/{x.denominator}"
