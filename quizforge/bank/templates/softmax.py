"""Softmax and scaling, with numbers: the variance of q·k, and the weights left after masking."""

from __future__ import annotations

import math

from quizforge.bank.question import Misconception, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import decimal, fixed, rounded
from quizforge.bank.template import Draft, template


@template("softmax.variance", topic="softmax", kind="NAT", marks=1, difficulty=2, title="Variance of q·k", light=True)
def dot_product_variance(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d_k = s.choice((16, 32, 64, 128, 256))
    var = s.choice((1, 1, 2, 4)) if s.chance(1, 2) else 1
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
        answer=rounded(answer, 2), decimals=2, fmt=decimal(2),
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
        answer=rounded(value, 3), decimals=3, fmt=decimal(3), misconceptions=[m for m in wrong if m.value is not None],
        solution=[Step("Mask", "Masked logits become $-\\infty$, so $e^{-\\infty} = 0$: they drop out of the sum."),
                  Step("Normalize over the allowed keys",
                       f"$$\\frac{{e^{{{logits[j]}}}}}{{" + " + ".join(f"e^{{{logits[k]}}}" for k in live)
                       + f"}} \\approx \\frac{{{fixed(exps[j], 4)}}}{{{fixed(z_live, 4)}}} \\approx {fixed(value, 4)} \\approx {fixed(value, 3)}$$")],
        hints=["A masked key must get weight exactly 0, and the rest still sum to 1.",
               "$a_j = e^{z_j} / \\sum_{k \\text{ allowed}} e^{z_k}$", f"allowed keys: {', '.join(str(k + 1) for k in live)}"],
    )
