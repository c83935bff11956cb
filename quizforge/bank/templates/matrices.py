"""Whole matrices by hand: the causal mask written out, an attention-weights matrix, an output matrix.

A topic of its own, so that drawing from `attention` (a drill, a problem-set section) asks
what it asked before. NAT questions whose answer is a matrix, graded entry by entry
(answers.matrix_questions). The mask comes from the reference `causal_mask`; the weights and the output from
`quizforge.handcalc.attention_steps`, which runs the reference attention in float64.
Each modelled mistake is the whole matrix that mistake gives; a draw where a mistake's
matrix would be accepted as the key is redrawn, so every mistake can be named.
"""

from __future__ import annotations

import math

from quizforge.answers import round_half_away
from quizforge.answers.matrix_questions import formatter, matches
from quizforge.bank.question import Misconception, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import matrix, rounded
from quizforge.bank.template import Draft, template
from quizforge.bank.templates.attention import _FEEDBACK, _exhibits, _ints, _intro, _softmax_rows, _transpose, _worked

DECIMALS = 2
MAX_DRAWS = 64
MINUS_INFINITY = float("-inf")


def _labels(prefix: str, n: int, start: int = 1) -> list[str]:
    return [f"{prefix}{i}" for i in range(start, start + n)]


# --- the causal mask --------------------------------------------------------------------------

_MASK_FEEDBACK = {
    "mask-transposed": ("the mask transposed",
                        "that lets each query see the keys after it and hides the ones before; a causal mask keeps "
                        "keys j ≤ i (the lower triangle)"),
    "mask-inverted": ("the mask inverted",
                      "that marks the allowed and the hidden keys the other way round"),
    "diagonal-masked": ("hid the diagonal",
                        "that hides each query's own position too; a query always sees its own position"),
    "top-left-aligned": ("queries taken as the first positions",
                         "that puts the new queries at the first positions; with a KV cache they are the last n_q "
                         "positions, so query i sees keys j ≤ i + (n_k − n_q)"),
    "other-form": ("the other form of the mask", ""),
}


def _mask_mistake(tag: str, value, feedback: str = "") -> Misconception:
    label, said = _MASK_FEEDBACK[tag]
    return Misconception(tag, label, feedback or said, value)


@template("matrices.causal_mask", topic="matrices", kind="NAT", marks=1, difficulty=1,
          title="The causal mask written out",
          fixed_fact="about 20 mask shapes and forms, however drawn")
def causal_mask_matrix(chain: SeedChain) -> Draft:
    from quizforge.reference.attention import causal_mask

    s = chain.stream("params")
    n_k = s.choice((3, 4, 4, 4, 5))
    cached = s.chance(1, 4)
    n_q = s.integer(2, n_k - 1) if cached else n_k
    additive = s.chance(1, 2)
    offset = n_k - n_q
    allowed = causal_mask(n_q, n_k).tolist()
    hidden_mark, open_mark = (MINUS_INFINITY, 0) if additive else (0, 1)

    def written(rule) -> tuple:
        return tuple(tuple(open_mark if rule(i, j) else hidden_mark for j in range(n_k)) for i in range(n_q))

    key = written(lambda i, j: allowed[i][j])
    mistakes = [_mask_mistake("mask-transposed", written(lambda i, j: j >= i + offset)),
                _mask_mistake("mask-inverted", written(lambda i, j: not allowed[i][j])),
                _mask_mistake("diagonal-masked", written(lambda i, j: j < i + offset))]
    if offset:
        mistakes.append(_mask_mistake("top-left-aligned", written(lambda i, j: j <= i)))
    if additive:
        mistakes.append(_mask_mistake("other-form", tuple(tuple(1 if a else 0 for a in row) for row in allowed),
                                      "that is the 0/1 form; the additive mask adds 0 where a key is allowed and "
                                      "−∞ where it is hidden"))
    else:
        mistakes.append(_mask_mistake("other-form", tuple(tuple(0 if a else MINUS_INFINITY for a in row)
                                                          for row in allowed),
                                      "that is the additive form (0 and −∞); this question asks for 1 where a key "
                                      "may be attended to and 0 where it may not"))

    if cached:
        # Numbers, not n_q and n_k: a terminal can subscript k but not q, and the sentence would mix the two.
        setting = (f"During generation with a KV cache, {n_q} new queries (the last {n_q} of "
                   f"{n_k} positions) attend to all {n_k} keys through a causal mask. Rows are the "
                   f"new queries in order, columns the keys at positions 1 to {n_k}.")
        shape = f"{n_q}×{n_k}"
    else:
        setting = (f"A decoder's self-attention over a sequence of $T = {n_k}$ tokens uses a causal mask: row $i$ is "
                   f"query $i$, column $j$ key $j$, counting from 1.")
        shape = f"{n_k}×{n_k}"
    if additive:
        ask = (f" Write out the {shape} additive mask $M$ used as $\\operatorname{{softmax}}(QK^\\top/\\sqrt{{d_k}} + M)$: "
               "$0$ where query $i$ may attend to key $j$, $-\\infty$ where it may not.")
    else:
        ask = (f" Write out the {shape} mask as 0s and 1s: $1$ where query $i$ may attend to key $j$, $0$ where it "
               "may not.")
    rule = (f"Query $i$ sits at position $i + {offset}$ and sees the keys at positions $j \\le i + {offset}$."
            if offset else "Query $i$ sees keys $j \\le i$: itself and everything before it, never a later token.")
    cells = [["−∞" if x == MINUS_INFINITY else str(x) for x in row] for row in key]
    return Draft(
        prompt=setting + ask,
        answer=key, decimals=None, fmt=formatter(None), misconceptions=mistakes,
        solution=[Step("Rule", rule),
                  Step("Mask", "The allowed entries form the lower triangle" + (f" shifted {offset} to the right"
                                                                                if offset else "") + "."),
                  matrix("M", cells, row_labels=_labels("q", n_q), col_labels=_labels("k", n_k))],
        hints=["A token may not look at tokens after it.",
               f"Allowed when $j \\le i + {offset}$: {offset} cached position{'s come' if offset > 1 else ' comes'} first"
               if offset else "Allowed when $j \\le i$",
               f"Row 1 allows {offset + 1} key{'s' if offset else ''}; each row allows one more."],
    )


# --- attention weights and output ----------------------------------------------------------------

# the same four mistakes as in one entry, in the same words; then the matrix's own
_MATRIX_FEEDBACK = {
    **{tag: _FEEDBACK[tag] for tag in ("no-sqrt-dk", "divided-by-d_k", "softmax-wrong-axis", "ignored-mask")},
    "weights-transposed": ("transposed the weights",
                           "that is the transpose: row i holds query i's weights over the keys (each row sums to 1)"),
    "unnormalized": ("skipped the softmax's division",
                     "that sums exp(score)·v without dividing by the row's sum of exponentials"),
}


def _mistake(tag: str, value) -> Misconception:
    label, feedback = _MATRIX_FEEDBACK[tag]
    return Misconception(tag, label, feedback, tuple(tuple(row) for row in value))


def _weight_variants(steps) -> dict[str, list[list[float]]]:
    """The whole weights matrix under each classic mistake."""
    raw = [[float(x) for x in row] for row in steps.scores]
    hidden = steps.masked if steps.causal else None
    out = {"no-sqrt-dk": _softmax_rows(raw, hidden),
           "divided-by-d_k": _softmax_rows([[x / steps.d_k for x in row] for row in raw], hidden),
           "softmax-wrong-axis": _transpose(_softmax_rows(_transpose(steps.scaled),
                                                          _transpose(hidden) if hidden else None)),
           "weights-transposed": _transpose(steps.weights)}
    if steps.causal:
        out["ignored-mask"] = _softmax_rows(steps.scaled)
    return out


def _times_v(weights, V) -> list[list[float]]:
    return [[math.fsum(w * float(V[j][c]) for j, w in enumerate(row)) for c in range(len(V[0]))] for row in weights]


def _near_zero_but_not(rows) -> bool:
    """An entry that rounds to ±0.01: its range would hold 0 though the key is not 0."""
    return any(abs(rounded(x, DECIMALS)) == 10**-DECIMALS for row in rows for x in row)


def _typed(rows) -> tuple:
    """A matrix as someone types it when asked for DECIMALS places: exact decimals (Fractions), since
    the float nearest 1.99 lies below 1.99 and would slip past the range's end."""
    return tuple(tuple(round_half_away(x, DECIMALS) for x in row) for row in rows)


def _draw(chain: SeedChain, asks: str):
    """Q, K, V, the reference's steps and the mistakes, redrawn until every mistake is told apart."""
    from quizforge.handcalc import attention_steps

    s = chain.stream("params")
    for attempt in range(MAX_DRAWS):
        tag = "" if attempt == 0 else f"-{attempt}"
        n = s.choice((2, 3, 3, 4))
        d_k = s.choice((2, 3, 4, 4))
        d_v = s.integer(2, 3)
        causal = s.chance(1, 2)
        if asks == "weights" and n == 2 and causal:
            continue        # a 2×2 causal matrix leaves one number to compute
        Q = _ints(chain.stream("Q" + tag), n, d_k, -1, 2)
        K = _ints(chain.stream("K" + tag), n, d_k, -1, 2)
        V = _ints(chain.stream("V" + tag), n, d_v, 0, 4)
        steps = attention_steps(Q, K, V, causal=causal)
        variants = _weight_variants(steps)
        if asks == "weights":
            key = steps.weights
            wrong = dict(variants)
        else:
            key = steps.output
            wrong = {tag_: _times_v(w, V) for tag_, w in variants.items()}
            wrong["unnormalized"] = _times_v(steps.exps, V)
        key = tuple(tuple(rounded(x, DECIMALS) for x in row) for row in key)
        # The mistake as its maker types it, to the decimals asked, must be refused as well.
        told_apart = all(not matches(key, value, DECIMALS) and not matches(key, _typed(value), DECIMALS)
                         for value in wrong.values())
        if told_apart and not _near_zero_but_not(key):
            return Q, K, V, steps, key, [_mistake(t, v) for t, v in wrong.items()]
    raise RuntimeError("no draw tells every mistake apart")  # not reached for any seed (tested)


@template("matrices.attention_weights", topic="matrices", kind="NAT", marks=2, difficulty=2,
          title="The attention-weights matrix by hand")
def weights_matrix(chain: SeedChain) -> Draft:
    Q, K, V, steps, key, mistakes = _draw(chain, "weights")
    n = len(Q)
    return Draft(
        prompt=_intro(Q, steps.causal) + f" Write out the whole {n}×{n} matrix of attention weights "
               f"$A = \\operatorname{{softmax}}(QK^\\top/\\sqrt{{d_k}})$ (row $i$ is query $i$, column $j$ key $j$). "
               f"Give each entry to {DECIMALS} decimal places.",
        answer=key, decimals=DECIMALS, fmt=formatter(DECIMALS), misconceptions=mistakes,
        exhibits=_exhibits(Q, K, V),
        solution=[*_worked(steps, "weights"),
                  Step("Round", f"Each weight to {DECIMALS} decimal places gives the answer; every row sums to 1 "
                                "before rounding.")],
        hints=["Scale, mask, then softmax along each row.", "$a_{ij} = e^{s_{ij}} / \\sum_{j'} e^{s_{ij'}}$",
               f"$QK^\\top/\\sqrt{{{steps.d_k}}}$ first, one row at a time"],
    )


@template("matrices.attention_output", topic="matrices", kind="NAT", marks=2, difficulty=3,
          title="The attention output matrix by hand")
def output_matrix(chain: SeedChain) -> Draft:
    Q, K, V, steps, key, mistakes = _draw(chain, "output")
    n, d_v = len(Q), len(V[0])
    return Draft(
        prompt=_intro(Q, steps.causal) + f" Write out the whole {n}×{d_v} output "
               f"$O = \\operatorname{{softmax}}(QK^\\top/\\sqrt{{d_k}})\\,V$ (row $i$ is query $i$'s output). "
               f"Give each entry to {DECIMALS} decimal places.",
        answer=key, decimals=DECIMALS, fmt=formatter(DECIMALS), misconceptions=mistakes,
        exhibits=_exhibits(Q, K, V),
        solution=[*_worked(steps, "output"),
                  Step("Round", f"Each entry of $O$ to {DECIMALS} decimal places gives the answer.")],
        hints=["Each output row is a weighted average of V's rows.", "$o_i = \\sum_j a_{ij} v_j$",
               "the weights first, one row at a time, then A·V"],
    )
