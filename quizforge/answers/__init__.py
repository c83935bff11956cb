"""Reading and checking a learner's answers: numbers, option letters and small matrices. The one
owner of answer checking: the practice sessions, `quiz check`, the browser mock and the
problem sets' returns all go through `check.check_answer`.

Nothing here evaluates the learner's text. One concern a module:

- `grammar`: numbers as people type them, through a tokenizer and a recursive-descent
  parser over a restricted grammar (`parse_number`, `AnswerError`);
- `units`: the units an answer may carry, by family, and their sizes;
- `rounding`: the project's one rounding rule, half away from zero;
- `keys`: NAT keys and GATE's range rule (`nat_range`), and checking a typed answer;
- `choices`: MCQ/MSQ option letters;
- `matrices`: matrices typed on the command line or as answers;
- `marks`: GATE's marking scheme;
- `display`: values as text that the grammar reads back;
- `question_keys`: a question's NAT key, and whether two values are one answer under it;
- `matrix_questions`: a question whose key is a whole matrix: read, compared entry by entry, explained;
- `verdict`: the verdict on one answer (marks, feedback, the mistake it matches);
- `check`: checking one answer to one question, whatever its kind (`check_answer`).

The modules from `question_keys` on work on a `bank.question.Question`; the package itself
imports only those before them, so the bank's templates can use it.
Every problem with the learner's text is an `AnswerError` (an `InputError`) whose message is
one line naming it. The names below are the package's public API.
"""

from quizforge.answers.choices import ChoiceKey, check_choice, format_choice, parse_choice
from quizforge.answers.display import format_number, si_short
from quizforge.answers.grammar import FUNCTIONS, MAX_CHARS, MAX_DEPTH, MAX_MAGNITUDE, AnswerError, Number, parse_number
from quizforge.answers.keys import (
    Checked, NumericKey, check_numeric, exact, in_range, nat_range, within_abs, within_rel,
)
from quizforge.answers.marks import KINDS, gate_score, gate_score_exact
from quizforge.answers.rounding import round_half_away, rounded
from quizforge.answers.units import UNIT_FAMILIES

__all__ = [
    "AnswerError", "Number", "parse_number", "parse_choice",
    "NumericKey", "exact", "within_abs", "within_rel", "in_range", "nat_range", "round_half_away", "rounded",
    "ChoiceKey", "Checked", "check_numeric", "check_choice",
    "gate_score", "gate_score_exact", "format_number", "format_choice", "si_short",
    "MAX_CHARS", "MAX_DEPTH", "MAX_MAGNITUDE", "UNIT_FAMILIES", "FUNCTIONS", "KINDS",
]
