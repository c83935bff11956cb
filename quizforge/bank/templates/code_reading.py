"""Code reading: attention code whose softmax normalizes over the wrong axis."""

from __future__ import annotations

from quizforge.bank.question import Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.statement_pools import statement_pool
from quizforge.bank.template import Draft, template

# (layout comment, dims of the scores, the wrong dim argument, the axis it names)
_CASES = (
    ("(B, n, n)", 3, "1", "queries"),
    ("(B, n, n)", 3, "-2", "queries"),
    ("(B, h, n, n)", 4, "2", "queries"),
    ("(B, h, n, n)", 4, "-2", "queries"),
    ("(B, h, n, n)", 4, "1", "heads"),
)


@template("attention.softmax_axis_bug", topic="attention", kind="MCQ", marks=1, difficulty=2,
          title="Code reading: softmax over the wrong axis", light=True)
def softmax_axis_bug(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    layout, ndim, dim, axis = s.choice(_CASES)
    n = s.choice((4, 8, 16, 128))
    transpose = "k.transpose(-2, -1)"
    code = (f"scores = q @ {transpose} / math.sqrt(d_k)   # {layout}, n = {n}\n"
            f"weights = torch.softmax(scores, dim={dim})\n"
            "out = weights @ v")
    sums = ("each column of every n × n matrix sums to 1, not each row: the weights are normalized over the "
            "queries for each key" if axis == "queries" else
            "each (query, key) entry is normalized across the h heads, so rows no longer sum to 1 and the heads "
            "compete with each other")
    statements = statement_pool("softmax_axis_bug", dim=dim, axis=axis, sums=sums)
    return Draft(
        prompt=("This attention code has a bug:\n\n```\n" + code + "\n```\n\n"
                "Which ONE of the following statements is CORRECT?"),
        statements=statements,
        solution=[Step("What must sum to 1", "Row $i$ of the weights holds query $i$'s weights over all keys; "
                                             "out = weights @ v averages value rows with them, so each row sums to 1."),
                  Step("The fix", f"torch.softmax(scores, dim=-1): the last axis indexes the keys. dim={dim} "
                                  f"normalizes over the {axis}.")],
        hints=["Which index of scores runs over the keys?", "scores[..., i, j] = q_i · k_j",
               f"the scores are laid out {layout}"],
    )
