"""Dimensions and shapes: d_k, the shapes inside attention, head splitting, GQA groups."""

from __future__ import annotations

from quizforge.bank.question import Misconception, Step
from quizforge.bank.seeds import SeedChain, widened
from quizforge.bank.steps import integer, shape
from quizforge.bank.template import Draft, template

D_MODELS = (256, 384, 512, 640, 768, 1024, 1280, 1536, 2048, 2560, 4096, 5120)
HEADS = (4, 6, 8, 10, 12, 16, 20, 32, 40, 64)


def _config(stream):
    """A (d_model, h) pair with h dividing d_model and d_k at least 32."""
    pairs = [(d, h) for d in D_MODELS for h in HEADS if d % h == 0 and d // h >= 32 and d // h <= 256]
    return stream.choice(pairs)


@template("dims.d_k", topic="dims", kind="NAT", marks=1, difficulty=1, title="Head dimension dₖ", light=True)
def head_dimension(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    # d_k drawn first, over 117 even widths, so that no key is shared by more than a few prompts.
    d_k_drawn, h = s.choice(range(24, 257, 2)), s.choice(HEADS)
    d_model = d_k_drawn * h
    cfg = ModelConfig(arch="mha", d_model=d_model, n_heads=h)
    d_k = cfg.d_head
    return Draft(
        prompt=(f"A multi-head attention layer has model width $d_{{model}} = {d_model}$ and "
                f"$h = {h}$ heads, with the usual split of the width across heads. "
                f"What is the dimension $d_k$ of each head's queries and keys?"),
        answer=d_k,
        misconceptions=[
            Misconception("d_k-is-d_model", "d_k = d_model", "that is d_model itself: each head gets only d_model/h", d_model),
            Misconception("d_k-times-h", "multiplied by h", "that is d_model·h: the heads split the width, they don't multiply it", d_model * h),
            Misconception("d_k-sqrt", "took √d_model", "that is √d_model; √ belongs to the scaling, not to d_k", round(d_model ** 0.5)),
        ],
        solution=[Step("Split the width across the heads",
                       f"$$d_k = \\frac{{d_{{model}}}}{{h}} = \\frac{{{d_model}}}{{{h}}} = {d_k}$$")],
        hints=["The heads divide the model width between them.", "$d_k = d_{model}/h$",
               f"$d_k = {d_model}/{h}$"],
        fmt=integer,
    )


@template("dims.shapes", topic="dims", kind="MCQ", marks=1, difficulty=1,
          title="Shapes inside attention", light=True)
def attention_shapes(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    B, h = s.choice((2, 4, 8, 16, 32)), s.choice((4, 8, 12, 16))
    n_q, n_k = s.choice((5, 10, 20, 50, 64)), s.choice((7, 12, 30, 60, 128))
    d_k, d_v = s.choice((32, 64, 128)), s.choice((16, 48, 96))
    which = s.choice(("scores", "weights", "output"))
    correct = {"scores": (B, h, n_q, n_k), "weights": (B, h, n_q, n_k), "output": (B, h, n_q, d_v)}[which]
    name = {"scores": "$QK^\\top$", "weights": "the attention weights $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})$",
            "output": "the output $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})\\,V$ (before the heads are merged)"}[which]
    wrong = [
        Misconception("shape-transposed", "transposed the scores", "that has keys before queries: row i of QKᵀ belongs to query i",
                      shape((B, h, n_k, n_q))),
        Misconception("shape-uses-d_k", "used d_k for the output", "that uses d_k; the output takes its last dimension from V (d_v)",
                      shape((B, h, n_q, d_k))) if which == "output" else
        Misconception("shape-uses-d_k", "d_k for the scores", "d_k is summed away in QKᵀ: the scores' last axis is n_k, one column per key",
                      shape((B, h, n_q, d_k))),
        Misconception("shape-n_k-rows", "one row per key", "that has one row per key; attention produces one row per query",
                      shape((B, h, n_k, d_v))),
        Misconception("shape-no-heads", "dropped the head axis", "that drops the head axis: every head computes its own matrix",
                      shape((B, n_q, n_k))),
        Misconception("shape-d-last", "d_v for the scores", "scores pair each query with each key: the last axis is n_k",
                      shape((B, h, n_q, d_v))),
    ]
    return Draft(
        prompt=(f"In a batch of $B = {B}$ sequences, one attention layer with $h = {h}$ heads has "
                f"queries $Q$ of shape $({B}, {h}, {n_q}, {d_k})$, keys $K$ of shape $({B}, {h}, {n_k}, {d_k})$ "
                f"and values $V$ of shape $({B}, {h}, {n_k}, {d_v})$. What is the shape of {name}?"),
        answer=shape(correct),
        misconceptions=[m for m in wrong if m.value != shape(correct)],
        solution=[
            Step("Scores", f"$QK^\\top$: $({n_q} \\times {d_k}) \\cdot ({d_k} \\times {n_k}) \\to ({n_q} \\times {n_k})$ per head, "
                           f"so $({B}, {h}, {n_q}, {n_k})$."),
            Step("Weights", "The softmax and scaling keep the shape: one row per query, one column per key."),
            Step("Output", f"Weights times $V$: $({n_q} \\times {n_k}) \\cdot ({n_k} \\times {d_v}) \\to ({n_q} \\times {d_v})$, "
                           f"so $({B}, {h}, {n_q}, {d_v})$."),
            Step("Answer", f"The shape of {name} is {shape(correct)}."),
        ],
        hints=["Row i belongs to query i; column j to key j.", "$(n_q \\times d_k)(d_k \\times n_k) = n_q \\times n_k$",
               f"$n_q = {n_q}$, $n_k = {n_k}$, $d_v = {d_v}$"],
        fmt=str,
    )


@template("dims.head_split", topic="dims", kind="MCQ", marks=1, difficulty=2,
          title="Splitting into heads", light=True)
def head_split(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d_model, h = _config(s)
    B, n = s.choice((2, 4, 8, 16, 32)), s.choice((10, 50, 100, 200, 512))
    d_k = d_model // h
    right = shape((B, h, n, d_k))
    wrong = [
        Misconception("split-no-transpose", "split without the transpose",
                      "that is the reshape before the transpose: heads must come before positions so each head attends over its own sequence",
                      shape((B, n, h, d_k))),
        Misconception("split-full-width", "each head kept the full width",
                      "each head gets d_model/h features, not all d_model", shape((B, h, n, d_model))),
        Misconception("split-heads-last", "heads on the last axis", "the head axis goes before the positions, not after the features",
                      shape((B, n, d_k, h))),
        Misconception("split-merged-batch", "merged batch and heads",
                      "that folds the heads into the batch axis; the question asks for a 4-D tensor that keeps the batch axis first",
                      shape((B * h, n, d_k))),
        Misconception("split-keys-layout", "transposed the features", "(n, d_k) per head, not (d_k, n): that layout is Kᵀ",
                      shape((B, h, d_k, n))),
    ]
    return Draft(
        prompt=(f"The projected queries $XW_Q$ of a batch have shape $({B}, {n}, {d_model})$ "
                f"(batch, positions, $d_{{model}}$). They are split into $h = {h}$ heads and arranged as a 4-D tensor, batch axis "
                f"first, so that each head can compute its own $QK^\\top$ with one batched matrix product over the last two "
                f"axes. What is the shape of that 4-D tensor?"),
        answer=right,
        misconceptions=wrong,
        solution=[
            Step("Reshape", f"$({B}, {n}, {d_model}) \\to ({B}, {n}, {h}, {d_k})$ since $d_k = {d_model}/{h} = {d_k}$."),
            Step("Transpose positions and heads", f"$({B}, {n}, {h}, {d_k}) \\to ({B}, {h}, {n}, {d_k})$: now the last two axes are "
                                                  "(positions, features) for every (batch, head) pair."),
        ],
        hints=["Batched matmul works on the last two axes.", "reshape to $(B, n, h, d_k)$, then transpose axes 1 and 2",
               f"$d_k = {d_model}/{h}$"],
        fmt=str,
    )


@template("dims.gqa_groups", topic="dims", kind="NAT", marks=1, difficulty=1,
          title="GQA group size", light=True,
          widened_as="dims.gqa_groups_wide")
def gqa_groups(chain: SeedChain) -> Draft:
    wide = widened(chain)
    s = wide or chain.stream("params")
    h = s.choice((8, 16, 24, 32, 40, 48, 64, 96) if wide is None else range(8, 161, 4))
    h_kv = s.choice([g for g in ((1, 2, 4, 8, 16) if wide is None else range(1, h)) if h % g == 0 and g < h])
    ask_group = s.chance(1, 2)
    group = h // h_kv
    if ask_group:
        scheme = "multi-query attention" if h_kv == 1 else "grouped-query attention"
        prompt = (f"A decoder uses {scheme} with $h = {h}$ query heads and $h_{{kv}} = {h_kv}$ key/value "
                  f"head{'s' if h_kv != 1 else ''}. "
                  "How many query heads share each key/value head?")
        answer = group
        wrong = [Misconception("gqa-inverted", "inverted the ratio", "that is h_kv/h inverted; divide the query heads by the KV heads", None),
                 Misconception("gqa-product", "multiplied", "that is h·h_kv; the heads are split into groups, not multiplied", h * h_kv),
                 Misconception("gqa-difference", "subtracted", "that is h − h_kv; the group size is a ratio", h - h_kv)]
        steps = [Step("Group size", f"$$\\frac{{h}}{{h_{{kv}}}} = \\frac{{{h}}}{{{h_kv}}} = {group}$$")]
    else:
        prompt = (f"A decoder has $h = {h}$ query heads in groups of {group}: each group of {group} query heads shares "
                  "one key head and one value head. How many key/value heads $h_{kv}$ does each layer have?")
        answer = h_kv
        wrong = [Misconception("gqa-product", "multiplied", "that is h·g; the groups divide the heads", h * group),
                 Misconception("gqa-all-heads", "one KV head per query head", "that is plain MHA; GQA shares each KV head within a group", h),
                 Misconception("gqa-difference", "subtracted", "that is h − g; the number of groups is h/g", h - group)]
        steps = [Step("Number of groups", f"$$h_{{kv}} = \\frac{{h}}{{g}} = \\frac{{{h}}}{{{group}}} = {h_kv}$$")]
    steps.append(Step("Special cases", "$h_{kv} = h$ is multi-head attention and $h_{kv} = 1$ is multi-query attention."))
    return Draft(prompt=prompt, answer=answer, misconceptions=[m for m in wrong if m.value],
                 solution=steps, fmt=integer,
                 hints=["Each key/value head serves one group of query heads.", "$g = h / h_{kv}$",
                        f"$h = {h}$"])
