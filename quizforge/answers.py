"""Read and check a learner's answers: numbers, option letters and small matrices.

Nothing here evaluates the learner's text: numbers go through a small tokenizer and a
recursive-descent parser over the restricted grammar below, option letters through a
word scanner, matrices through `quizforge.matrices.parse_matrix`. Every problem with
the text is an `AnswerError` (an `InputError`) whose message is one line naming it.

Numbers (`parse_number`), exact `Fraction`s wherever possible:

    expr    := term (('+' | '-') term)*
    term    := unary (('*' | '/' | 'x' | '×') unary)*
    unary   := ('+' | '-') unary | power      never two signs in a row: '--3' is refused
    power   := atom [('^' | '**') unary] [suffix]      right-associative: 2^3^2 = 2^9
    atom    := NUMBER | '(' expr ')' | FUNCTION '(' expr ')'
    suffix  := a unit of the allowed family | '%' (when percentages are allowed)

  NUMBER: 1048576, 1,048,576, 1_048_576, 1 048 576 (also thin / no-break spaces),
  Indian grouping 10,48,576; 0.125, .5, -2., 3.2e9, 1E-3; 10⁹ (superscript powers).
  A separator must group digits in threes (or Indian style, 2s then a final 3), so
  '1,2' is rejected as ambiguous instead of read as 12. No implicit multiplication:
  '2(3)' is an error. FUNCTION: sqrt, ln, log2, log10, exp; these compute with
  floats unless the result is exact (sqrt(64) = 8, log2(1024) = 10).

  Units, by family (`unit=`): None (plain numbers only); "count": K/k 1e3, M 1e6,
  B/G 1e9, T 1e12, thousand, million, billion, trillion, lakh, crore; "bytes": B,
  byte(s), KB/kB MB GB TB PB (powers of 1000), KiB MiB GiB TiB PiB (powers of 1024),
  a bare number being bytes; "flops": FLOP, FLOPs, FLOPS with an optional prefix
  k/K M G T P E (GFLOPs, 1.2 PFLOP), or a count multiplier (175B, 1.2P, 175B FLOPs);
  "time": s, sec, min, h, hr, d, w and the words (seconds, minutes, hours, days, weeks),
  a bare number being in the unit the question asks in.
  A unit scales the power/number just before it: '1 + 2K' is 2001, '2^30 B' 2^30.
  `names`: the words for the unit a question asks in ('days'), accepted once, at the
  very end, as that unit ('4.8 days'); with 'x' among them a trailing 'x' or '×' marks a
  ratio ('4x'). A short form too coarse for the accepted range and not in it ('1.05M'
  where the exact count is asked) is refused with that reason (check_numeric), unless
  the key states its decimal places (then every writing is judged by its value) or the
  value is a modelled mistake (then it is named). In a count asked in millions or
  billions, a bare number of at least one such unit is the count itself (25,224,192 is
  25.224192 million; Checked.raw_count says so).
  `scale` is the size of the unit a question asks in (2**30 for "in GiB"): a bare
  number is read in that unit, a number with a unit is converted to it.

  Guards: at most 200 characters, nesting (brackets, powers, signs) at most 20 deep,
  every intermediate result within ±1e30, powers checked for size before they are
  computed (9^9^9^9 is refused at once), division by zero reported.

NAT ranges (`nat_range`), the GATE rule used here: the key v is rounded half away from
zero to N decimals, c = round(v, N); for N ≥ 1 an answer x is accepted iff
c − 10^−N ≤ x ≤ c + 10^−N (inclusive, compared exactly; x itself is not rounded and
needs no particular number of decimals: 0.5 is fine for 0.50). For N = 0 (an integer
answer) only x = c is accepted, as GATE publishes such keys as "c to c". Example:
key 0.5, N = 2 → [0.49, 0.51]; key 1/3, N = 2 → [0.32, 0.34].

GATE marking (`gate_score`): a wrong MCQ costs a third of its marks, MSQ and NAT are
all-or-nothing with no negative marks, an unattempted question scores 0.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Context, Decimal
from fractions import Fraction
from functools import cached_property
from typing import Iterable, Mapping, Sequence, Union

from quizforge.errors import InputError
from quizforge.matrices import check_shape, parse_matrix

__all__ = [
    "AnswerError", "Number", "Matrix", "parse_number", "parse_choice", "parse_matrix_answer",
    "NumericKey", "exact", "within_abs", "within_rel", "in_range", "nat_range", "round_half_away", "rounded",
    "ChoiceKey", "MatrixKey", "Checked", "check_numeric", "check_choice", "check_matrix",
    "gate_score", "gate_score_exact", "format_number", "format_choice", "si_short",
    "MAX_CHARS", "MAX_DEPTH", "MAX_MAGNITUDE", "UNIT_FAMILIES", "FUNCTIONS", "KINDS",
]

Number = Union[Fraction, float]
Matrix = tuple[tuple[Fraction, ...], ...]

MAX_CHARS = 200                    # longest number / option answer read
MAX_DEPTH = 20                     # brackets, powers and signs nested at most this deep
MAX_MAGNITUDE = Fraction(10) ** 30  # |every intermediate result| ≤ 1e30
MAX_LITERAL_EXPONENT = 100         # |e| in 1e<e>
MAX_BITS = 4096                    # numerator/denominator size of an exact power
FLOAT_RTOL = 1e-12                 # exact keys vs values that went through floats
UNIT_FAMILIES = (None, "count", "bytes", "flops", "time")
MODES = ("exact", "abs", "rel", "range")
FUNCTIONS = ("sqrt", "ln", "log2", "log10", "exp")
KINDS = ("MCQ", "MSQ", "NAT")


class AnswerError(InputError):
    """A learner's answer could not be read; the one-line message says why."""


# =============================================================================== tokenizer

_DIGITS = "0123456789"
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
_SPACES = " \u00a0\u2007\u2009\u202f"           # spaces that may group digits: 1 048 576
_MINUS = "-\u2212\u2013"                         # '-', '−', '–'
_TIMES = "*\u00d7\u00b7\u22c5\u2219"             # '*', '×', '·', '⋅', '∙'
_DIVIDE = "/\u00f7\u2215"                        # '/', '÷', '∕'
_SUP_DIGITS = {"\u2070": "0", "\u00b9": "1", "\u00b2": "2", "\u00b3": "3", "\u2074": "4",
               "\u2075": "5", "\u2076": "6", "\u2077": "7", "\u2078": "8", "\u2079": "9"}
_SUP_SIGNS = {"\u207b": "-", "\u207a": "+"}


@dataclass(frozen=True)
class _Tok:
    kind: str          # "num", "word", "+", "-", "*", "/", "^", "(", ")", "%"
    text: str          # as typed
    pos: int           # 1-based position in the text
    value: Fraction | None = None


def _show(word: str, limit: int = 24) -> str:
    """Quote user text for a message: shortened, on one line."""
    word = word if len(word) <= limit else word[: limit - 1] + "…"
    return repr(word)


def _check_grouping(groups: list[str], seps: set[str], word: str, pos: int) -> None:
    shown = _show(word)
    if len(seps) > 1:
        raise AnswerError(f"{shown} at position {pos} mixes digit separators: use one kind, as in 1,048,576")
    first, rest = groups[0], groups[1:]
    western = len(first) <= 3 and all(len(g) == 3 for g in rest)
    indian = len(first) <= 2 and len(rest) >= 2 and all(len(g) == 2 for g in rest[:-1]) and len(rest[-1]) == 3
    if (western or indian) and not first.startswith("0"):
        return
    if seps == {","} and len(rest) == 1:
        raise AnswerError(
            f"{shown} at position {pos} is ambiguous: write a decimal point as '.' ({first}.{rest[0]}); "
            "',' only groups digits, as in 1,048,576"
        )
    raise AnswerError(
        f"{shown} at position {pos} is not a valid digit grouping: "
        "use groups of three (1,048,576) or Indian style (10,48,576)"
    )


def _lex_number(text: str, i: int) -> tuple[_Tok, int]:
    n, start, j = len(text), i, i
    while j < n and text[j] in _DIGITS:
        j += 1
    groups = [text[i:j]] if j > i else []
    seps: set[str] = set()
    while groups and j + 1 < n and (text[j] in ",_" or text[j] in _SPACES) and text[j + 1] in _DIGITS:
        seps.add("space" if text[j] in _SPACES else text[j])
        k = j + 1
        while k < n and text[k] in _DIGITS:
            k += 1
        groups.append(text[j + 1 : k])
        j = k
    if len(groups) > 1:
        _check_grouping(groups, seps, text[start:j], start + 1)
    frac = ""
    if j < n and text[j] == ".":
        k = j + 1
        while k < n and text[k] in _DIGITS:
            k += 1
        frac, j = text[j + 1 : k], k
    exponent = 0
    if j < n and text[j] in "eE":
        k = j + 1
        negative = k < n and text[k] in _MINUS
        if k < n and (text[k] == "+" or negative):
            k += 1
        m = k
        while m < n and text[m] in _DIGITS:
            m += 1
        if m > k:
            exponent = int(text[k:m])
            if exponent > MAX_LITERAL_EXPONENT:
                raise AnswerError(
                    f"exponent out of range in {_show(text[start:m])} at position {start + 1} "
                    f"(at most e±{MAX_LITERAL_EXPONENT})"
                )
            exponent = -exponent if negative else exponent
            j = m
        elif not (k == j + 1 and k < n and text[k] in _LETTERS):   # '2EFLOPs': a word follows
            raise AnswerError(
                f"could not read {_show(text[start:k])} as a number: the exponent after {text[j]!r} is missing"
            )
    word = text[start:j]
    if j < n and text[j] == ".":
        raise AnswerError(f"unexpected '.' at position {j + 1} after {_show(word)}")
    if word == "0" and j + 1 < n and text[j] in "xX" and text[j + 1].isalnum():
        raise AnswerError(f"hexadecimal numbers are not supported (position {start + 1})")
    digits = "".join(groups) + frac
    value = Fraction(int(digits)) * Fraction(10) ** (exponent - len(frac))
    return _Tok("num", word, start + 1, value), j


def _tokenize(text: str) -> list[_Tok]:
    toks: list[_Tok] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif ch in _DIGITS or (ch == "." and i + 1 < n and text[i + 1] in _DIGITS):
            tok, i = _lex_number(text, i)
            toks.append(tok)
        elif ch in _LETTERS or ch == "_":
            j = i
            while j < n and (text[j] in _LETTERS or text[j] == "_"):
                j += 1
            if text[i:j].lower() == "log":          # log2, log10
                while j < n and text[j] in _DIGITS:
                    j += 1
            toks.append(_Tok("word", text[i:j], i + 1))
            i = j
        elif ch == "*" and i + 1 < n and text[i + 1] == "*":
            toks.append(_Tok("^", "**", i + 1))
            i += 2
        elif ch in _SUP_DIGITS or ch in _SUP_SIGNS:   # 10⁹, 2⁻³
            j = i + 1 if ch in _SUP_SIGNS else i
            k = j
            while k < n and text[k] in _SUP_DIGITS:
                k += 1
            if k == j:
                raise AnswerError(f"unexpected {ch!r} at position {i + 1}")
            toks.append(_Tok("^", text[i:k], i + 1))
            if _SUP_SIGNS.get(ch) == "-":
                toks.append(_Tok("-", ch, i + 1))
            toks.append(_Tok("num", text[j:k], j + 1, Fraction(int("".join(_SUP_DIGITS[c] for c in text[j:k])))))
            i = k
        else:
            kind = ("+" if ch == "+" else "-" if ch in _MINUS else "*" if ch in _TIMES else
                    "/" if ch in _DIVIDE else ch if ch in "^()%" else None)
            toks.append(_Tok(kind or "bad", ch, i + 1))   # the parser reports a "bad" token
            i += 1
    return toks


# =============================================================================== units

_COUNT_SUFFIXES = {"K": 10**3, "k": 10**3, "M": 10**6, "B": 10**9, "G": 10**9, "T": 10**12}
_COUNT_WORDS = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12,
                "lakh": 10**5, "lakhs": 10**5, "crore": 10**7, "crores": 10**7}
_BYTE_UNITS = {"B": 1, "kB": 10**3, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12, "PB": 10**15,
               "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50}
_BYTE_WORDS = {"byte": 1, "bytes": 1}
_BIT_UNITS = {"b", "kb", "Kb", "Mb", "Gb", "Tb", "bit", "bits", "Kib", "Mib", "Gib"}
_FLOP_PREFIXES = {"": 1, "k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18}
_FLOP_MULTIPLIERS = {**_COUNT_SUFFIXES, "P": 10**15, "E": 10**18}
# Durations in seconds; 'm' alone is left out (minutes or months?).
_TIME_UNITS = {"s": 1, "sec": 1, "secs": 1, "second": 1, "seconds": 1, "min": 60, "mins": 60, "minute": 60,
               "minutes": 60, "h": 3600, "hr": 3600, "hrs": 3600, "hour": 3600, "hours": 3600,
               "d": 86400, "day": 86400, "days": 86400, "w": 604800, "wk": 604800, "week": 604800, "weeks": 604800}

_UNIT_HINTS = {
    None: "give a plain number",
    "count": "give a count such as 175B or 1.05M (suffixes K, M, B, T)",
    "bytes": "give bytes, e.g. 512 MB or 1.25 GiB (KB, MB, GB: powers of 1000; KiB, MiB, GiB: of 1024)",
    "flops": "give FLOPs, e.g. 1.2e15, 1.2 PFLOPs or 350 GFLOPs",
    "time": "give a duration, e.g. 4.8 days, 115.2 hours or 4.8 d (s, min, h, d, weeks)",
}


def _flop_unit(word: str) -> int | None:
    """Multiplier of 'FLOPs', 'GFLOPs', 'PFLOP', …; None when word is not one."""
    for base in ("flops", "flop"):
        if word.lower().endswith(base):
            prefix = word[: len(word) - len(base)]
            return _FLOP_PREFIXES.get(prefix)
    return None


def _count_unit(word: str) -> int | None:
    return _COUNT_SUFFIXES.get(word) or _COUNT_WORDS.get(word.lower())


def _byte_unit(word: str) -> int | None:
    return _BYTE_UNITS.get(word) or _BYTE_WORDS.get(word.lower())


def _time_unit(word: str) -> int | None:
    return _TIME_UNITS.get(word.lower())


def _is_unit(word: str) -> bool:
    return (_count_unit(word) is not None or _time_unit(word) is not None or _byte_unit(word) is not None or _flop_unit(word) is not None
            or word in _FLOP_MULTIPLIERS or word in _BIT_UNITS or word.lower() in _BIT_UNITS)


def _unit_family(unit: str | None) -> str | None:
    if unit == "none":
        return None
    if unit not in UNIT_FAMILIES:
        raise ValueError(f"unit must be one of {UNIT_FAMILIES} (or 'none'), not {unit!r}")
    return unit


# =============================================================================== parser

def _is_exact(x: Number) -> bool:
    return isinstance(x, Fraction)


def _iroot(m: int, q: int) -> int | None:
    """The integer q-th root of m ≥ 0 when m is a perfect q-th power, else None (best effort)."""
    if m < 2:
        return m
    if q == 2:
        r = math.isqrt(m)
        return r if r * r == m else None
    if m.bit_length() / q > 1000:
        return None
    r = round(math.exp(math.log(m) / q))
    for c in (r - 1, r, r + 1):
        if c >= 0 and c**q == m:
            return c
    return None


def _exact_root(x: Fraction, q: int) -> Fraction | None:
    num, den = _iroot(x.numerator, q), _iroot(x.denominator, q)
    return None if num is None or den is None else Fraction(num, den)


class _Parser:
    def __init__(self, text: str, tokens: list[_Tok], unit: str | None, allow_percent: bool,
                 scale: Fraction = Fraction(1), names: tuple[str, ...] = ()) -> None:
        self.text = text
        self.names = frozenset(name.lower() for name in names)
        self.scale = scale
        self.tokens = tokens
        self.unit = unit
        self.allow_percent = allow_percent
        self.i = 0
        self.depth = 0

    # ---- helpers ----------------------------------------------------------------------
    def peek(self, k: int = 0) -> _Tok | None:
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else None

    def enter(self, tok: _Tok) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise AnswerError(
                f"nested too deeply at position {tok.pos} (at most {MAX_DEPTH} levels of brackets, powers and signs)"
            )

    def leave(self) -> None:
        self.depth -= 1

    @staticmethod
    def too_large(what: str, tok: _Tok) -> AnswerError:
        return AnswerError(f"{what} at position {tok.pos} is too large: numbers must stay within ±1e30")

    def check(self, v: Number, tok: _Tok, what: str) -> Number:
        if isinstance(v, float):
            if not math.isfinite(v) or abs(v) > 1e30:
                raise self.too_large(what, tok)
        else:
            if abs(v) > MAX_MAGNITUDE:
                raise self.too_large(what, tok)
            if v.denominator.bit_length() > MAX_BITS:
                raise AnswerError(f"{what} at position {tok.pos} needs too many digits")
        return v

    @staticmethod
    def unexpected(tok: _Tok, tail: str = "") -> AnswerError:
        hint = ""
        if tok.text == ",":
            hint = " (write a decimal point as '.'; ',' only groups digits, as in 1,048,576)"
        elif tok.kind == "bad" and tok.text in "'\"`[]{}=;:!?@#$&|<>~\\":
            hint = " (only numbers, + - * / ^, brackets, sqrt/ln/log2/log10/exp and units are read)"
        return AnswerError(f"unexpected {_show(tok.text)} at position {tok.pos}{tail}{hint}")

    def is_times_word(self, tok: _Tok | None) -> bool:
        return tok is not None and tok.kind == "word" and tok.text in ("x", "X")

    # ---- grammar ----------------------------------------------------------------------
    def parse(self) -> Number:
        value = self.expr()
        tok = self.peek()
        if tok is not None:
            if tok.kind == "num" or tok.kind == "(" or (tok.kind == "word" and tok.text.lower() in FUNCTIONS):
                raise AnswerError(
                    f"missing operator before {_show(tok.text)} at position {tok.pos} "
                    "(no implicit multiplication: write 2*(3), not 2(3))"
                )
            raise self.unexpected(tok)
        return value

    def expr(self) -> Number:
        value = self.term()
        while (tok := self.peek()) is not None and tok.kind in ("+", "-"):
            self.i += 1
            rhs = self.term()
            value = self.check(value + rhs if tok.kind == "+" else value - rhs, tok,
                               "the sum" if tok.kind == "+" else "the difference")
        return value

    def is_ratio_mark(self, tok: _Tok) -> bool:
        """A trailing 'x' or '×' where the question asks for a ratio: '4x' is 4."""
        return "x" in self.names and tok.text in ("x", "X", "\u00d7") and self.peek(1) is None

    def term(self) -> Number:
        value = self.unary()
        while (tok := self.peek()) is not None and (tok.kind in ("*", "/") or self.is_times_word(tok)):
            if self.is_ratio_mark(tok):
                self.i += 1
                break
            self.i += 1
            rhs = self.unary()
            if tok.kind == "/":
                if rhs == 0:
                    raise AnswerError(f"division by zero at position {tok.pos}")
                value = self.check(value / rhs, tok, "the quotient")
            else:
                value = self.check(value * rhs, tok, "the product")
        return value

    def unary(self, allow_suffix: bool = True) -> Number:
        tok = self.peek()
        if tok is not None and tok.kind in ("+", "-"):
            self.i += 1
            nxt = self.peek()
            if nxt is not None and nxt.kind in ("+", "-"):
                # '--3' is a slip, not a double negation: reading it as 3 would score a sign error
                raise AnswerError(f"two signs in a row ({tok.text}{nxt.text}) at position {tok.pos}: write one sign, "
                                  "or brackets: -(-3)")
            self.enter(tok)
            value = self.unary(allow_suffix)
            self.leave()
            return -value if tok.kind == "-" else value
        return self.power(allow_suffix)

    def power(self, allow_suffix: bool = True) -> Number:
        value = self.atom()
        tok = self.peek()
        if tok is not None and tok.kind == "^":
            self.i += 1
            self.enter(tok)
            exponent = self.unary(allow_suffix=False)
            self.leave()
            value = self.pow(value, exponent, tok)
        if allow_suffix:
            value = self.suffix(value)
        return value

    def atom(self) -> Number:
        tok = self.peek()
        if tok is None:
            prev = self.tokens[self.i - 1] if self.i else None
            if prev is None:
                raise AnswerError("empty answer: give a number")
            raise AnswerError(f"incomplete answer: a number should follow {_show(prev.text)} at position {prev.pos}")
        if tok.kind == "num":
            self.i += 1
            return self.check(tok.value, tok, _show(tok.text))  # type: ignore[arg-type]
        if tok.kind == "(":
            self.enter(tok)
            self.i += 1
            inner = self.peek()
            if inner is not None and inner.kind == ")":
                raise AnswerError(f"empty brackets '()' at position {tok.pos}")
            value = self.expr()
            close = self.peek()
            if close is None:
                raise AnswerError(f"the '(' at position {tok.pos} is never closed")
            if close.kind != ")":
                if close.kind in ("num", "(") or close.kind == "word" and close.text.lower() in FUNCTIONS:
                    raise AnswerError(
                        f"missing operator before {_show(close.text)} at position {close.pos} "
                        "(no implicit multiplication: write 2*(3), not 2(3))"
                    )
                raise self.unexpected(close)
            self.i += 1
            self.leave()
            return value
        if tok.kind == "word":
            return self.word_atom(tok)
        if tok.kind in (")", "bad"):
            raise self.unexpected(tok)
        raise self.unexpected(tok, ": a number should come first")

    def word_atom(self, tok: _Tok) -> Number:
        word, nxt = tok.text, self.peek(1)
        name = word.lower()
        if name in FUNCTIONS:
            if nxt is None or nxt.kind != "(":
                raise AnswerError(f"{_show(word)} at position {tok.pos} needs brackets: write {name}(…)")
            self.i += 1
            self.enter(tok)
            arg = self.atom()
            self.leave()
            return self.call(name, arg, tok)
        if name == "log":
            raise AnswerError(f"'log' at position {tok.pos} is ambiguous: write ln, log2 or log10")
        if nxt is not None and nxt.kind == "(":
            raise AnswerError(
                f"unknown function {_show(word)} at position {tok.pos} (allowed: {', '.join(FUNCTIONS)})"
            )
        if word in ("x", "X"):
            raise AnswerError(f"unexpected {word!r} at position {tok.pos}: a number should come first")
        if _is_unit(word):
            raise AnswerError(f"the unit {_show(word)} at position {tok.pos} needs a number before it")
        if len(self.tokens) == 1:
            raise AnswerError(f"could not read {_show(self.text.strip())} as a number")
        raise AnswerError(f"could not read {_show(word)} at position {tok.pos} as a number")

    def suffix(self, value: Number) -> Number:
        tok = self.peek()
        if tok is None:
            return value
        if tok.kind == "%":
            if not self.allow_percent:
                raise AnswerError(
                    f"a percentage is not expected here (position {tok.pos}): give a plain number, e.g. 0.15 for 15%"
                )
            self.i += 1
            return value / 100
        if tok.kind != "word" or self.is_times_word(tok):
            return value
        nxt = self.peek(1)
        if tok.text.lower() in FUNCTIONS or tok.text.lower() == "log" or (nxt is not None and nxt.kind == "("):
            return value      # reported as a missing operator
        if tok.text.lower() in self.names and nxt is None:     # the question's own unit: '4.8 days'
            self.i += 1
            return value
        multiplier, used = self.unit_multiplier(tok, nxt)
        self.i += used
        return self.check(value * multiplier, tok, f"the value in {tok.text}")

    def unit_multiplier(self, tok: _Tok, nxt: _Tok | None) -> tuple[Fraction, int]:
        word, family = tok.text, self.unit
        found: int | None = None
        used = 1
        if family == "count":
            found = _count_unit(word)
        elif family == "bytes":
            found = _byte_unit(word)
            if found is None and (word in _BIT_UNITS or word.lower() in ("bit", "bits")):
                raise AnswerError(
                    f"{_show(word)} at position {tok.pos} would mean bits: give bytes, e.g. MB or MiB (capital B)"
                )
        elif family == "time":
            found = _time_unit(word)
        elif family == "flops":
            found = _flop_unit(word)
            if found is None:
                found = _FLOP_MULTIPLIERS.get(word) or _COUNT_WORDS.get(word.lower())
                if found is not None and nxt is not None and nxt.kind == "word" and _flop_unit(nxt.text) == 1:
                    used = 2              # '175B FLOPs'
        if found is not None:
            return Fraction(found) / self.scale, used
        hint = _UNIT_HINTS[family]
        if _is_unit(word):
            raise AnswerError(f"units {_show(word)} are not expected here: {hint}")
        raise AnswerError(f"could not read {_show(word)} at position {tok.pos} as a unit: {hint}")

    # ---- arithmetic -------------------------------------------------------------------
    def pow(self, base: Number, exponent: Number, tok: _Tok) -> Number:
        if _is_exact(base) and _is_exact(exponent):
            assert isinstance(base, Fraction) and isinstance(exponent, Fraction)
            if exponent.denominator == 1:
                return self.int_power(base, exponent.numerator, tok)
            if base > 0 and exponent.denominator <= 64:
                root = _exact_root(base, exponent.denominator)
                if root is not None:
                    return self.int_power(root, exponent.numerator, tok)
        b, e = float(base), float(exponent)
        if b < 0 and not e.is_integer():
            raise AnswerError(f"a negative number to a fractional power at position {tok.pos} is not a real number")
        if b == 0 and e < 0:
            raise AnswerError(f"division by zero at position {tok.pos} (0 to a negative power)")
        try:
            result = math.pow(b, e)
        except OverflowError:
            raise self.too_large("the power", tok) from None
        except ValueError:
            raise AnswerError(f"the power at position {tok.pos} cannot be computed") from None
        return self.check(result, tok, "the power")

    def int_power(self, base: Fraction, n: int, tok: _Tok) -> Fraction:
        if base == 0:
            if n < 0:
                raise AnswerError(f"division by zero at position {tok.pos} (0 to a negative power)")
            return Fraction(1) if n == 0 else Fraction(0)
        if n == 0:
            return Fraction(1)
        a = abs(base)
        if a == 1:
            return base if n % 2 else Fraction(1)
        size = (math.log10(a.numerator) - math.log10(a.denominator)) * n
        if size > 30.01:
            raise self.too_large("the power", tok)
        if abs(n) * max(a.numerator.bit_length(), a.denominator.bit_length()) > MAX_BITS:
            raise AnswerError(f"the power at position {tok.pos} needs too many digits")
        return self.check(base**n, tok, "the power")  # type: ignore[return-value]

    def call(self, name: str, x: Number, tok: _Tok) -> Number:
        pos = tok.pos
        if name == "sqrt" and x < 0:
            raise AnswerError(f"sqrt at position {pos} of a negative number")
        if name in ("ln", "log2", "log10") and x <= 0:
            raise AnswerError(f"{name} at position {pos} needs a positive number")
        if isinstance(x, Fraction):
            if name == "sqrt" and (root := _exact_root(x, 2)) is not None:
                return root
            num, den = x.numerator, x.denominator
            if name == "log2":
                if den == 1 and num & (num - 1) == 0:
                    return Fraction(num.bit_length() - 1)
                if num == 1 and den & (den - 1) == 0:
                    return Fraction(1 - den.bit_length())
            if name == "log10":
                k = den if num == 1 else num
                if (num == 1 or den == 1) and k == 10 ** (len(str(k)) - 1):
                    return Fraction(len(str(num)) - len(str(den)))
        fn = {"sqrt": math.sqrt, "ln": math.log, "log2": math.log2, "log10": math.log10, "exp": math.exp}[name]
        try:
            result = fn(float(x))
        except OverflowError:
            raise self.too_large(f"{name}(…)", tok) from None
        except ValueError:
            raise AnswerError(f"{name}(…) at position {pos} cannot be computed") from None
        return self.check(result, tok, f"{name}(…)")


def parse_number(text: str, unit: str | None = None, *, allow_percent: bool = False,
                 scale: int | Fraction = 1, names: Sequence[str] = ()) -> Number:
    """Read a learner's number: a Fraction when exact, a float once a function or a
    fractional power was involved. `unit` names the unit family allowed (None, "count",
    "bytes", "flops"); values with units come back in base units (bytes, FLOPs, ones)
    divided by `scale`, the size of the unit the question asks in (2**30 when it asks
    in GiB), while a bare number is taken to be in that unit already. `allow_percent`
    lets '15%' mean 0.15. `names` are words for the unit the question asks in ('days';
    'x' for a ratio): one may end the answer and means that unit ('4.8 days', '4x').
    Raises AnswerError with a one-line message."""
    family = _unit_family(unit)
    scale = Fraction(scale)
    if scale <= 0:
        raise ValueError(f"scale must be positive, not {scale}")
    if not isinstance(text, str):
        raise AnswerError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise AnswerError(f"answer is {len(text)} characters long (at most {MAX_CHARS})")
    if not text.strip():
        raise AnswerError("empty answer: give a number")
    return _Parser(text, _tokenize(text), family, allow_percent, scale, tuple(names)).parse()


# =============================================================================== keys

def _key_number(x: object, name: str) -> Number:
    if isinstance(x, bool) or not isinstance(x, (int, Fraction, float, Decimal)):
        raise TypeError(f"{name} must be an int, Fraction, Decimal or float, not {type(x).__name__}")
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{name} must be finite, not {x}")
        return x
    return Fraction(x)


def _frac(x: Number) -> Fraction:
    return x if isinstance(x, Fraction) else Fraction(x)


_WIDE = Context(prec=80)   # every value within ±1e30 to 12 places fits


def round_half_away(x: Number, decimals: int) -> Fraction:
    """x rounded to `decimals` places, halves away from zero: 0.125 → 0.13, -0.125 → -0.13.

    The one rounding rule of the bank: keys, ranges and printed values all come through here.
    A float is rounded as its shortest decimal form reads (2.675 → 2.68, as a person would),
    not as its binary value (2.67499999…); exact values are rounded exactly."""
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"cannot round {x}")
        q = Decimal(repr(x)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP,
                                          context=_WIDE)
        return Fraction(q)
    f = _frac(x)
    scaled = abs(f) * 10**decimals
    r = math.floor(scaled + Fraction(1, 2))
    return Fraction(r if f >= 0 else -r, 10**decimals)


def rounded(x: Number, decimals: int) -> float:
    """round_half_away as a float, for keys stored as floats (round() would round half to even)."""
    return float(round_half_away(x, decimals))


@dataclass(frozen=True)
class NumericKey:
    """The key of a NAT question and how close an answer must be.

    mode "exact": x == value (when x or value is a float, within FLOAT_RTOL relatively);
    "abs": |x − value| ≤ tol; "rel": |x − value| ≤ tol·|value|; "range": low ≤ x ≤ high
    (nat_range builds one from `decimals`). `unit`, `allow_percent` and `scale` say how
    to read the learner's text (see parse_number); the key is in units of `scale`."""

    value: Number
    mode: str = "exact"
    tol: Number = Fraction(0)
    low: Number | None = None
    high: Number | None = None
    decimals: int | None = None
    unit: str | None = None
    allow_percent: bool = False
    scale: Fraction = Fraction(1)
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "value", _key_number(self.value, "value"))
        set_(self, "tol", _key_number(self.tol, "tol"))
        set_(self, "unit", _unit_family(self.unit))
        set_(self, "scale", Fraction(_key_number(self.scale, "scale")))
        if self.mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, not {self.mode!r}")
        if self.tol < 0 or self.scale <= 0:
            raise ValueError("tol must be ≥ 0 and scale > 0")
        if self.decimals is not None and not (isinstance(self.decimals, int) and 0 <= self.decimals <= 12):
            raise ValueError(f"decimals must be an int in 0..12, not {self.decimals!r}")
        if self.mode == "range":
            if self.low is None or self.high is None:
                raise ValueError("a 'range' key needs low and high")
            set_(self, "low", _key_number(self.low, "low"))
            set_(self, "high", _key_number(self.high, "high"))
            if _frac(self.low) > _frac(self.high):  # type: ignore[arg-type]
                raise ValueError(f"low {self.low} > high {self.high}")

    def interval(self) -> tuple[Fraction, Fraction]:
        """The accepted closed interval [low, high], exactly: the values of the two ends that
        range_text prints, so a printed end is always accepted and nothing beyond it is."""
        (low, _), (high, _) = self._printed_ends
        return low, high

    @cached_property
    def _printed_ends(self) -> tuple[tuple[Fraction, str], tuple[Fraction, str]]:
        """Each end of the range as (exact value, decimal text): one computation serves both
        what is printed and what is accepted. A float is read as its shortest decimal (1.05e24
        is 1.05e24, not the binary value just below it); an end that is no short decimal is
        rounded outward by less than a hundredth of the range's width, so nothing inside the
        stated tolerance is refused."""
        v = _as_decimal(self.value)
        if self.mode == "exact":
            return (v, ""), (v, "")
        if self.mode == "abs":
            low, high = v - _as_decimal(self.tol), v + _as_decimal(self.tol)
        elif self.mode == "rel":
            d = _as_decimal(self.tol) * abs(v)
            low, high = v - d, v + d
        else:
            low, high = _as_decimal(self.low), _as_decimal(self.high)  # type: ignore[arg-type]
        if self.decimals is not None:
            unit_step = Fraction(1, 10**self.decimals)
            low, high = math.floor(low / unit_step) * unit_step, math.ceil(high / unit_step) * unit_step
            return (low, format_number(low, self.decimals)), (high, format_number(high, self.decimals))
        if low == high:   # a zero tolerance: the value itself, as a fraction if it is no short decimal
            text = _end_text(low) if _short_decimal(low) else format_number(low)
            return (low, text), (high, text)
        step = Fraction(10) ** _floor_log10((high - low) / 100)
        if not _short_decimal(low):
            low = math.floor(low / step) * step
        if not _short_decimal(high):
            high = math.ceil(high / step) * step
        return (low, _end_text(low)), (high, _end_text(high))

    def accepts(self, x: Number) -> bool:
        """Whether the (parsed) value x is a correct answer."""
        if isinstance(x, bool) or not isinstance(x, (int, Fraction, float, Decimal)):
            raise TypeError(f"expected a number, not {type(x).__name__}")
        if isinstance(x, float) and not math.isfinite(x):
            return False
        fx = _frac(x)
        low, high = self.interval()
        if low <= fx <= high:
            return True
        if self.mode == "exact":
            if fx == self._exact_printed_value:
                return True
            if isinstance(x, float) or isinstance(self.value, float):
                v = _frac(self.value)
                return abs(fx - v) <= Fraction(FLOAT_RTOL) * max(abs(fx), abs(v))
        return False

    @cached_property
    def _exact_printed_value(self) -> Fraction:
        """An exact key's value as printed and read back: what it says is accepted, is."""
        return _frac(parse_number(self._exact_text()))

    def with_value(self, other: Number) -> NumericKey:
        """The same kind of key centred on `other` (a misconception's value)."""
        if self.mode != "range":
            return replace(self, value=other)
        if self.decimals is not None:
            return nat_range(other, self.decimals, unit=self.unit, allow_percent=self.allow_percent,
                             scale=self.scale)
        shift = _frac(_key_number(other, "other")) - _frac(self.value)
        low, high = self.interval()
        return replace(self, value=other, low=low + shift, high=high + shift)

    def matches(self, x: Number, other: Number) -> bool:
        """Whether x would be accepted if `other` were the key (same tolerance)."""
        return self.with_value(other).accepts(x)

    def first_match(self, x: Number, alternatives: Mapping[str, Number] | Iterable[tuple[str, Number]]) -> str | None:
        """The label of the first alternative value that x matches, or None."""
        items = alternatives.items() if isinstance(alternatives, Mapping) else alternatives
        for label, other in items:
            if other is not None and self.matches(x, other):
                return label
        return None

    def all_matches(self, x: Number,
                    alternatives: Mapping[str, Number] | Iterable[tuple[str, Number]]) -> tuple[str, ...]:
        """The labels of every alternative value x matches, in order (two wrong formulas can agree)."""
        items = alternatives.items() if isinstance(alternatives, Mapping) else alternatives
        return tuple(label for label, other in items if other is not None and self.matches(x, other))

    def parse(self, text: str) -> Number:
        """Read a learner's text the way this key expects (unit family, percent, scale)."""
        return parse_number(text, self.unit, allow_percent=self.allow_percent, scale=self.scale, names=self.names)

    def range_text(self) -> str:
        """The accepted values as GATE prints them: '0.49 to 0.51', or the exact value."""
        (low, low_text), (high, high_text) = self._printed_ends
        if self.mode == "exact":
            return self._exact_text()
        return low_text if low == high else f"{low_text} to {high_text}"

    def printed_ends(self) -> tuple[str, str]:
        """The two ends as printed ('1.0395e24', '1.0605e24'; an exact key twice): each is
        accepted, exactly, and nothing outside them is (an exact float key: within FLOAT_RTOL)."""
        if self.mode == "exact":
            return self._exact_text(), self._exact_text()
        (_, low_text), (_, high_text) = self._printed_ends
        return low_text, high_text

    def _exact_text(self) -> str:
        """An exact key as printed: its value (a float to 12 significant digits)."""
        if self.decimals is not None:
            return format_number(self.value, self.decimals)
        return format_number(self.value)


def _as_decimal(x: Number) -> Fraction:
    """x exactly, a float read as its shortest decimal form (0.01 is 1/100)."""
    return Fraction(repr(x)) if isinstance(x, float) else Fraction(x)


def _floor_log10(x: Fraction) -> int:
    """The largest k with 10**k <= x (x > 0), exactly."""
    k = math.floor(math.log10(x.numerator) - math.log10(x.denominator))
    while Fraction(10) ** k > x:
        k -= 1
    while Fraction(10) ** (k + 1) <= x:
        k += 1
    return k


_MAX_DIGITS = 15   # an end with more significant digits than this is rounded for print


def _short_decimal(x: Fraction) -> bool:
    """Whether x is a terminating decimal of at most _MAX_DIGITS significant digits."""
    d = x.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        return False
    places = 0
    while (x * 10**places).denominator != 1:
        places += 1
    digits = str(abs((x * 10**places).numerator)).rstrip("0")
    return len(digits) <= _MAX_DIGITS


def _end_text(x: Fraction) -> str:
    """A terminating decimal as text that parse_number reads back to exactly x: '990,000',
    '0.4851', and e-notation for very large or small values ('3.1185e23')."""
    if x.denominator == 1 and abs(x) < 10**15:
        return format_number(x)
    if x != 0 and 10**-4 <= abs(x) < 10**15 and (x * 10**9).denominator == 1:
        return format_number(x)
    places = 0
    while (x * 10**places).denominator != 1:
        places += 1
    sign = "-" if x < 0 else ""
    digits = str(abs((x * 10**places).numerator))
    exponent = len(digits) - 1 - places
    mantissa = digits.rstrip("0") or "0"
    text = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{sign}{text}e{exponent}"


def exact(value: Number, *, unit: str | None = None, allow_percent: bool = False,
          scale: int | Fraction = 1) -> NumericKey:
    """A key accepting exactly `value`."""
    return NumericKey(value, "exact", unit=unit, allow_percent=allow_percent, scale=scale)


def within_abs(value: Number, tol: Number, *, unit: str | None = None, allow_percent: bool = False,
               scale: int | Fraction = 1) -> NumericKey:
    """A key accepting |x − value| ≤ tol."""
    return NumericKey(value, "abs", tol=tol, unit=unit, allow_percent=allow_percent, scale=scale)


def within_rel(value: Number, rtol: Number, *, unit: str | None = None, allow_percent: bool = False,
               scale: int | Fraction = 1) -> NumericKey:
    """A key accepting |x − value| ≤ rtol·|value| (only 0 when value is 0)."""
    return NumericKey(value, "rel", tol=rtol, unit=unit, allow_percent=allow_percent, scale=scale)


def in_range(low: Number, high: Number, *, value: Number | None = None, unit: str | None = None,
             allow_percent: bool = False, scale: int | Fraction = 1) -> NumericKey:
    """A key accepting low ≤ x ≤ high (a range as published); value defaults to the midpoint."""
    if value is None:
        value = (_frac(_key_number(low, "low")) + _frac(_key_number(high, "high"))) / 2
    return NumericKey(value, "range", low=low, high=high, unit=unit, allow_percent=allow_percent, scale=scale)


def nat_range(value: Number, decimals: int, *, unit: str | None = None, allow_percent: bool = False,
              scale: int | Fraction = 1) -> NumericKey:
    """A GATE NAT key "correct to `decimals` places": c = value rounded half away from zero;
    accepts c − 10^−N ≤ x ≤ c + 10^−N for N ≥ 1, and only x = c for N = 0."""
    if not isinstance(decimals, int) or isinstance(decimals, bool) or not 0 <= decimals <= 12:
        raise ValueError(f"decimals must be an int in 0..12, not {decimals!r}")
    c = round_half_away(_key_number(value, "value"), decimals)
    unit_step = Fraction(1, 10**decimals) if decimals >= 1 else Fraction(0)
    return NumericKey(value, "range", low=c - unit_step, high=c + unit_step, decimals=decimals, unit=unit,
                      allow_percent=allow_percent, scale=scale)


# =============================================================================== checking

@dataclass(frozen=True)
class Checked:
    """A read and checked answer. `value`: the parsed number (Fraction/float), option
    indices (frozenset[int]) or matrix (tuple of row tuples); `matched`: for a wrong
    answer, the label of the first alternative (misconception) it equals, else None."""

    value: object
    correct: bool
    matched: str | None = None
    also: tuple[str, ...] = ()     # further alternatives the wrong answer equals just as well
    raw_count: bool = False        # a bare count of ones, read in the question's unit (25,224,192 → 25.2 million)


def check_numeric(key: NumericKey, text: str,
                  alternatives: Mapping[str, Number] | Iterable[tuple[str, Number]] | None = None) -> Checked:
    """Parse text as key expects and check it; a wrong answer is compared with the
    alternatives under the key's tolerance. Raises AnswerError when text is unreadable."""
    value = key.parse(text)
    correct = key.accepts(value)
    raw = None if correct else _as_raw_count(key, text, value)
    if raw is not None:
        value, correct = raw, key.accepts(raw)
    found = () if correct or alternatives is None else key.all_matches(value, alternatives)
    if not correct and not found:     # a short form that is a modelled mistake is diagnosed, not refused
        _refuse_if_too_coarse(key, text, value)
    return Checked(value, correct, found[0] if found else None, found[1:], raw is not None)


def _as_raw_count(key: NumericKey, text: str, value: Number) -> Number | None:
    """A bare number at least one whole unit's worth of ones, in a question that asks for a count
    in millions or billions: the count itself (1.746e11 in billions is 174.6), else None."""
    if key.unit != "count" or key.scale <= 1 or abs(value) < key.scale:
        return None
    try:
        parse_number(text)               # no unit word in it: a plain number
    except AnswerError:
        return None
    return value / key.scale if isinstance(value, Fraction) else value / float(key.scale)


# A number written short: digits, then a power of ten (6.55e6, 6.55×10^6) and/or a scale word
# (6.55M, 6.55 million, 1.2 PFLOPs). Its last written digit says how precise it claims to be.
_SHORT_FORM = re.compile(
    r"\s*[+]?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<frac>\d*))?"
    r"(?:[eE](?P<exp>[+-]?\d+)|\s*[x×*]\s*10\s*(?:\^|\*\*)\s*(?P<pow>[+-]?\d+))?"
    r"\s*(?P<word>[A-Za-z]+)?(?:\s*(?:FLOPs?|FLOPS|flops?))?\s*")


def _suffix_multiplier(key: NumericKey, word: str) -> int | None:
    if key.unit == "count":
        return _count_unit(word)
    if key.unit == "flops":
        found = _flop_unit(word)
        return found if found is not None else (_FLOP_MULTIPLIERS.get(word) or _COUNT_WORDS.get(word.lower()))
    return None


def _refuse_if_too_coarse(key: NumericKey, text: str, value: Number) -> None:
    """A count written short ('1.05M', '1.05e6', '1.05 million') whose last digit written is
    worth more than the whole accepted range is too coarse to be judged: say so instead of
    marking it wrong. One rule for every short form; digits written out in full ('1050000')
    claim every digit and are always judged. The rule looks only at the range's width, never
    at the key, so in a mock it reveals nothing."""
    if key.unit not in ("count", "flops") or key.decimals is not None:
        return      # a question that states its decimal places judges every writing by its value
    m = _SHORT_FORM.fullmatch(text)
    if m is None:
        return
    multiplier = _suffix_multiplier(key, m["word"]) if m["word"] else 1
    power = m["exp"] or m["pow"]
    if multiplier is None or (multiplier <= 1 and power is None):
        return
    whole, places = m["int"].replace(",", ""), len(m["frac"] or "")
    step = Fraction(multiplier) * Fraction(10) ** (int(power or 0) - places) / key.scale   # one unit in the last digit
    low, high = key.interval()
    if step <= high - low or step * key.scale <= 1:   # precise to one: as precise as a count gets
        return
    digits = len((whole + (m["frac"] or "")).lstrip("0")) or 1
    need = {"exact": "the exact value", "rel": f"an answer within {float(key.tol):.1%}"}.get(
        key.mode, "more precision than that")
    raise AnswerError(
        f"{_show(text.strip())} gives only {digits} significant figure{'s' if digits != 1 else ''}; "
        f"this question needs {need}: write more digits"
    )


# ---- options ------------------------------------------------------------------------------

_OPTION_FILLERS = {"", "and", "option", "options", "opt", "answer", "ans", "choice", "choices"}


def _letters_span(n_options: int) -> str:
    return f"a–{chr(ord('a') + n_options - 1)}"


def parse_choice(text: str, n_options: int = 4, multiple: bool = False) -> frozenset[int]:
    """Read option letters as 0-based indices: 'b', 'B', '(b)', 'b)', 'option b' for one
    (multiple=False); 'a,c', 'a c', 'A, C', '{a,c}', 'ac', 'a and c' for several.
    Duplicates collapse. Raises AnswerError for empty text, unknown letters, or more
    than one option when only one is allowed."""
    if isinstance(n_options, bool) or not isinstance(n_options, int) or not 2 <= n_options <= 26:
        raise ValueError(f"n_options must be an int in 2..26, not {n_options!r}")
    if not isinstance(text, str):
        raise AnswerError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise AnswerError(f"answer is {len(text)} characters long (at most {MAX_CHARS})")
    span = _letters_span(n_options)
    how = "one or more options" if multiple else "one option"
    s = text.lower()
    for sep in ",;&+/":
        s = s.replace(sep, " ")
    chosen: set[int] = set()
    for raw in s.split():
        word = raw.strip("()[]{}.:")
        if word in _OPTION_FILLERS:
            continue
        if not all("a" <= ch <= "z" for ch in word):
            if word.isdigit():
                raise AnswerError(f"give option letters ({span}), not numbers such as {_show(word)}")
            raise AnswerError(f"could not read {_show(raw)} as an option letter ({span})")
        indices = [ord(ch) - ord("a") for ch in word]
        if any(k >= n_options for k in indices):
            if len(word) == 1:
                raise AnswerError(f"there is no option {word!r}: choose {how} from {span}")
            raise AnswerError(f"could not read {_show(raw)} as option letters ({span})")
        if len(word) > 1 and not multiple and len(set(indices)) > 1:
            raise AnswerError(f"choose a single option ({span}), not {_show(raw)}")
        chosen.update(indices)
    if not chosen:
        raise AnswerError(f"no option given: choose {how} from {span}")
    if not multiple and len(chosen) > 1:
        raise AnswerError(f"choose a single option ({span}), not {len(chosen)}: {format_choice(chosen)}")
    return frozenset(chosen)


def format_choice(indices: Iterable[int]) -> str:
    """0-based indices as GATE letters: {0, 2} → 'A, C'."""
    return ", ".join(chr(ord("A") + i) for i in sorted(set(indices)))


@dataclass(frozen=True)
class ChoiceKey:
    """The key of an MCQ (exactly one index) or MSQ (one or more; all and only these score)."""

    answer: frozenset[int]
    n_options: int = 4
    multiple: bool = False

    def __post_init__(self) -> None:
        answer = frozenset(self.answer)
        object.__setattr__(self, "answer", answer)
        if not answer or any(not (isinstance(i, int) and 0 <= i < self.n_options) for i in answer):
            raise ValueError(f"answer must be non-empty indices in 0..{self.n_options - 1}, not {sorted(answer)}")
        if not self.multiple and len(answer) != 1:
            raise ValueError("an MCQ key has exactly one correct option")

    @classmethod
    def of(cls, letters: str, n_options: int = 4, multiple: bool = False) -> ChoiceKey:
        """Build a key from letters: ChoiceKey.of('a,c', multiple=True)."""
        return cls(parse_choice(letters, n_options, multiple), n_options, multiple)

    @property
    def kind(self) -> str:
        return "MSQ" if self.multiple else "MCQ"

    def accepts(self, chosen: Iterable[int]) -> bool:
        return frozenset(chosen) == self.answer

    def parse(self, text: str) -> frozenset[int]:
        return parse_choice(text, self.n_options, self.multiple)


def check_choice(key: ChoiceKey, text: str) -> Checked:
    """Parse option letters and check them against the key (MSQ: all and only the correct ones)."""
    chosen = key.parse(text)
    return Checked(chosen, key.accepts(chosen))


# ---- matrices -----------------------------------------------------------------------------

def parse_matrix_answer(text: str) -> Matrix:
    """A matrix answer ('[[1,0],[0,1]]' or '1 0; 0 1') as a tuple of row tuples of Fractions,
    read by quizforge.matrices.parse_matrix; its InputError becomes an AnswerError."""
    try:
        rows = parse_matrix(text, "matrix")
    except AnswerError:
        raise
    except InputError as e:
        raise AnswerError(str(e)) from None
    return tuple(tuple(row) for row in rows)


@dataclass(frozen=True)
class MatrixKey:
    """The key of a matrix answer: same shape, every entry within `tol` (0: exact)."""

    value: Matrix
    tol: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        rows = tuple(tuple(Fraction(_key_number(x, "entry")) for x in row) for row in self.value)
        check_shape(rows, "key")
        object.__setattr__(self, "value", rows)
        object.__setattr__(self, "tol", Fraction(_key_number(self.tol, "tol")))
        if self.tol < 0:
            raise ValueError("tol must be ≥ 0")

    def accepts(self, rows: Sequence[Sequence[Number]]) -> bool:
        if len(rows) != len(self.value) or any(len(r) != len(k) for r, k in zip(rows, self.value)):
            return False
        return all(abs(_frac(x) - y) <= self.tol for r, k in zip(rows, self.value) for x, y in zip(r, k))


def check_matrix(key: MatrixKey, text: str) -> Checked:
    """Parse a matrix answer and check it; a wrong shape is a wrong answer, not an error."""
    rows = parse_matrix_answer(text)
    return Checked(rows, key.accepts(rows))


# =============================================================================== scoring

def gate_score_exact(kind: str, marks: int | Fraction | float, correct: bool | None) -> Fraction:
    """GATE marks for one question: +marks when correct, 0 when unattempted (None);
    when wrong, −marks/3 for an MCQ and 0 for an MSQ or NAT."""
    if not isinstance(kind, str) or kind.upper() not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    m = Fraction(_key_number(marks, "marks"))
    if m <= 0:
        raise ValueError(f"marks must be positive, not {marks}")
    if correct is None:
        return Fraction(0)
    if correct is True:
        return m
    if correct is False:
        return -m / 3 if kind.upper() == "MCQ" else Fraction(0)
    raise TypeError(f"correct must be True, False or None, not {correct!r}")


def gate_score(kind: str, marks: int | Fraction | float, correct: bool | None) -> float:
    """gate_score_exact as a float: a wrong 1-mark MCQ gives -1/3 = -0.333…"""
    return float(gate_score_exact(kind, marks, correct))


# =============================================================================== formatting

def _group(digits: str) -> str:
    return f"{int(digits):,}"


def format_number(x: Number, decimals: int | None = None) -> str:
    """An answer value as text that parse_number reads back: integers with thousands
    separators ('1,048,576'); with `decimals`, rounded half away from zero to exactly
    that many places ('0.50'); otherwise short exact decimals ('0.125'), a fraction for
    other exact values ('1/3'), and floats to 12 significant digits."""
    if decimals is not None:
        q = round_half_away(x, decimals)
        sign = "-" if q < 0 else ""
        scaled = abs(q) * 10**decimals
        whole, frac = divmod(int(scaled), 10**decimals)
        return f"{sign}{whole:,}" + (f".{frac:0{decimals}d}" if decimals else "")
    if isinstance(x, float):
        if x.is_integer() and abs(x) < 1e15:
            return f"{int(x):,}"
        text = format(x, ".12g")
        mantissa, e, exp = text.partition("e")
        sign = "-" if mantissa.startswith("-") else ""
        whole, dot, frac = mantissa.lstrip("-").partition(".")
        return f"{sign}{_group(whole)}{dot}{frac}" + (f"e{int(exp)}" if e else "")
    f = Fraction(x)
    if f.denominator == 1:
        return f"{f.numerator:,}"
    d, places = f.denominator, 0
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d == 1:
        while (f * 10**places).denominator != 1:
            places += 1
        if places <= 9:
            return format_number(f, places)
    return f"{f.numerator:,}/{f.denominator:,}"


def si_short(x: Number, digits: int = 3) -> str:
    """A count in short form with `digits` significant digits: 1048576 → '1.05M',
    175e9 → '175B', 1500 → '1.5K', 512 → '512' (suffixes K, M, B, T as parse_number reads)."""
    f = _frac(x)
    if f == 0:
        return "0"
    sign, a = ("-" if f < 0 else ""), abs(f)
    e = math.floor(math.log10(a.numerator) - math.log10(a.denominator))
    if Fraction(10) ** e > a:          # float log10 slightly off just below a power of ten
        e -= 1
    elif Fraction(10) ** (e + 1) <= a:
        e += 1
    step = Fraction(10) ** (e - digits + 1)
    rounded = math.floor(a / step + Fraction(1, 2)) * step
    for suffix, size in (("T", 10**12), ("B", 10**9), ("M", 10**6), ("K", 10**3), ("", 1)):
        if rounded >= size or size == 1:
            mantissa = rounded / size
            text = format_number(mantissa) if mantissa.denominator != 1 else str(mantissa.numerator)
            return f"{sign}{text}{suffix}"
    raise AssertionError("unreachable")
