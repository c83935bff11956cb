"""Softmax and scaling: the variance of q·k and the weights left after masking (numbers), and what
scaling and masking do to the softmax (concepts)."""

from __future__ import annotations

import math

from quizforge.bank.question import Misconception, Step
from quizforge.bank.seeds import SeedChain, widened
from quizforge.bank.statement_pools import statement_pool
from quizforge.bank.steps import decimal, fixed, rounded
from quizforge.bank.template import Draft, template

MCQ_ASK = "Which ONE of the following statements is CORRECT?"


@template("softmax.variance", topic="softmax", kind="NAT", marks=1, difficulty=2, title="Variance of q·k", light=True,
          widened_as="softmax.variance_wide")
def dot_product_variance(chain: SeedChain) -> Draft:
    wide = widened(chain)
    s = wide or chain.stream("params")
    d_k = s.choice((16, 32, 64, 128, 256)) if wide is None else 8 * s.integer(1, 64)
    var = s.choice((1, 1, 2, 4) if wide is None else (1, 2, 3, 4, 5)) if s.chance(1, 2) else 1
    ask = s.choice(("var", "var", "std", "scaled"))
    what = {"var": "$\\operatorname{Var}(q \\cdot k)$", "std": "the standard deviation of $q \\cdot k$",
            "scaled": "$\\operatorname{Var}(q \\cdot k / \\sqrt{d_k})$"}[ask]
    full = d_k * var * var
    root_sign = "=" if math.isqrt(full) ** 2 == full else "\\approx"
    answer = {"var": full, "std": math.sqrt(full), "scaled": var * var}[ask]
    wrong = [
        Misconception("var-std-confused", "confused variance and standard deviation",
                      "that mixes up the variance and its square root", math.sqrt(answer) if ask != "std" else full),
        Misconception("var-forgot-sum", "forgot the sum over d_k", "q·k sums d_k independent products: their variances add",
                      answer / d_k if ask != "scaled" else d_k * var * var),
        Misconception("var-single-factor", "used σ² once", "each product q_i·k_i has variance σ²·σ² = σ⁴",
                      {"var": d_k * var, "std": math.sqrt(d_k * var), "scaled": var}[ask]) if var != 1 else None,
        Misconception("var-squared-dk", "squared d_k", "the variance grows like d_k, not d_k²",
                      {"var": d_k * d_k * var * var, "std": d_k * var, "scaled": d_k * var * var}[ask]),
    ]
    return Draft(
        prompt=(f"The entries of a query $q$ and a key $k$ in $\\mathbb{{R}}^{{d_k}}$ with $d_k = {d_k}$ are independent random "
                f"variables with mean 0 and variance $\\sigma^2 = {var}$. What is {what}? "
                "Give it to 2 decimal places."),
        answer=rounded(answer, 2), exact=answer, decimals=2, fmt=decimal(2),
        misconceptions=[m for m in wrong if m is not None],
        solution=[Step("One term", "$\\operatorname{Var}(q_i k_i) = E[q_i^2]E[k_i^2] = \\sigma^2 \\cdot \\sigma^2 = \\sigma^4$ "
                                   "(independent, mean 0)."),
                  Step("The sum", f"$\\operatorname{{Var}}(q \\cdot k) = d_k \\sigma^4 = {d_k} \\cdot {var}^2 = {full}$."),
                  Step("Asked", {"var": f"$${full}$$", "std": f"$$\\sqrt{{{full}}} {root_sign} {fixed(math.sqrt(full), 4)}$$",
                                 "scaled": f"$${full} / {d_k} = {var * var}$$ — why attention divides by $\\sqrt{{d_k}}$."}[ask])],
        hints=["Variances of independent terms add.", "$\\operatorname{Var}(q\\cdot k) = d_k \\sigma^4$", f"$d_k = {d_k}$"],
    )


@template("softmax.masked_weights", topic="softmax", kind="NAT", marks=1, difficulty=2,
          title="Weights left after masking", light=True)
def masked_weights(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    n = s.integer(3, 5)
    logits = [s.integer(-2, 3) for _ in range(n)]
    masked = sorted(s.sample(range(n), s.integer(1, n - 2)))
    live = [j for j in range(n) if j not in masked]
    j = s.choice(live)
    exps = {k: math.exp(logits[k]) for k in range(n)}
    z_live = sum(exps[k] for k in live)
    value = exps[j] / z_live
    no_mask = exps[j] / sum(exps.values())
    wrong = [
        Misconception("ignored-mask", "ignored the mask",
                      "that is the weight with the masked keys still in the sum (no mask, or a mask applied only after the "
                      "softmax); masked logits get −∞ before it, so the row renormalizes over the allowed keys", no_mask),
        Misconception("mask-as-zero-logit", "set masked logits to 0", "a masked logit is −∞ (weight 0), not 0 (weight e⁰ = 1)",
                      exps[j] / (z_live + len(masked))),
        Misconception("no-exponential", "normalized the logits directly", "softmax exponentiates before normalizing",
                      logits[j] / sum(logits[k] for k in live) if sum(logits[k] for k in live) else None),
    ]
    logit_text = ", ".join(f"{x}" for x in logits)
    return Draft(
        prompt=(f"A row of attention logits is $({logit_text})$ over keys 1 to {n}. "
                + ("Key " if len(masked) == 1 else "Keys ") + ", ".join(str(k + 1) for k in masked)
                + (" is" if len(masked) == 1 else " are") + f" masked out. What is the softmax weight of key {j + 1}? Give it to 3 decimal places."),
        answer=rounded(value, 3), exact=value, decimals=3, fmt=decimal(3), misconceptions=[m for m in wrong if m.value is not None],
        solution=[Step("Mask", "Masked logits become $-\\infty$, so $e^{-\\infty} = 0$: they drop out of the sum."),
                  Step("Normalize over the allowed keys",
                       f"$$\\frac{{e^{{{logits[j]}}}}}{{" + " + ".join(f"e^{{{logits[k]}}}" for k in live)
                       + f"}} \\approx \\frac{{{fixed(exps[j], 4)}}}{{{fixed(z_live, 4)}}} \\approx {fixed(value, 4)} \\approx {fixed(value, 3)}$$")],
        hints=["A masked key must get weight exactly 0, and the rest still sum to 1.",
               "$a_j = e^{z_j} / \\sum_{k \\text{ allowed}} e^{z_k}$", f"allowed keys: {', '.join(str(k + 1) for k in live)}"],
    )


# --- 10. softmax: the effect of scaling ---------------------------------------

@template("softmax.scaling_effect", topic="softmax", kind="MCQ", marks=1, difficulty=2,
          title="What scaling does to the softmax", light=True)
def scaling_effect(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d_k = s.choice((16, 64, 256))
    root = round(d_k ** 0.5)
    step = root // 2 if root > 4 else 1
    scores: list[int] = []
    while len(scores) < 4:                                  # four distinct multiples of step in [-3√d_k, 3√d_k]
        x = step * s.integer(-3 * root // step, 3 * root // step)
        if x not in scores:
            scores.append(x)
    best = max(range(4), key=lambda i: scores[i]) + 1
    low = min(range(4), key=lambda i: scores[i]) + 1
    c = s.choice((3, 5, 10, 100))
    row = ", ".join(str(x) for x in scores)
    framing = s.integer(0, 1)
    lead = [
        f"For one query, the dot products with four keys are $(s_1, s_2, s_3, s_4) = ({row})$, and the head width is "
        f"$d_k = {d_k}$, so attention uses $\\operatorname{{softmax}}(s/\\sqrt{{d_k}}) = \\operatorname{{softmax}}(s/{root})$.",
        f"A head of width $d_k = {d_k}$ produces the raw scores $({row})$ for keys 1 to 4 of one query. Compare "
        f"$\\operatorname{{softmax}}(s)$ with the scaled $\\operatorname{{softmax}}(s/{root})$.",
    ][framing]
    prompt = f"{lead} {MCQ_ASK}"
    statements = statement_pool("scaling_effect", best=best, root=root, c=c, low=low, d_k=d_k)
    solution = [
        Step("Order is preserved",
             f"Dividing by ${root} > 0$ keeps the order of $({row})$: key {best} is still the largest and key {low} "
             "the smallest, and the softmax is increasing in each logit, so the ranking of the weights is unchanged."),
        Step("Temperature",
             f"$\\operatorname{{softmax}}(s/T)$ with $T = {root} > 1$ shrinks the gaps between logits, so the ratios "
             "$e^{(s_i - s_j)/T}$ move towards 1: the distribution is flatter. $T < 1$ would sharpen it."),
        Step("Shift versus scale",
             "$\\operatorname{softmax}(s + c) = \\operatorname{softmax}(s)$ because $e^c$ cancels; "
             "$\\operatorname{softmax}(a s) \\neq \\operatorname{softmax}(s)$ in general. The rows sum to 1 because of "
             "the softmax, with or without scaling."),
        Step("Why this scale",
             "With unit-variance components, $\\operatorname{Var}(q \\cdot k) = d_k$; dividing by $\\sqrt{d_k}$ brings it "
             "to 1, keeping the softmax out of its saturated, near one-hot region."),
        Step("Key facts",
             "Scaling keeps the argmax and the ranking, and flattens the weights ($T = \\sqrt{d_k}$); "
             "softmax: invariant to adding a constant, not to multiplying by one; "
             "summing to 1 is the softmax's doing."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Think of the division as a temperature.",
               "$\\operatorname{softmax}(s/T)_i = e^{s_i/T} / \\sum_j e^{s_j/T}$",
               f"Here $T = \\sqrt{{{d_k}}} = {root}$ and the largest score is key {best}'s."],
    )


# --- 11. softmax: masked positions --------------------------------------------

@template("softmax.masked_positions", topic="softmax", kind="MCQ", marks=1, difficulty=2,
          title="Masking before the softmax", light=True)
def masked_positions(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    n = s.integer(4, 8)
    pad = s.integer(1, 2)                                   # trailing padded positions of one sequence (framing 1)
    i = s.integer(2, n - pad)                               # a query row, 1-based, never a padded position
    framing = s.integer(0, 1)
    kept, total, strict = n * (n + 1) // 2, n * n, n * (n - 1) // 2
    lead = [
        f"A decoder attends over $n = {n}$ positions with a causal mask, implemented by adding a mask matrix $M$ to "
        "the scores before the softmax: $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k} + M)$.",
        f"A decoder is trained on a batch of sequences of $n = {n}$ positions; "
        + ("the last position of one sequence is padding. " if pad == 1
           else f"the last {pad} positions of one sequence are padding. ")
        + "Its attention combines a causal mask with a padding mask, both added to the scores as a matrix $M$ in "
        "$\\operatorname{softmax}(QK^\\top/\\sqrt{d_k} + M)$.",
    ][framing]
    prompt = f"{lead} Queries index the rows and keys the columns, from 1 to {n}. {MCQ_ASK}"
    statements = statement_pool("masked_positions", kept=kept, total=total, n=n, i=i, strict=strict)
    solution = [
        Step("Additive mask",
             "$M_{ij} = 0$ where query $i$ may see key $j$ and $-\\infty$ (or a large negative number) elsewhere. "
             "Then $e^{s_{ij} + M_{ij}} = 0$ for masked keys, and the softmax divides by a sum over the allowed keys "
             "only, so each row still sums to 1."),
        Step("Why not zero afterwards",
             "Zeroing weights after the softmax removes their share without redistributing it: the row sums to less "
             "than 1 unless it is renormalized. A score of 0 is not a mask either: $e^0 = 1$."),
        Step("Causal mask",
             f"Row $i$ allows keys $1, \\ldots, i$: the lower triangle with the diagonal, "
             f"$1 + 2 + \\cdots + {n} = {kept}$ of ${n}^2 = {total}$ entries. Row 1 allows only itself (weight 1); "
             f"row {i} with equal allowed scores gives each $\\frac{{1}}{{{i}}}$."),
        Step("Padding mask",
             "Padding is masked as keys: the padded columns are $-\\infty$ in every row, so no query attends to them."),
        Step("Key facts",
             "Mask before the softmax with $-\\infty$; rows renormalize to 1; "
             "causal: lower-triangular including the diagonal; "
             "padding: mask the key columns."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Ask what $e^x$ is for the value the mask adds.",
               "$\\operatorname{softmax}(s + M)_j = e^{s_j + M_j} / \\sum_k e^{s_k + M_k}$, with $M_j = -\\infty$ when masked",
               f"Row {i} of a causal mask allows keys 1 to {i}."],
    )
