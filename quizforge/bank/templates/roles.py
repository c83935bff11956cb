"""What the output projection W_O and the position-wise feed-forward network are for."""

from __future__ import annotations

from quizforge.bank.question import Statement, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.template import Draft, template


@template("concepts.wo_ffn_role", topic="concepts", kind="MSQ", marks=2, difficulty=2,
          title="The role of W_O and of the FFN", light=True)
def wo_ffn_role(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d = s.choice((512, 768, 1024))
    h = s.choice((8, 12, 16) if d != 512 else (8, 16))
    while d % h:
        h = s.choice((8, 16))
    d_k = d // h
    statements = [
        Statement(f"$W_O$ ($d \\times d$, $d = {d}$) mixes the {h} concatenated head outputs, so every output "
                  "coordinate can combine information from every head", True,
                  f"without W_O each block of {d_k} coordinates would come from one head alone"),
        Statement("The feed-forward network is applied to each position separately, with the same weights at every "
                  "position", True, "it is position-wise: no information moves between tokens inside the FFN"),
        Statement("The FFN supplies the per-token nonlinearity: without it, a layer's output would be a weighted "
                  "average of linear maps of the values", True,
                  "attention's output is linear in V; the softmax only decides the weights"),
        Statement(f"With $d_{{ff}} = 4d$, the FFN holds about two thirds of a layer's weights ($8d^2$ of $12d^2$)", True,
                  "attention has 4d², the FFN 2·d·4d = 8d²"),
        Statement("$W_O$ computes the attention weights from the queries and keys", False,
                  "the weights come from softmax(QKᵀ/√d_k); W_O acts after the weighted sum", "wo-computes-weights"),
        Statement("The FFN is where tokens exchange information with each other", False,
                  "only attention moves information between positions; the FFN acts on each token alone",
                  "ffn-mixes-tokens"),
        Statement(f"$W_O$ is needed only to resize the output, and could be dropped when $h \\cdot d_k = d$ "
                  f"({h} × {d_k} = {d}) without changing what the layer can express", False,
                  "even when the shapes fit, W_O is what lets the heads' outputs be mixed and rotated", "wo-only-resizes"),
        Statement("Since softmax is nonlinear, the FFN adds nothing that attention cannot already compute", False,
                  "the softmax is nonlinear in the scores, but the output is still a linear combination of value vectors",
                  "ffn-redundant"),
    ]
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
