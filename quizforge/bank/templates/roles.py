"""What the output projection W_O and the position-wise feed-forward network are for."""

from __future__ import annotations

from quizforge.bank.question import Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.statement_pools import statement_pool
from quizforge.bank.template import Draft, template


@template("concepts.wo_ffn_role", topic="concepts", kind="MSQ", marks=2, difficulty=2,
          title="The role of the output projection and of the FFN", light=True)
def wo_ffn_role(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d = s.choice((512, 768, 1024))
    h = s.choice((8, 12, 16) if d != 512 else (8, 16))
    while d % h:
        h = s.choice((8, 16))
    d_k = d // h
    statements = statement_pool("wo_ffn_role", d=d, h=h, d_k=d_k)
    return Draft(
        prompt=(f"In a Transformer layer with $d = {d}$ and $h = {h}$ heads of width $d_k = {d_k}$, multi-head "
                "attention ends with an output projection $W_O$, and a position-wise feed-forward network (FFN, "
                "$d_{ff} = 4d$) follows. Which of the following statements is/are CORRECT?"),
        statements=statements,
        solution=[Step("W_O", "Concatenating heads only places them side by side; $W_O$ mixes them and maps back to "
                              "$d_{model}$."),
                  Step("FFN", "Position-wise, same weights for every token, a nonlinearity between two linear maps; "
                              "with $d_{ff} = 4d$ it holds $8d^2$ of the layer's $12d^2$ weights."),
                  Step("Division of labour", "Attention moves information between tokens; the FFN transforms each "
                                             "token's vector.")],
        hints=["Which part moves information between tokens, and which transforms each token?",
               "$\\operatorname{MHA}(X) = \\operatorname{Concat}(\\text{head}_1, \\ldots, \\text{head}_h) W_O$",
               "FFN: $\\max(0, xW_1 + b_1)W_2 + b_2$ per position"],
    )
