"""Option answers of MCQ and MSQ questions: letters as people type them, and their keys."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

from quizforge.answers.grammar import MAX_CHARS, AnswerError, quoted
from quizforge.answers.keys import Checked

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
                raise AnswerError(f"give option letters ({span}), not numbers such as {quoted(word)}")
            raise AnswerError(f"could not read {quoted(raw)} as an option letter ({span})")
        indices = [ord(ch) - ord("a") for ch in word]
        if any(k >= n_options for k in indices):
            if len(word) == 1:
                raise AnswerError(f"there is no option {word!r}: choose {how} from {span}")
            raise AnswerError(f"could not read {quoted(raw)} as option letters ({span})")
        if len(word) > 1 and not multiple and len(set(indices)) > 1:
            raise AnswerError(f"choose a single option ({span}), not {quoted(raw)}")
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
