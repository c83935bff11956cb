"""Numbers as learners type them, read by a restricted grammar: never evaluated.

A small tokenizer and a recursive-descent parser; every problem with the text is an
`AnswerError` (an `InputError`) whose message is one line naming it.

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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence, Union

from quizforge.answers.units import (
    BIT_UNITS, COUNT_NOUNS, COUNT_WORDS, FLOP_MULTIPLIERS, UNIT_HINTS, byte_unit, count_unit, flop_unit, is_unit,
    time_unit, unit_family,
)
from quizforge.errors import InputError

Number = Union[Fraction, float]

MAX_CHARS = 200                    # longest number / option answer read
MAX_DEPTH = 20                     # brackets, powers and signs nested at most this deep
MAX_MAGNITUDE = Fraction(10) ** 30  # |every intermediate result| ≤ 1e30
MAX_LITERAL_EXPONENT = 100         # |e| in 1e<e>
MAX_BITS = 4096                    # numerator/denominator size of an exact power
FUNCTIONS = ("sqrt", "ln", "log2", "log10", "exp")


class AnswerError(InputError):
    """A learner's answer could not be read; the one-line message says why."""


# ---- tokenizer ----------------------------------------------------------------------------

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


def quoted(word: str, limit: int = 24) -> str:
    """Quote user text for a message: shortened, on one line."""
    word = word if len(word) <= limit else word[: limit - 1] + "…"
    return repr(word)


def _check_grouping(groups: list[str], seps: set[str], word: str, pos: int) -> None:
    shown = quoted(word)
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
                    f"exponent out of range in {quoted(text[start:m])} at position {start + 1} "
                    f"(at most e±{MAX_LITERAL_EXPONENT})"
                )
            exponent = -exponent if negative else exponent
            j = m
        elif not (k == j + 1 and k < n and text[k] in _LETTERS):   # '2EFLOPs': a word follows
            raise AnswerError(
                f"could not read {quoted(text[start:k])} as a number: the exponent after {text[j]!r} is missing"
            )
    word = text[start:j]
    if j < n and text[j] == ".":
        raise AnswerError(f"unexpected '.' at position {j + 1} after {quoted(word)}")
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


# ---- parser -------------------------------------------------------------------------------

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
        return AnswerError(f"unexpected {quoted(tok.text)} at position {tok.pos}{tail}{hint}")

    def is_times_word(self, tok: _Tok | None) -> bool:
        return tok is not None and tok.kind == "word" and tok.text in ("x", "X")

    # ---- grammar ----------------------------------------------------------------------
    def parse(self) -> Number:
        value = self.expr()
        tok = self.peek()
        if tok is not None:
            if tok.kind == "num" or tok.kind == "(" or (tok.kind == "word" and tok.text.lower() in FUNCTIONS):
                raise AnswerError(
                    f"missing operator before {quoted(tok.text)} at position {tok.pos} "
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
            raise AnswerError(f"incomplete answer: a number should follow {quoted(prev.text)} at position {prev.pos}")
        if tok.kind == "num":
            self.i += 1
            return self.check(tok.value, tok, quoted(tok.text))  # type: ignore[arg-type]
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
                        f"missing operator before {quoted(close.text)} at position {close.pos} "
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
                raise AnswerError(f"{quoted(word)} at position {tok.pos} needs brackets: write {name}(…)")
            self.i += 1
            self.enter(tok)
            arg = self.atom()
            self.leave()
            return self.call(name, arg, tok)
        if name == "log":
            raise AnswerError(f"'log' at position {tok.pos} is ambiguous: write ln, log2 or log10")
        if nxt is not None and nxt.kind == "(":
            raise AnswerError(
                f"unknown function {quoted(word)} at position {tok.pos} (allowed: {', '.join(FUNCTIONS)})"
            )
        if word in ("x", "X"):
            raise AnswerError(f"unexpected {word!r} at position {tok.pos}: a number should come first")
        if is_unit(word):
            raise AnswerError(f"the unit {quoted(word)} at position {tok.pos} needs a number before it")
        if len(self.tokens) == 1:
            raise AnswerError(f"could not read {quoted(self.text.strip())} as a number")
        raise AnswerError(f"could not read {quoted(word)} at position {tok.pos} as a number")

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
            found = count_unit(word)
        elif family == "bytes":
            found = byte_unit(word)
            if found is None and (word in BIT_UNITS or word.lower() in ("bit", "bits")):
                raise AnswerError(
                    f"{quoted(word)} at position {tok.pos} would mean bits: give bytes, e.g. MB or MiB (capital B)"
                )
        elif family == "time":
            found = time_unit(word)
        elif family == "flops":
            found = flop_unit(word)
            if found is None:
                found = FLOP_MULTIPLIERS.get(word) or COUNT_WORDS.get(word.lower())
                if found is not None and nxt is not None and nxt.kind == "word" and flop_unit(nxt.text) == 1:
                    used = 2              # '175B FLOPs'
        if found is not None:
            return Fraction(found) / self.scale, used
        hint = UNIT_HINTS[family]
        if is_unit(word):
            raise AnswerError(f"units {quoted(word)} are not expected here: {hint}")
        raise AnswerError(f"could not read {quoted(word)} at position {tok.pos} as a unit: {hint}")

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
    family = unit_family(unit)
    scale = Fraction(scale)
    if scale <= 0:
        raise ValueError(f"scale must be positive, not {scale}")
    if not isinstance(text, str):
        raise AnswerError(f"expected text, got {type(text).__name__}")
    if len(text) > MAX_CHARS:
        raise AnswerError(f"answer is {len(text)} characters long (at most {MAX_CHARS})")
    if not text.strip():
        raise AnswerError("empty answer: give a number")
    if "x" in names and text.count(":") == 1:
        return _ratio(text, family, allow_percent, scale, tuple(names))
    tokens = _tokenize(text)
    if family == "count" and len(tokens) > 1 and tokens[-1].kind == "word" and tokens[-1].text.lower() in COUNT_NOUNS:
        tokens = tokens[:-1]            # '1,048,576 parameters' is the count
    return _Parser(text, tokens, family, allow_percent, scale, tuple(names)).parse()


def _ratio(text: str, family, allow_percent: bool, scale: Fraction, names: tuple[str, ...]) -> Number:
    """'4:1' where a ratio is asked: the first number over the second."""
    left, right = text.split(":")
    names = tuple(n for n in names if n != "x")
    try:
        a = _Parser(left, _tokenize(left), family, allow_percent, scale, names).parse()
        b = _Parser(right, _tokenize(right), family, allow_percent, scale, names).parse()
    except AnswerError as e:
        raise AnswerError(f"could not read the ratio {quoted(text.strip())}: {e}") from None
    if b == 0:
        raise AnswerError(f"the ratio {quoted(text.strip())} divides by zero")
    return a / b
