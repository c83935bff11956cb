"""Efficient attention: what sparse attention, Linformer and Performer cost in n."""

from __future__ import annotations

import math

from quizforge.bank.question import Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.statement_pools import statement_pool
from quizforge.bank.steps import tex_int
from quizforge.bank.template import Draft, template


@template("concepts.efficient_attention", topic="concepts", kind="MCQ", marks=1, difficulty=2,
          title="Sparse, Linformer and Performer complexities", light=True)
def efficient_attention(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    n = s.choice((1024, 4096, 16384, 65536))
    k = s.choice((128, 256))
    r = s.choice((64, 128, 256))
    root = int(math.isqrt(n))
    lead = s.choice((
        f"A team must run attention over sequences of $n = {n}$ tokens and compares efficient variants.",
        f"For inputs of $n = {n}$ tokens, standard attention's $n^2 = {tex_int(n * n)}$ scores per head are too many.",
        f"You are reading three papers on attention for long sequences ($n = {n}$ tokens, head width $d$).",
    ))
    statements = statement_pool("efficient_attention", root=root, k=k, r=r, n_squared=tex_int(n * n))
    return Draft(
        prompt=f"{lead} Which ONE of the following statements is CORRECT?",
        statements=statements,
        solution=[Step("Standard", "$n^2$ scores per head: time $\\mathcal{O}(n^2 d)$, memory $\\mathcal{O}(n^2)$"),
                  Step("Sparse Transformer", "fixed/strided patterns of about $\\sqrt{n}$ keys: $\\mathcal{O}(n\\sqrt{n}\\,d)$"),
                  Step("Linformer", "project $K, V$ from $n$ to $k$ rows: $\\mathcal{O}(nkd)$, an approximation"),
                  Step("Performer", "random features $\\phi$, $\\phi(Q)(\\phi(K)^\\top V)$: $\\mathcal{O}(nrd)$, "
                                    "an unbiased approximation of the softmax kernel")],
        hints=["Which matrix does each method avoid building?", "sparse: $n\\sqrt{n}$; Linformer: $nk$; Performer: $nr$",
               f"$\\sqrt{{{n}}} = {root}$"],
    )
