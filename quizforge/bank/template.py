"""Templates: a seeded sampler and solver that a seed turns into a `Question`.

A template function receives its question's `SeedChain` and returns a `Draft`:
the prompt, the computed answer, the named misconceptions with the values their
wrong formulas give, and the worked solution. `Template.question(seed)` then does
what every template shares: MCQ options from the key and the misconceptions
(distinct beyond the grading tolerance), option order from its own stream, the
question ID, and for NAT a fresh draw whenever a modelled mistake would land inside
the accepted range (`Template.draft`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Callable

from quizforge import answers
from quizforge.answers.question_keys import key_for, values_match
from quizforge.bank.question import KINDS, LETTERS, Misconception, Option, Question, Statement, Step, Unit
from quizforge.bank.seeds import SeedChain, Stream, question_chain
from quizforge.bank.steps import math_numbers
from quizforge.errors import InputError

TOPICS = {
    "dims": "Dimensions and shapes",
    "params": "Parameter counts",
    "flops": "FLOPs and compute",
    "memory": "Memory and the KV cache",
    "attention": "Attention by hand",
    "softmax": "Softmax and scaling",
    "positional": "Positional encoding",
    "norms": "Normalization by hand",
    "sampling": "Sampling and decoding",
    "concepts": "Complexity and concepts",
    "matrices": "Whole matrices by hand",
}

N_OPTIONS = 4
_ID = re.compile(r"[a-z]+\.[a-z0-9_]+")


@dataclass
class Draft:
    """What a template computes for one seed."""

    prompt: str
    answer: Any = None                                  # numeric key, or the correct MCQ text
    exact: Any = None                                   # NAT: the true value before rounding (default: answer)
    misconceptions: list[Misconception] = field(default_factory=list)
    solution: list[Step] = field(default_factory=list)
    hints: list[str] = field(default_factory=list)
    decimals: int | None = None
    rel_tol: float | None = None
    unit: Unit | None = None
    fmt: Callable[[Any], str] = str                     # how numbers appear in options and the key
    statements: list[Statement] = field(default_factory=list)  # conceptual MCQ/MSQ pools
    fallback: Callable[[Stream], Any] | None = None     # extra plausible distractors when short
    exhibits: list[Step] = field(default_factory=list)  # matrices and tables the prompt refers to
    verify: Callable[[], Any] | None = None             # the key measured on the reference model (slow)
    # The prompt once the options are drawn, when it depends on them (a note that only some options need).
    prompt_for: Callable[[tuple[Option, ...]], str] | None = None


@dataclass(frozen=True)
class Template:
    id: str
    topic: str
    kind: str
    marks: int
    difficulty: int
    title: str
    generate: Callable[[SeedChain], Draft] = field(compare=False, repr=False)
    light: bool = False       # generates without torch or sympy (fast first prompts)
    # Why the template has too few distinct questions for per-student variants ("" when it has enough).
    fixed_fact: str = ""
    wide: bool = False        # the wider sibling of a narrow template: its chains say so (seeds.widened)

    def draft(self, seed: int) -> tuple[Draft, SeedChain]:
        """What the template draws for `seed`, and the chain it drew from.

        A NAT draw where a modelled mistake (one whose formula does not give the true value)
        lands inside the accepted range is redrawn from a labelled child chain: a question
        must tell the mistake apart from the answer. Seeds whose first draw is fair keep it.
        """
        if not 0 <= seed <= 0xFFFF:
            raise InputError(f"seed {seed} is out of range (0..65535)")
        chain = question_chain(self.id, seed, self.wide)
        draft = self.generate(chain)
        for attempt in range(1, MAX_REDRAWS + 1):
            # A matrix template redraws on its own until every mistake's matrix is told apart.
            if self.kind != "NAT" or isinstance(draft.answer, tuple) or not mistakes_inside_range(draft):
                return draft, chain
            chain = question_chain(self.id, seed, self.wide).child(f"redraw-{attempt}")
            draft = self.generate(chain)
        if self.kind == "NAT" and mistakes_inside_range(draft):
            raise RuntimeError(f"{self.id} seed {seed}: every draw lets a modelled mistake into the accepted range")
        return draft, chain

    def question(self, seed: int) -> Question:
        return self.assemble(seed, *self.draft(seed))

    def assemble(self, seed: int, draft: Draft, chain: SeedChain) -> Question:
        """The question a draw makes: options, their order and the ID (`draft` is left as it is)."""
        qid = f"{self.id}-{seed:04x}"
        misconceptions = draft.misconceptions
        if self.kind == "NAT" and isinstance(draft.answer, tuple):
            from quizforge.answers.matrix_questions import distinct_mistakes

            options: tuple[Option, ...] = ()
            misconceptions = distinct_mistakes(draft.answer, draft.decimals, draft.misconceptions)
        elif self.kind == "NAT":
            options = ()
            # A wrong formula that gives the true value here is no mistake in this question.
            misconceptions = [m for m in draft.misconceptions
                              if m.value is not None and _plausible(m.value) and not gives_true_value(draft, m)]
        elif draft.statements:
            options = _statement_options(self.kind, draft.statements, chain)
        else:
            options = _numeric_options(draft, chain)
        answer_md = _answer_md(self.kind, draft, options)
        return Question(
            id=qid, template=self.id, topic=self.topic, kind=self.kind, marks=self.marks,
            difficulty=self.difficulty, title=self.title,
            prompt=math_numbers(draft.prompt_for(options) if draft.prompt_for is not None else draft.prompt),
            options=options, answer=draft.answer if self.kind == "NAT" else None, answer_md=math_numbers(answer_md),
            decimals=draft.decimals, rel_tol=draft.rel_tol, unit=draft.unit,
            misconceptions=tuple(replace(m, feedback=math_numbers(m.feedback)) for m in misconceptions),
            solution=tuple(replace(step, title=math_numbers(step.title), md=math_numbers(step.md))
                           for step in draft.solution),
            hints=tuple(math_numbers(h) for h in draft.hints),
            exhibits=tuple(replace(e, md=math_numbers(e.md)) for e in draft.exhibits), verify=draft.verify,
        )


MAX_REDRAWS = 40


def gives_true_value(draft: Draft, mistake: Misconception | Any) -> bool:
    """Whether a modelled mistake's formula (or one of its values) gives the true (unrounded)
    value for this draw, as ignoring a mask does on a row the mask leaves alone."""
    value = mistake.value if isinstance(mistake, Misconception) else mistake
    true = draft.exact if draft.exact is not None else draft.answer
    if isinstance(value, str) or isinstance(true, str):
        return value == true
    a, b = float(value), float(true)
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12)


def mistakes_inside_range(draft: Draft) -> list[Misconception]:
    """The modelled mistakes of a NAT draw that its accepted range (or its printed key) takes."""
    key = key_for(draft.answer, decimals=draft.decimals, rel_tol=draft.rel_tol, unit=draft.unit)
    inside = []
    for m in draft.misconceptions:
        # A merged mistake stands for several formulas: each one's own value must stay outside.
        for raw in m.values:
            if raw is None or not _plausible(raw) or gives_true_value(draft, raw):
                continue
            value = raw if isinstance(raw, float) else Fraction(raw)
            # Whoever makes the mistake types it to the decimals asked: that must be refused too.
            typed = value if draft.decimals is None else answers.round_half_away(value, draft.decimals)
            if key.accepts(value) or key.accepts(typed) or draft.fmt(raw) == draft.fmt(draft.answer):
                inside.append(m)
                break
    return inside


REGISTRY: dict[str, Template] = {}


def template(id: str, *, topic: str, kind: str, marks: int, difficulty: int, title: str, light: bool = False,
             fixed_fact: str = "", widened_as: str = ""):
    """Register a template function under a stable id (never rename one: IDs are in answer keys)."""
    if not _ID.fullmatch(id) or id.split(".")[0] != topic:
        raise ValueError(f"template id {id!r} must be '<topic>.<name>'")
    if topic not in TOPICS or kind not in KINDS or marks not in (1, 2) or difficulty not in (1, 2, 3):
        raise ValueError(f"bad metadata for template {id!r}")

    def register_once(t: Template) -> None:
        if not _ID.fullmatch(t.id) or t.id.split(".")[0] != topic or t.id in REGISTRY:
            raise ValueError(f"template id {t.id!r} is malformed or registered twice")
        REGISTRY[t.id] = t

    def register(func: Callable[[SeedChain], Draft]) -> Callable[[SeedChain], Draft]:
        if id in REGISTRY:
            raise ValueError(f"template {id!r} registered twice")
        if widened_as:
            # The narrow template keeps its questions (their IDs are in answer keys); the sibling
            # runs the same function on chains that draw from the wider ranges.
            fixed = fixed_fact or f"few distinct questions; {widened_as} draws from wider ranges"
            REGISTRY[id] = Template(id, topic, kind, marks, difficulty, title, func, light, fixed)
            register_once(Template(widened_as, topic, kind, marks, difficulty, f"{title} (wider ranges)", func, light,
                                   wide=True))
            return func
        REGISTRY[id] = Template(id, topic, kind, marks, difficulty, title, func, light, fixed_fact)
        return func

    return register


# --- options -----------------------------------------------------------------

def _too_close(draft: Draft, a: Any, b: Any) -> bool:
    if draft.fmt(a) == draft.fmt(b):
        return True
    return values_match(a, b, decimals=draft.decimals, rel_tol=draft.rel_tol)


def _numeric_options(draft: Draft, chain: SeedChain) -> tuple[Option, ...]:
    """The key plus three distractors: named misconceptions first, then the fallback's values."""
    chosen: list[Option] = [Option(draft.fmt(draft.answer), True, draft.answer)]

    def admit(value: Any, misconception: Misconception | None) -> None:
        if len(chosen) == N_OPTIONS or value is None or not _plausible(value):
            return
        if any(_too_close(draft, value, o.value) for o in chosen):
            return
        chosen.append(Option(draft.fmt(value), False, value, misconception))

    for m in draft.misconceptions:
        admit(m.value, m)
    if len(chosen) < N_OPTIONS and draft.fallback is not None:
        stream = chain.stream("fallback-distractors")
        for _ in range(64):
            admit(draft.fallback(stream), None)
            if len(chosen) == N_OPTIONS:
                break
    if len(chosen) < N_OPTIONS:
        raise RuntimeError(f"template could not find {N_OPTIONS - 1} distinct distractors")
    return tuple(chain.stream("option-order").shuffled(chosen))


def _plausible(value: Any) -> bool:
    if isinstance(value, str):
        return True
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return x == x and abs(x) < 1e30


def _statement_options(kind: str, statements: list[Statement], chain: SeedChain) -> tuple[Option, ...]:
    """MCQ: one true and three false statements. MSQ: one to four true, the rest false."""
    stream = chain.stream("statements")
    true = stream.shuffled([s for s in statements if s.true])
    false = stream.shuffled([s for s in statements if not s.true])
    n_true = 1 if kind == "MCQ" else stream.integer(1, min(3, len(true)))
    # GATE's MSQs may have every option correct; about one in ten here (its own stream, so other seeds keep theirs).
    if kind == "MSQ" and len(true) >= N_OPTIONS and chain.stream("all-correct").chance(1, 10):
        n_true = N_OPTIONS
    picked = true[:n_true] + false[: N_OPTIONS - n_true]
    if len(picked) < N_OPTIONS:
        raise RuntimeError("not enough statements for four options")
    options = [Option(s.text, s.true, why=s.why,
                      misconception=Misconception(s.tag, s.tag.replace("-", " "), s.why) if s.tag and not s.true else None)
               for s in picked]
    return tuple(chain.stream("option-order").shuffled(options))


def _answer_md(kind: str, draft: Draft, options: tuple[Option, ...]) -> str:
    if kind == "NAT":
        unit = f" {draft.unit.suffix}" if draft.unit is not None and draft.unit.suffix else ""
        return f"{draft.fmt(draft.answer)}{unit}"
    return ", ".join(f"({LETTERS[i]}) {o.md}" for i, o in enumerate(options) if o.correct)
