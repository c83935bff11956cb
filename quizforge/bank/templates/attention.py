"""Attention by hand: small integer Q, K, V; an entry of QKᵀ/√d_k, a weight, or an output entry.

The key and every intermediate matrix come from `quizforge.handcalc.attention_steps`,
which runs the reference attention in float64; the misconceptions recompute the
same numbers with the classic mistake built in.
"""

from __future__ import annotations

import math

from quizforge.bank.question import Misconception, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import decimal, fixed, matrix, rounded
from quizforge.bank.template import Draft, template

DECIMALS = 2


def _ints(stream, rows: int, cols: int, low: int, high: int) -> list[list[int]]:
    return [[stream.integer(low, high) for _ in range(cols)] for _ in range(rows)]


def _problem(chain: SeedChain):
    """Q, K, V and the reference's worked steps; every matrix has its own stream."""
    from quizforge.handcalc import attention_steps

    s = chain.stream("params")
    n = s.integer(2, 4)
    d_k = s.choice((2, 3, 4, 4))
    d_v = s.integer(2, 3)
    causal = s.chance(1, 2)
    Q = _ints(chain.stream("Q"), n, d_k, -1, 2)
    K = _ints(chain.stream("K"), n, d_k, -1, 2)
    V = _ints(chain.stream("V"), n, d_v, 0, 4)
    # Which entry is asked has its own stream, apart from the sizes and the matrices.
    return chain.stream("ask"), Q, K, V, causal, attention_steps(Q, K, V, causal=causal)


def _softmax_rows(scores: list[list[float]], hidden: list[list[bool]] | None = None) -> list[list[float]]:
    out = []
    for r, row in enumerate(scores):
        live = [x for c, x in enumerate(row) if not (hidden and hidden[r][c])]
        m = max(live)
        e = [0.0 if hidden and hidden[r][c] else math.exp(x - m) for c, x in enumerate(row)]
        total = sum(e)
        out.append([x / total for x in e])
    return out


def _transpose(m):
    return [list(col) for col in zip(*m)]


def _variants(steps) -> dict[str, list[list[float]]]:
    """Attention weights under each classic mistake."""
    raw = [[float(x) for x in row] for row in steps.scores]
    hidden = steps.masked if steps.causal else None
    by_dk = [[x / steps.d_k for x in row] for row in raw]
    # Under a causal mask too: each column normalized over the queries that may see its key.
    column_wise = _transpose(_softmax_rows(_transpose(steps.scaled), _transpose(hidden) if hidden else None))
    out = {"no-sqrt-dk": _softmax_rows(raw, hidden), "divided-by-d_k": _softmax_rows(by_dk, hidden),
           "softmax-wrong-axis": column_wise}
    if steps.causal:
        out["ignored-mask"] = _softmax_rows(steps.scaled)
    return out


_FEEDBACK = {
    "no-sqrt-dk": ("no √d_k", "that is the softmax of QKᵀ without dividing by √d_k"),
    "divided-by-d_k": ("divided by d_k", "the scores are divided by √d_k, not by d_k"),
    "softmax-wrong-axis": ("softmax over the wrong axis", "that normalizes each column (over the queries); softmax runs along each row, over the keys"),
    "ignored-mask": ("ignored the causal mask", "that lets query i see later keys; the causal mask hides keys j > i"),
    "scores-transposed": ("read Kᵀ the wrong way", "that is entry (j, i): row i of QKᵀ is query i against every key"),
    "unnormalized": ("forgot the softmax's denominator",
                     "that is the exponential alone; softmax divides it by the sum of the row's exponentials"),
    "unnormalized-shifted": ("forgot the softmax's denominator",
                             "that is e^(s − row max) alone; softmax divides it by the sum of the row's exponentials"),
}


def _mis(tag: str, value) -> Misconception:
    label, feedback = _FEEDBACK[tag]
    return Misconception(tag, label, feedback, value)


def _exhibits(Q, K, V) -> list[Step]:
    return [matrix("Q", Q, row_labels=[f"q{i + 1}" for i in range(len(Q))]),
            matrix("K", K, row_labels=[f"k{i + 1}" for i in range(len(K))]),
            matrix("V", V, row_labels=[f"v{i + 1}" for i in range(len(V))])]


def _worked(steps, upto: str) -> list[Step]:
    f = decimal(4)
    n = steps.n_q
    labels = [f"q{i + 1}" for i in range(n)], [f"k{j + 1}" for j in range(steps.n_k)]
    out = [matrix("QKᵀ", steps.scores, str, row_labels=labels[0], col_labels=labels[1],
                  md="Row $i$, column $j$ is $q_i \\cdot k_j$."),
           matrix(f"QKᵀ · {steps.scale_text}", steps.scaled, f, row_labels=labels[0], col_labels=labels[1],
                  md=f"Divide every score by $\\sqrt{{d_k}} = \\sqrt{{{steps.d_k}}}$.")]
    if upto == "scaled":
        return out
    if steps.causal:
        out.append(Step("Causal mask", "Query $i$ may attend only to keys $j \\le i$: the entries above the diagonal "
                                       "get $-\\infty$ and so weight 0."))
    out.append(matrix("Weights softmax(·)", steps.weights, f, row_labels=labels[0], col_labels=labels[1],
                      md="Softmax along each row: $a_{ij} = e^{s_{ij} - m_i} / \\sum_{j'} e^{s_{ij'} - m_i}$, "
                         "with $m_i$ the row maximum."))
    if upto == "weights":
        return out
    out.append(matrix("Output A·V", steps.output, f, row_labels=labels[0],
                      md="Each output row is the weighted average of the rows of $V$."))
    return out


def _intro(Q, causal: bool | None) -> str:
    """The shared opening; `causal` None says nothing about masks."""
    mask = ("" if causal is None else " A causal mask is applied: query $i$ may attend only to keys $j \\le i$."
            if causal else " No mask is applied.")
    return (f"Single-head scaled dot-product attention $\\operatorname{{softmax}}(QK^\\top/\\sqrt{{d_k}})\\,V$ is computed for "
            f"the matrices below ($d_k = {len(Q[0])}$; row $i$ of $Q$ is query $i$, row $j$ of $K$ and $V$ is key/value $j$)."
            + mask)


@template("attention.score", topic="attention", kind="NAT", marks=1, difficulty=1, title="A scaled score by hand")
def scaled_score(chain: SeedChain) -> Draft:
    problem = chain
    for attempt in range(1, 100):
        s, Q, K, V, causal, steps = _problem(problem)
        # A zero score is 0.00 with or without √d_k: ask one the scaling changes.
        if any(x for row in steps.scores for x in row):
            break
        problem = chain.child(f"nonzero-{attempt}")
    i, j = s.integer(0, len(Q) - 1), s.integer(0, len(K) - 1)
    while i != j and steps.scores[i][j] == steps.scores[j][i] and len(Q) > 1:
        j = (j + 1) % len(K)
    if steps.scores[i][j] == 0:
        i, j = s.choice([(r, c) for r in range(len(Q)) for c in range(len(K))
                         if steps.scores[r][c] != 0 and (r == c or steps.scores[r][c] != steps.scores[c][r])]
                        or [(r, c) for r in range(len(Q)) for c in range(len(K)) if steps.scores[r][c] != 0])
    value = steps.scaled[i][j]
    raw = float(steps.scores[i][j])
    return Draft(
        prompt=_intro(Q, None) +
        f" What is entry $({i + 1}, {j + 1})$ of the scaled scores $QK^\\top/\\sqrt{{d_k}}$? Give it to {DECIMALS} decimal places.",
        answer=rounded(value, DECIMALS), exact=value, decimals=DECIMALS, fmt=decimal(DECIMALS), exhibits=_exhibits(Q, K, V),
        misconceptions=[_mis("no-sqrt-dk", raw), _mis("divided-by-d_k", raw / steps.d_k),
                        _mis("scores-transposed", steps.scaled[j][i])],
        solution=[Step("Dot product", f"$q_{{{i + 1}}} \\cdot k_{{{j + 1}}} = "
                       + " + ".join(f"({a})({b})" for a, b in zip(Q[i], K[j])) + f" = {steps.scores[i][j]}$"),
                  Step("Scale", f"$${steps.scores[i][j]} / \\sqrt{{{steps.d_k}}} = {fixed(value, 4)} \\approx {fixed(value, DECIMALS)}$$"),
                  *_worked(steps, "scaled")],
        hints=["Row i of QKᵀ is query i dotted with every key.", "$s_{ij} = q_i \\cdot k_j / \\sqrt{d_k}$",
               f"$d_k = {steps.d_k}$"],
    )


def _worth_asking(steps, i: int, j: int) -> bool:
    live = sum(not m for m in steps.masked[i])
    # A key of 0.01 would let 0 into its range 0.00–0.02: ask only weights of at least 0.02.
    return not steps.masked[i][j] and live > 1 and rounded(steps.weights[i][j], DECIMALS) >= 2 * 10**-DECIMALS


@template("attention.weight", topic="attention", kind="NAT", marks=2, difficulty=2, title="An attention weight by hand")
def attention_weight(chain: SeedChain) -> Draft:
    s, Q, K, V, causal, steps = _problem(chain)
    i = s.integer(0, len(Q) - 1)
    live = [j for j in range(len(K)) if not steps.masked[i][j]]
    hidden = [j for j in range(len(K)) if steps.masked[i][j]]
    if hidden:
        s.chance(1, 5)            # drawn as before, so unaffected seeds keep their question
    j = s.choice(live)
    # Never ask for an entry the mask forces (a masked 0, the lone 1 of a one-key row) or one that all but vanishes.
    askable = [(r, c) for r in range(len(Q)) for c in range(len(K))
               if _worth_asking(steps, r, c)]
    if (i, j) not in askable:
        i, j = s.choice(askable)
    value = steps.weights[i][j]
    variants = _variants(steps)
    return Draft(
        prompt=_intro(Q, causal) + f" What is the attention weight $a_{{{i + 1}{j + 1}}}$ of query {i + 1} on key {j + 1}? "
               f"Give it to {DECIMALS} decimal places.",
        answer=rounded(value, DECIMALS), exact=value, decimals=DECIMALS, fmt=decimal(DECIMALS), exhibits=_exhibits(Q, K, V),
        misconceptions=[*(_mis(tag, w[i][j]) for tag, w in variants.items()),
                        _mis("unnormalized", math.exp(steps.scaled[i][j])),
                        _mis("unnormalized-shifted", steps.exps[i][j])],
        solution=[*_worked(steps, "weights"),
                  Step("Answer", f"$$a_{{{i + 1}{j + 1}}} = {fixed(value, 4)} \\approx {fixed(value, DECIMALS)}$$")],
        hints=["Scale, mask, then softmax along the row of query i.",
               "$a_{ij} = e^{s_{ij}} / \\sum_{j'} e^{s_{ij'}}$", f"row {i + 1} of $QK^\\top/\\sqrt{{{steps.d_k}}}$"],
    )


def _mixes_values(steps, V, row: int, col: int) -> bool:
    """Whether output entry (row, col) averages at least two different values of V."""
    return len({V[j][col] for j in range(len(V)) if not steps.masked[row][j]}) > 1


@template("attention.output", topic="attention", kind="NAT", marks=2, difficulty=3, title="An attention output entry by hand")
def attention_output(chain: SeedChain) -> Draft:
    problem = chain
    for attempt in range(1, 100):
        s, Q, K, V, causal, steps = _problem(problem)
        i, c = s.integer(0, len(Q) - 1), s.integer(0, len(V[0]) - 1)
        # An entry of 0.01 would let 0 into its range 0.00–0.02: ask one of at least 0.02.
        # Nor an entry that is just a value: a row with one live key (causal row 1) copies a row of V,
        # and a column whose live values are all equal averages to that value whatever the weights.
        askable = [(r, k) for r in range(len(Q)) for k in range(len(V[0]))
                   if abs(rounded(steps.output[r][k], DECIMALS)) >= 2 * 10**-DECIMALS and _mixes_values(steps, V, r, k)]
        if askable:
            break
        problem = chain.child(f"mixed-values-{attempt}")     # V's rows all alike: new matrices
    if (i, c) not in askable:
        i, c = s.choice(askable)
    value = steps.output[i][c]
    mis = []
    for tag, w in _variants(steps).items():
        mis.append(_mis(tag, sum(w[i][j] * V[j][c] for j in range(len(V)))))
    mis.append(Misconception("unnormalized", "skipped the softmax's division",
                             "that sums exp(score)·v without dividing by the row's sum of exponentials",
                             sum(e * V[j][c] for j, e in enumerate(steps.exps[i]))))
    return Draft(
        prompt=_intro(Q, causal) + f" What is entry $({i + 1}, {c + 1})$ of the output (row {i + 1} is query {i + 1}'s output)? "
               f"Give it to {DECIMALS} decimal places.",
        answer=rounded(value, DECIMALS), exact=value, decimals=DECIMALS, fmt=decimal(DECIMALS), exhibits=_exhibits(Q, K, V),
        misconceptions=mis,
        solution=[*_worked(steps, "output"),
                  Step("Answer", f"$$o_{{{i + 1}{c + 1}}} = \\sum_j a_{{{i + 1}j}} v_{{j{c + 1}}} = {fixed(value, 4)} \\approx {fixed(value, DECIMALS)}$$")],
        hints=["The output is a weighted average of V's rows.", "$o_i = \\sum_j a_{ij} v_j$", f"query {i + 1}, column {c + 1} of $V$"],
    )
