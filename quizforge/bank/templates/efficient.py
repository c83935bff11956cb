"""Efficient attention: what sparse attention, Linformer and Performer cost in n."""

from __future__ import annotations

import math

from quizforge.bank.question import Statement, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.template import Draft, template


def _O(expr: str) -> str:
    return f"$\\mathcal{{O}}({expr})$"


SPARSE, QUADRATIC = _O("n\\sqrt{n}\\,d"), _O("n^2 d")
LINFORMER, PERFORMER, N_LOG_N, N2R = _O("n k d"), _O("n r d"), _O("n \\log n"), _O("n^2 r")


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
        f"For inputs of $n = {n}$ tokens, standard attention's $n^2 = {n * n:,}$ scores per head are too many.",
        f"You are reading three papers on attention for long sequences ($n = {n}$ tokens, head width $d$).",
    ))
    statements = [
        Statement(f"The Sparse Transformer's strided attention lets each query attend to about $\\sqrt{{n}} = {root}$ "
                  f"keys, so a layer costs {SPARSE} instead of {QUADRATIC}", True,
                  "two factorized patterns of about √n keys each: n·√n pairs"),
        Statement(f"Linformer projects the $n$ keys and values down to $k = {k}$ rows, so attention costs "
                  f"{LINFORMER}, linear in $n$ for fixed $k$", True,
                  "the score matrix becomes n × k instead of n × n"),
        Statement(f"Performer replaces the softmax kernel by $r = {r}$ random features and computes "
                  f"$\\phi(Q)(\\phi(K)^\\top V)$, costing {PERFORMER}, linear in $n$", True,
                  "multiplying φ(K)ᵀV first never forms an n × n matrix"),
        Statement(f"Linformer's cost is {N_LOG_N} because it hashes similar keys into buckets", False,
                  "bucketing by hashing is Reformer (LSH attention); Linformer uses a learned low-rank projection of K and V",
                  "linformer-is-reformer"),
        Statement(f"Performer still builds the $n \\times n$ attention matrix but stores it in lower precision, so its "
                  f"time stays {QUADRATIC}", False,
                  "Performer never forms the n × n matrix: it reorders the product through random features",
                  "performer-quadratic"),
        Statement(f"Sparse attention with about $\\sqrt{{n}}$ keys per query still computes all ${n * n:,}$ scores "
                  "and then zeroes most of them, so it saves memory but not time", False,
                  "only the scores in the pattern are computed: about n√n of them", "sparse-computes-all"),
        Statement("Linformer and Performer both compute exactly the same output as standard softmax attention, only faster",
                  False, "both approximate it: Linformer by a low-rank projection, Performer by a random-feature kernel",
                  "efficient-is-exact"),
        Statement(f"Performer's cost is {N2R}: the random features add a factor $r$ to standard attention", False,
                  "the random features remove the n² term: the cost is linear in n", "performer-n2r"),
    ]
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
