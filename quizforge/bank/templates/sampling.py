"""Sampling by hand: probabilities after a temperature, and what top-k keeps.

Keys follow the reference sampler (`quizforge.reference.generate`): top-k masks every
logit below the k-th largest to −∞, then the softmax of logits / T gives the probabilities.
"""

from __future__ import annotations

import math

from quizforge.bank.coinciding import merge_coinciding
from quizforge.bank.question import Misconception, Statement, Step
from quizforge.answers.rounding import equals, rounded, shown
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import decimal
from quizforge.bank.template import Draft, template

TEMPERATURES = (0.5, 0.7, 1.5, 2.0, 3.0)


def _softmax(logits: list[float], temperature: float = 1.0) -> list[float]:
    top = max(logits)
    exps = [math.exp((z - top) / temperature) for z in logits]
    total = sum(exps)
    return [e / total for e in exps]


def _distinct_logits(s, n: int) -> list[float]:
    return [float(z) for z in s.sample(range(-3, 6), n)]


def _fmt_logits(logits: list[float]) -> str:
    return ", ".join(f"{z:g}" for z in logits)


@template("sampling.temperature", topic="sampling", kind="NAT", marks=1, difficulty=2,
          title="Token probabilities after a temperature", light=True)
def temperature(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    while True:
        n = s.integer(3, 5)
        logits = _distinct_logits(s, n)
        T = s.choice(TEMPERATURES)
        j = s.integer(0, n - 1)
        p = _softmax(logits, T)[j]
        if p >= 0.02:
            break
    key = rounded(p, 3)
    wrong = [
        Misconception("temp-ignored", "ignored the temperature", "the logits are divided by T before the softmax",
                      _softmax(logits)[j]),
        Misconception("temp-multiplied", "multiplied by T", "the logits are divided by T, not multiplied",
                      _softmax([z * T for z in logits])[j]),
        Misconception("temp-after-softmax", "raised the probabilities to 1/T without renormalizing",
                      "after p^(1/T) the row must be normalized again", _softmax(logits)[j] ** (1 / T)),
    ]
    exps = [math.exp(z / T) for z in logits]
    return Draft(
        prompt=(f"A language model's next-token logits over a vocabulary of {n} tokens are $({_fmt_logits(logits)})$. "
                f"Sampling uses temperature $T = {T}$. What is the probability of token {j + 1}? Give it to 3 decimal places."),
        answer=key, exact=p, decimals=3, fmt=decimal(3), misconceptions=merge_coinciding(wrong, decimals=3),
        solution=[Step("Scale", f"$z/T = ({', '.join(f'{z / T:.4g}' for z in logits)})$"),
                  Step("Softmax", f"$$p_{{{j + 1}}} = \\frac{{e^{{{logits[j] / T:.4g}}}}}{{\\sum_k e^{{z_k/T}}}} = "
                                  f"\\frac{{{shown(exps[j], 4)}}}{{{shown(sum(exps), 4)}}} {equals(p, 5)} {equals(p, 3)}$$"),
                  Step("Reading it", "$T < 1$ sharpens the distribution towards the largest logit; $T > 1$ flattens it.")],
        hints=["Divide every logit by T, then take the softmax.", "$p_j = e^{z_j/T} / \\sum_k e^{z_k/T}$", f"$T = {T}$"],
    )


@template("sampling.top_k", topic="sampling", kind="NAT", marks=2, difficulty=2,
          title="A probability after top-k filtering", light=True)
def top_k(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    while True:
        n = s.integer(5, 7)
        logits = _distinct_logits(s, n)
        k = s.integer(2, n - 2)
        T = s.choice((1.0, 1.0, *TEMPERATURES))
        order = sorted(range(n), key=lambda i: -logits[i])
        kept = sorted(order[:k])
        j = s.choice(kept)
        p = _softmax([logits[i] for i in kept], T)[kept.index(j)]
        if p >= 0.02:
            break
    key = rounded(p, 3)
    full = _softmax(logits, T)
    wrong = [
        Misconception("topk-not-renormalized", "did not renormalize", "after dropping tokens the kept probabilities "
                      "are renormalized to sum to 1", full[j]),
        Misconception("topk-no-temperature", "ignored the temperature", "the kept logits are divided by T",
                      _softmax([logits[i] for i in kept])[kept.index(j)]) if T != 1 else None,
        Misconception("topk-kept-k-plus-one", "kept k + 1 tokens", "top-k keeps exactly the k largest logits",
                      _softmax([logits[i] for i in sorted(order[:k + 1])], T)[sorted(order[:k + 1]).index(j)]),
        Misconception("topk-uniform", "made the kept tokens equally likely", "top-k keeps the tokens' relative weights",
                      1 / k),
    ]
    temp = "" if T == 1 else f", then temperature $T = {T}$"
    return Draft(
        prompt=(f"Next-token logits over a vocabulary of {n} tokens are $({_fmt_logits(logits)})$ for tokens 1 to {n}. "
                f"Sampling uses top-$k$ filtering with $k = {k}${temp}. What is the probability that token {j + 1} is "
                "sampled? Give it to 3 decimal places."),
        answer=key, exact=p, decimals=3, fmt=decimal(3), misconceptions=merge_coinciding(wrong, decimals=3),
        solution=[Step("Keep the top k", f"the {k} largest logits belong to tokens "
                                         f"{', '.join(str(i + 1) for i in kept)}; the others become $-\\infty$"),
                  Step("Softmax over the kept", f"$$p_{{{j + 1}}} = \\frac{{e^{{{logits[j]:g}/{T:g}}}}}"
                                                f"{{\\sum_{{\\text{{kept}}}} e^{{z/{T:g}}}}} {equals(p, 5)} {equals(p, 3)}$$")],
        hints=["Drop all but the k largest logits, then take the softmax of what is left.",
               "$p_j = e^{z_j/T} / \\sum_{i \\in \\text{top-}k} e^{z_i/T}$", f"kept: {k} tokens"],
    )


@template("sampling.top_k_set", topic="sampling", kind="MCQ", marks=1, difficulty=1,
          title="The tokens top-k keeps", light=True)
def top_k_set(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    n = s.integer(5, 7)
    logits = _distinct_logits(s, n)
    k = s.integer(2, n - 2)
    T = s.choice(TEMPERATURES)
    order = sorted(range(n), key=lambda i: -logits[i])

    def tokens(ids) -> str:
        return "tokens " + ", ".join(str(i + 1) for i in sorted(ids))

    kept = order[:k]
    candidates = [
        Statement(f"Only {tokens(kept)} can be sampled", True,
                  f"these have the {k} largest logits; temperature rescales logits but never reorders them"),
        Statement(f"Only {tokens(order[-k:])} can be sampled", False, "top-k keeps the largest logits, not the smallest",
                  "topk-smallest"),
        Statement(f"Only {tokens(order[:k + 1])} can be sampled", False, "top-k keeps exactly k tokens", "topk-k-plus-one"),
        Statement(f"Only {tokens(order[:k - 1])} can be sampled", False, "top-k keeps exactly k tokens",
                  "topk-k-minus-one") if k > 2 else None,
        Statement(f"Only {tokens(range(k))} can be sampled", False, "top-k ranks tokens by logit, not by index",
                  "topk-by-index") if set(range(k)) not in (set(kept), set(order[-k:])) else None,
        Statement(f"Every one of the {n} tokens can still be sampled; top-k only lowers the others' probability", False,
                  "tokens outside the top k get logit −∞: probability exactly 0", "topk-soft"),
        Statement(f"Which tokens survive depends on the temperature T = {T}", False,
                  "dividing by T > 0 keeps the order of the logits", "topk-temperature-reorders"),
    ]
    return Draft(
        prompt=(f"Next-token logits for tokens 1 to {n} are $({_fmt_logits(logits)})$. Sampling applies top-$k$ "
                f"with $k = {k}$ and temperature $T = {T}$. Which ONE of the following statements is CORRECT?"),
        statements=[c for c in candidates if c is not None],
        solution=[Step("Rank", "tokens by logit: " + ", ".join(f"{i + 1} ({logits[i]:g})" for i in order)),
                  Step("Keep", f"the first {k}: {tokens(kept)}; all others get probability 0. Temperature changes the "
                               "probabilities of the kept tokens, not which are kept.")],
        hints=["Sort the logits.", "keep the k largest", f"$k = {k}$"],
    )
