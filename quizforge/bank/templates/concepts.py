"""Conceptual MCQ/MSQ templates: complexity, path length, normalization, architectures, attention variants.

The two softmax concept templates live with the other softmax templates in `softmax.py`.

Each template returns a pool of statements (true and false, each with the reason) and the
shared option builder draws one true + three false (MCQ) or one to three true (MSQ).
The parameters stream varies the framing and the numbers inside the statements; every
statement is written so that it is true or false on its own, whatever else is drawn with it.
Neither option texts nor `why` strings end with a full stop: the answer key joins the options
with commas and the grader appends its own punctuation to the reason.
"""

from __future__ import annotations

from quizforge.bank.question import Statement, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.template import Draft, template

MSQ_ASK = "Which of the following statements is/are CORRECT?"
MCQ_ASK = "Which ONE of the following statements is CORRECT?"


def _t(text: str, why: str) -> Statement:
    return Statement(text.rstrip("."), True, why)


def _f(text: str, why: str, tag: str = "") -> Statement:
    return Statement(text.rstrip("."), False, why, tag)


def _O(expr: str) -> str:
    """Big-O in LaTeX, for use inside $…$."""
    return f"\\mathcal{{O}}({expr})"


def _bytes(n: int) -> str:
    """A power-of-two byte count as MiB or GiB."""
    mib = n / 2**20
    return f"{mib / 1024:g} GiB" if mib >= 1024 else f"{mib:g} MiB"


LOG_K_N = _O("\\log_k n")
N_LOG_N = _O("n \\log n")


# --- 1. complexity -------------------------------------------------------------

@template("concepts.complexity", topic="concepts", kind="MSQ", marks=2, difficulty=2,
          title="Cost of a Transformer layer in n and d", light=True)
def complexity(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d = s.choice((512, 768, 1024, 2048, 4096))
    h = s.choice([x for x in (8, 12, 16, 32) if d % x == 0 and d // x >= 64])
    n = s.choice((1024, 2048, 4096, 8192, 16384))
    framing = s.integer(0, 2)
    setting = [
        (f"One Transformer layer (self-attention with $h = {h}$ heads of width $d_k = d/h$, followed by a "
         f"position-wise feed-forward network of width $4d$) processes one sequence of $n = {n}$ tokens with "
         f"model width $d = {d}$."),
        (f"You are profiling one layer of a Transformer of width $d = {d}$ with $h = {h}$ attention heads on a "
         f"sequence of $n = {n}$ tokens, and comparing it with a recurrent layer of hidden size $d$ run over the "
         "same sequence."),
        (f"A model of width $d = {d}$ with $h = {h}$ heads per layer is being considered for long inputs; "
         f"the current input length is $n = {n}$ tokens."),
    ][framing]
    prompt = (f"{setting} Treat the cost of one layer for one sequence as a function of $n$ and $d$; "
              "'standard' attention means an implementation that stores the attention weights, and a recurrent "
              f"layer, where one is mentioned, has hidden size $d$. {MSQ_ASK}")
    statements = [
        _t(f"Computing the scores $QK^\\top$ over all heads takes ${_O('n^2 d')}$ time.",
           "every one of the n² query–key pairs needs a dot product of length d_k, summed over h heads: h·n²·d/h = n²d"),
        _t(f"Standard attention stores, per layer, {h} weight matrices of ${n} \\times {n}$ entries (one per head), "
           f"a memory cost of ${_O('n^2')}$ per head.",
           "each head has one weight per (query, key) pair, an n × n matrix, whatever the head width"),
        _t(f"The position-wise feed-forward network costs ${_O('n d^2')}$ time, linear in $n$.",
           "it applies the same d × 4d and 4d × d matrices to each token separately: n tokens times O(d²)"),
        _t(f"The $Q$, $K$, $V$ and output projections together cost ${_O('n d^2')}$ time.",
           "four d × d matrices applied to each of the n tokens: 4·n·d² multiply-adds"),
        _t(f"Doubling the length from $n = {n}$ to ${2 * n}$ multiplies the FLOPs of $QK^\\top$ by 4 but those of "
           "the feed-forward network only by 2.",
           "the scores grow as n² and the feed-forward network as n"),
        _t(f"Splitting the width into $h = {h}$ heads does not change the order of the score FLOPs: "
           f"$h \\cdot n^2 \\cdot \\frac{{d}}{{h}} = n^2 d$.",
           "more heads means more score matrices, but each comes from dot products only d/h long"),
        _t(f"A recurrent layer with hidden size $d$ costs ${_O('n d^2')}$ time and needs ${_O('n')}$ sequential "
           "operations that cannot run in parallel across positions.",
           "each step multiplies the d-dimensional state by a d × d matrix, and step t needs the state of step t − 1"),
        _f(f"Self-attention takes ${_O('n d^2')}$ time, so its cost grows linearly with the sequence length.",
           "n d² is the cost of the projections; the scores compare every pair of positions, which is O(n² d)",
           "attention-linear-in-n"),
        _f(f"Doubling the length from $n = {n}$ to ${2 * n}$ doubles the FLOPs of computing $QK^\\top$.",
           "the number of query–key pairs is n², so doubling n multiplies the score FLOPs by 4",
           "attention-linear-in-n"),
        _f(f"The attention weights of one head need only ${_O('n d_k')}$ memory, like the queries and keys themselves.",
           "the weights hold one number per (query, key) pair: an n × n matrix per head, O(n²)",
           "scores-memory-linear"),
        _f(f"The feed-forward network mixes information between positions, so its cost is ${_O('n^2 d')}$.",
           "the feed-forward network acts on each position independently; only attention mixes positions",
           "ffn-quadratic-in-n"),
        _f(f"Using $h = {h}$ heads instead of a single head of width $d$ multiplies the FLOPs of $QK^\\top$ by {h}.",
           "each head's dot products are only d/h long, so h heads cost h·n²·d/h = n²d, the same as one wide head",
           "heads-multiply-flops"),
        _f("Like self-attention, a recurrent layer's time grows quadratically with the sequence length $n$.",
           "a recurrent layer does one O(d²) step per position: O(n d²), never comparing all pairs",
           "rnn-quadratic"),
        _f(f"Doubling the width from $d = {d}$ to ${2 * d}$ at fixed $n$ and $h$ multiplies the FLOPs of computing "
           "$QK^\\top$ over all heads by 4.",
           "the score FLOPs are n²d: linear in d, so they double; d² belongs to the projections and the FFN",
           "attention-n2d2"),
        _f(f"A recurrent layer needs only ${_O('1')}$ sequential operations, because each step costs ${_O('d^2')}$.",
           "step t needs the hidden state of step t − 1, so the n steps form a chain of O(n) sequential operations",
           "rnn-parallel"),
    ]
    solution = [
        Step("Attention scores and weights",
             f"Each head forms $QK^\\top$: $n^2$ dot products of length $d_k = d/h$. Over $h$ heads that is "
             f"$h \\cdot n^2 \\cdot d/h = n^2 d$ multiply-adds, ${_O('n^2 d')}$; the same again for weights times $V$. "
             f"Standard attention keeps an $n \\times n$ weight matrix per head: ${_O('n^2')}$ memory per head and layer."),
        Step("Per-token parts",
             f"The four projections ($4nd^2$) and the feed-forward network ($2 \\cdot n \\cdot d \\cdot 4d = 8nd^2$) treat "
             f"each token on its own, so they are ${_O('n d^2')}$: linear in $n$, quadratic in $d$."),
        Step("Recurrent layer",
             f"One $d \\times d$ step per position: ${_O('n d^2')}$ time, but ${_O('n')}$ sequential steps, since each "
             "step waits for the previous state. Self-attention needs only $\\mathcal{O}(1)$ sequential operations."),
        Step("Key facts",
             f"Self-attention: ${_O('n^2 d')}$ time, ${_O('n^2')}$ memory per head for the weights; "
             f"projections and FFN: ${_O('n d^2')}$; "
             f"doubling $n$: scores ×4, per-token parts ×2 (here ${n} \\to {2 * n}$); "
             "the number of heads does not change the score FLOPs, only how many $n \\times n$ matrices exist."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Ask, for each part, whether it pairs positions with each other or treats each token on its own.",
               f"scores: $n^2 \\cdot d$; per-token matrices: $n \\cdot d^2$",
               f"With $n = {n}$, $d = {d}$, $h = {h}$: the scores are $h \\cdot n^2 \\cdot (d/h)$ multiply-adds."],
    )


# --- 2. path length ------------------------------------------------------------

@template("concepts.path_length", topic="concepts", kind="MCQ", marks=1, difficulty=2,
          title="Maximum path length and sequential operations", light=True)
def path_length(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    k = s.choice((2, 3, 4, 8))
    m = s.choice([e for e in (4, 5, 6, 7, 8, 9, 10) if 64 <= k**e <= 8192])
    n = k**m
    r = s.choice((16, 32, 64))
    framing = s.integer(0, 2)
    lead = [
        "The maximum path length between two positions is the largest number of steps a signal must take "
        "through a network to travel from one input position to another; shorter paths make long-range "
        "dependencies easier to learn.",
        "To learn a dependency between distant tokens, information has to travel from one position to the other "
        "through the layers; the longest such route over all pairs of positions is the maximum path length.",
        "Layer types for sequence models are often compared by their cost, by the number of operations that must "
        "run one after another, and by the maximum path length between any two positions.",
    ][framing]
    prompt = f"{lead} Consider sequences of $n = {n}$ positions. {MCQ_ASK}"
    statements = [
        _t(f"A single self-attention layer links every pair of positions directly, so its maximum path length is "
           f"${_O('1')}$ whatever $n$ is.",
           "every query attends to every key in the same layer: one step between any two positions"),
        _t(f"In a recurrent layer, information from position 1 reaches position {n} only through the {n - 1} "
           f"intermediate state updates, a maximum path length of ${_O('n')}$.",
           "the state is passed one position at a time, so the path grows with the distance"),
        _t(f"With dilated convolutions of kernel width $k = {k}$ (dilations $1, {k}, {k}^2, \\ldots$), "
           f"$\\log_k n = {m}$ layers already connect all {n} positions, a path length of ${LOG_K_N}$.",
           f"each layer multiplies the receptive field by k, so after {m} layers it spans {k}^{m} = {n} positions"),
        _t(f"A stack of ordinary (contiguous) convolutions of kernel width $k = {k}$ needs ${_O('n/k')}$ layers "
           "to connect the first and the last position.",
           "each contiguous layer widens the receptive field by only k − 1 positions"),
        _t(f"Self-attention needs ${_O('1')}$ sequential operations per layer, while a recurrent layer needs "
           f"${_O('n')}$.",
           "attention computes all positions at once with matrix products; a recurrence waits for the previous state"),
        _f("Because self-attention compares all $n^2$ pairs of positions, its maximum path length grows as $n^2$.",
           "n² is its cost; every pair is joined directly, so the path length is O(1)",
           "path-is-cost"),
        _f(f"A recurrent layer's hidden state summarizes the whole prefix, so its maximum path length is ${_O('1')}$.",
           "the summary is built one step at a time: information from position 1 passes through every later update",
           "rnn-state-is-shortcut"),
        _f(f"A single convolutional layer with kernel width $k = {k}$ connects all {n} positions.",
           f"one layer with kernel width {k} sees only {k} neighbouring positions; many layers are needed",
           "conv-global"),
        _f("Dilation does not shorten the maximum path length: dilated convolutions need as many layers as "
           "contiguous ones to connect all positions.",
           "growing the dilation geometrically makes the receptive field grow geometrically: O(log_k n) layers",
           "dilation-no-help"),
        _f(f"A self-attention layer must process the {n} positions of a given sequence one after another, so it needs "
           f"${_O('n')}$ sequential operations.",
           "all positions of a given sequence are processed in parallel by matrix products: O(1) sequential operations",
           "attention-sequential"),
        _f(f"Restricting self-attention to a window of $r = {r}$ neighbours keeps the maximum path length at "
           f"${_O('1')}$.",
           "with a window of r, distant positions are reached only by hopping through layers: O(n/r)",
           "restricted-still-constant"),
        _f(f"A recurrent layer needs only ${_O('1')}$ sequential operations, since each step is a single matrix "
           "product.",
           "each step needs the previous hidden state, so the n steps must run in order: O(n)",
           "rnn-parallel"),
        _f(f"A stack of contiguous convolutions with kernel width $k = {k}$ has maximum path length "
           f"${LOG_K_N}$.",
           "contiguous kernels add only k − 1 positions per layer, so O(n/k) layers; the logarithm needs dilation",
           "conv-log-path"),
    ]
    solution = [
        Step("What is measured",
             "The maximum path length counts the layers or steps a signal crosses between the two most distant "
             "positions; sequential operations count the steps that cannot run in parallel."),
        Step("Self-attention",
             "Every query sees every key in one layer: path length $\\mathcal{O}(1)$, and all positions are "
             "computed together, $\\mathcal{O}(1)$ sequential operations. A window of $r$ neighbours raises the "
             "path length to $\\mathcal{O}(n/r)$."),
        Step("Recurrent",
             f"The state is handed from position to position: path length $\\mathcal{{O}}(n)$ ({n - 1} steps from "
             f"the first to the last of {n} positions) and $\\mathcal{{O}}(n)$ sequential operations."),
        Step("Convolutional",
             f"Contiguous kernels of width $k$ widen the receptive field by $k - 1$ per layer: ${_O('n/k')}$ layers. "
             f"Dilated kernels multiply it by $k$ per layer: ${LOG_K_N}$; here $\\log_{{{k}}} {n} = {m}$."),
        Step("Key facts",
             f"Self-attention: path ${_O('1')}$, sequential ${_O('1')}$; "
             f"recurrent: path ${_O('n')}$, sequential ${_O('n')}$; "
             f"convolution: path ${_O('n/k')}$ contiguous, ${LOG_K_N}$ dilated."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Count how many layers or steps separate the first and the last position.",
               f"attention ${_O('1')}$, recurrence ${_O('n')}$, convolution ${_O('n/k')}$ or ${LOG_K_N}$",
               f"With $k = {k}$ and $n = {n} = {k}^{{{m}}}$, dilated convolutions need {m} layers."],
    )


# --- 3. pre-norm vs post-norm --------------------------------------------------

@template("concepts.pre_post_norm", topic="concepts", kind="MCQ", marks=1, difficulty=2,
          title="Pre-norm versus post-norm", light=True)
def pre_post_norm(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    pre_first = s.chance(1, 2)
    a, b = s.choice((("P", "Q"), ("I", "II"), ("A", "B")))
    pre, post = (a, b) if pre_first else (b, a)
    eq_pre = "$y = x + F(\\operatorname{LN}(x))$"
    eq_post = "$y = \\operatorname{LN}(x + F(x))$"
    first, second = (eq_pre, eq_post) if pre_first else (eq_post, eq_pre)
    layers = s.choice((12, 24, 48, 96))
    prompt = (f"Each of the {layers} layers of a Transformer has two sublayers, self-attention and a feed-forward "
              f"network. Every sublayer $F$ is wrapped in a residual connection with a LayerNorm "
              f"$\\operatorname{{LN}}$, mapping its input $x$ to its output $y$ in one of two ways:\n\n"
              f"- Arrangement {a}: {first}\n- Arrangement {b}: {second}\n\n{MCQ_ASK}")
    P, Q = f"Arrangement {pre}", f"Arrangement {post}"
    statements = [
        _t(f"{P} is the pre-norm arrangement, the placement used by GPT-2 and LLaMA.",
           "the normalization sits inside the residual branch, before the sublayer: pre-norm"),
        _t(f"{Q} is the arrangement of the original Transformer and usually needs a learning-rate warm-up to "
           "train stably.",
           "post-norm, as in the 2017 paper, has badly scaled gradients early in training, which warm-up tames"),
        _t(f"In {P}, the residual stream has an identity path from the embeddings to the last layer's output that no "
           "LayerNorm interrupts, which keeps gradients well behaved in deep stacks.",
           "x is added unchanged to the branch's output, so gradients flow straight down the residual path"),
        _t(f"{P} needs an extra LayerNorm after the last layer, because the residual stream itself is never "
           "normalized.",
           "pre-norm only normalizes the inputs of the sublayers; the stream that leaves the last layer is raw"),
        _t(f"{P} can usually be trained without a learning-rate warm-up, or with a much shorter one than {Q}.",
           "its gradients are well scaled at initialization, so large early steps do not derail training"),
        _t(f"In {Q}, every residual addition is followed by a LayerNorm, so the signal passes through "
           f"{2 * layers} normalizations between the embeddings and the output.",
           f"post-norm normalizes after each of the 2 sublayers in each of the {layers} layers"),
        _f(f"{Q} is the pre-norm arrangement, the placement used by GPT-2 and LLaMA.",
           f"{post} normalizes after the residual addition: that is post-norm, the original Transformer's choice",
           "gpt2-post-norm"),
        _f(f"In {P}, the LayerNorm is applied after the residual addition.",
           f"in {pre} the LayerNorm acts on the input of F inside the branch; the addition comes last",
           "pre-norm-after-add"),
        _f(f"In {P}, the output of the last layer is already normalized, so no final LayerNorm is needed.",
           "the last operation of a pre-norm layer is an unnormalized addition, so a final LayerNorm is added",
           "no-final-norm"),
        _f(f"{Q} trains reliably at large learning rates without warm-up, even with many layers.",
           "post-norm is the arrangement that needs warm-up; deep post-norm stacks are hard to train without it",
           "post-norm-no-warmup"),
        _f("The two arrangements compute the same function; they differ only in the order of the code.",
           "normalizing before the sublayer or after the addition gives different functions and different gradients",
           "norm-placement-irrelevant"),
        _f(f"In {P}, the sublayer $F$ receives the unnormalized residual stream $x$ as its input.",
           f"in {pre} the sublayer's input is LN(x); only the skip connection carries x unnormalized",
           "pre-norm-input"),
        _f(f"In {P}, every layer renormalizes the residual stream, so its scale stays fixed from layer to layer.",
           "pre-norm never normalizes the stream itself; each layer adds to it, so its scale tends to grow with depth",
           "pre-norm-normalizes-stream"),
    ]
    solution = [
        Step("Identify the arrangements",
             f"{P}, {eq_pre}, normalizes the sublayer's input inside the residual branch: pre-norm. "
             f"{Q}, {eq_post}, normalizes after the addition: post-norm."),
        Step("Post-norm",
             "The original Transformer's choice. A LayerNorm sits on the main path after every addition, so "
             "gradients reaching the lower layers pass through all of them; at initialization the gradients are badly "
             "scaled and training needs a learning-rate warm-up, more so as depth grows."),
        Step("Pre-norm",
             "Used by GPT-2, LLaMA and most large models. The residual stream is a clean identity path, gradients "
             "flow well, and training is stable with little or no warm-up. The stream itself is never "
             "normalized, so a final LayerNorm follows the last layer."),
        Step("Key facts",
             "Pre-norm: $x + F(\\operatorname{LN}(x))$, final LN needed, stable without warm-up, GPT-2/LLaMA; "
             "post-norm: $\\operatorname{LN}(x + F(x))$, original Transformer, needs warm-up, harder when deep."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Find where the LayerNorm sits relative to the residual addition.",
               "pre-norm: $x + F(\\operatorname{LN}(x))$; post-norm: $\\operatorname{LN}(x + F(x))$",
               f"Arrangement {pre} applies LN before $F$, inside the branch."],
    )


# --- 4. LayerNorm vs BatchNorm ------------------------------------------------

@template("concepts.layernorm_batchnorm", topic="concepts", kind="MSQ", marks=2, difficulty=2,
          title="LayerNorm, BatchNorm and RMSNorm", light=True)
def layernorm_batchnorm(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    B = s.choice((8, 16, 32, 64))
    n = s.choice((64, 128, 256, 512))
    d = s.choice([x for x in (256, 512, 768, 1024) if x != B * n])
    framing = s.integer(0, 1)
    lead = [
        f"A batch of $B = {B}$ sequences, each padded to $n = {n}$ tokens, enters a normalization layer as a "
        f"tensor of shape $({B}, {n}, {d})$ (batch, positions, features).",
        f"A Transformer with width $d = {d}$ is trained on batches of $B = {B}$ sequences of up to $n = {n}$ "
        "tokens, shorter sequences being padded; the designers compare normalization layers for it.",
    ][framing]
    prompt = (f"{lead} Take BatchNorm to compute one mean and variance per feature, pooled over the batch and "
              f"positions. {MSQ_ASK}")
    tokens = B * n
    statements = [
        _t(f"LayerNorm computes one mean and one variance per token, each over its $d = {d}$ features: "
           f"{tokens} pairs of statistics for this batch.",
           f"LayerNorm normalizes each token's feature vector on its own; there are {B} × {n} = {tokens} tokens"),
        _t("A token's LayerNorm output does not depend on the other sequences in the batch or on the batch size.",
           "its statistics come only from that token's own features"),
        _t("LayerNorm computes the same thing at training and at inference time and keeps no running statistics.",
           "each token's statistics are computed on the spot, so there is nothing to estimate during training"),
        _t("BatchNorm's statistics for a feature pool many sequences and positions, so padding tokens and varying "
           "sequence lengths distort them unless they are explicitly excluded.",
           "padded positions enter the per-feature mean and variance like real tokens"),
        _t("BatchNorm keeps running estimates of the mean and variance for inference, so its behaviour at training "
           "and at test time differs.",
           "at test time it uses the stored estimates instead of the current batch's statistics"),
        _t("RMSNorm, as used in LLaMA, divides each token's features by their root mean square without subtracting "
           "the mean, and has a learnable gain but no bias.",
           "dropping the centring and the bias is exactly what distinguishes RMSNorm from LayerNorm"),
        _f(f"LayerNorm computes {d} means, one per feature, each over the {tokens} tokens of the batch.",
           "that is BatchNorm's pooling; LayerNorm computes one mean per token over its features",
           "layernorm-over-batch"),
        _f("LayerNorm keeps running averages of its statistics, which it uses at inference in place of the "
           "batch statistics.",
           "running statistics belong to BatchNorm; LayerNorm computes each token's statistics directly",
           "layernorm-running-stats"),
        _f("A token's LayerNorm output changes when another sequence in the same batch is replaced.",
           "LayerNorm uses only the token's own features, so other sequences cannot affect it",
           "layernorm-batch-dependent"),
        _f("BatchNorm suits Transformers better than LayerNorm because its statistics do not depend on the batch.",
           "BatchNorm's statistics are computed across the batch, which is exactly why Transformers avoid it",
           "batchnorm-batch-independent"),
        _f("BatchNorm works well with a batch of one sequence of one token, because it needs only the current example.",
           "with one value per feature the batch variance is zero: BatchNorm needs many examples per batch",
           "batchnorm-small-batch"),
        _f("RMSNorm subtracts the mean and divides by the standard deviation, exactly like LayerNorm, only faster.",
           "RMSNorm skips the mean subtraction and divides by the root mean square; that omission is where it saves time",
           "rmsnorm-centers"),
        _f(f"BatchNorm computes one mean per token, each over the {d} features of that token.",
           "that describes LayerNorm; BatchNorm pools each feature over the batch (and here the positions)",
           "batchnorm-per-token"),
    ]
    solution = [
        Step("Which axis is normalized",
             f"LayerNorm: for each of the $B \\cdot n = {tokens}$ tokens, the mean and variance of its $d = {d}$ "
             f"features. BatchNorm (as stated): for each of the {d} features, the mean and variance over "
             f"$B \\cdot n = {tokens}$ values."),
        Step("Consequences for LayerNorm",
             "No dependence on the batch size or on other sequences; identical at training and inference; no running "
             "statistics; padding in other positions does not touch a real token's output."),
        Step("Consequences for BatchNorm",
             "Statistics mix sequences and positions, so padding and variable lengths distort them; small batches "
             "give noisy estimates; running averages are needed for inference, so the two modes differ."),
        Step("RMSNorm",
             "$\\operatorname{RMSNorm}(x) = g \\odot x / \\sqrt{\\frac{1}{d} \\sum_i x_i^2 + \\epsilon}$: no mean "
             "subtraction and no bias, only the gain $g$."),
        Step("Key facts",
             "LayerNorm works per token over the features, ignores the rest of the batch and behaves the same in "
             "training and inference. BatchNorm works per feature over the batch, keeps running statistics and "
             "struggles with padding and small batches. RMSNorm is LayerNorm without the centring and the bias."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Ask over which axis each layer averages.",
               "LayerNorm: $\\mu_t = \\frac{1}{d} \\sum_i x_{ti}$ per token $t$; BatchNorm: a mean per feature $i$",
               f"Here there are {tokens} tokens and {d} features."],
    )


# --- 5. BERT vs GPT -----------------------------------------------------------

@template("concepts.bert_gpt", topic="concepts", kind="MSQ", marks=2, difficulty=2,
          title="BERT and GPT pre-training", light=True)
def bert_gpt(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    N = s.choice((1000, 2000, 4000, 6000, 8000, 10000, 20000))
    sel, mask, rand = N * 15 // 100, N * 12 // 100, N * 15 // 1000
    framing = s.integer(0, 2)
    lead = [
        f"BERT and GPT are both pre-trained on unlabelled text. Suppose a pre-training batch contains $N = {N}$ "
        "input tokens.",
        f"An interviewer asks you to contrast the pre-training of BERT (original version) with that of GPT, using "
        f"a batch of $N = {N}$ input tokens as the example.",
        f"A team pre-trains both a BERT-style and a GPT-style model on the same corpus; consider one batch of "
        f"$N = {N}$ input tokens.",
    ][framing]
    prompt = f"{lead} Counts below are expected values. {MSQ_ASK}"
    statements = [
        _t("BERT is encoder-only: every token attends to the tokens on both sides, with no causal mask.",
           "its masked-LM objective lets it use context from the left and the right"),
        _t(f"BERT's masked-LM objective selects about {sel} of the {N} tokens (15%) for prediction; about {mask} of "
           f"them become [MASK], about {rand} a random token, and about {rand} are left unchanged.",
           f"15% of {N} is {sel}, and the 80/10/10 split of those gives {mask}, {rand} and {rand}"),
        _t("GPT is decoder-only and trained as a causal language model: from tokens $1, \\ldots, t$ it predicts "
           "token $t + 1$.",
           "its objective is next-token prediction over the text read left to right"),
        _t("GPT masks its self-attention with a lower-triangular (causal) mask, so position $i$ attends only to "
           "positions $j \\le i$.",
           "without the mask a position could read the very token it is asked to predict"),
        _t("The original BERT was also pre-trained on next-sentence prediction: deciding whether sentence B "
           "follows sentence A.",
           "NSP was the second objective of the original BERT (later models such as RoBERTa dropped it)"),
        _t("BERT leaves some selected tokens unchanged or random so that the model cannot rely on [MASK], a token "
           "that never appears during fine-tuning.",
           "the 80/10/10 split reduces the mismatch between pre-training inputs and fine-tuning inputs"),
        _t(f"BERT's masked-LM loss is computed only at the (about {sel}) selected positions, while GPT's loss is "
           "computed at every position.",
           "BERT predicts only the selected tokens; GPT predicts the next token at each position"),
        _f(f"BERT replaces all of the about {sel} selected tokens with [MASK].",
           f"only 80% of the selected tokens (about {mask}) become [MASK]; 10% become random tokens and 10% stay",
           "bert-all-mask"),
        _f(f"Of the selected tokens, BERT turns about 10% into [MASK], 80% into random tokens and leaves 10% "
           "unchanged.",
           "the split is the other way round: 80% [MASK], 10% random, 10% unchanged",
           "bert-ratio-swapped"),
        _f("GPT is encoder-only and reads the whole sequence bidirectionally while predicting each token.",
           "GPT is decoder-only with a causal mask; seeing the future would give the next token away",
           "gpt-bidirectional"),
        _f("BERT is trained to predict the next token from left to right, like GPT.",
           "BERT predicts masked tokens from context on both sides; next-token prediction is GPT's objective",
           "bert-causal"),
        _f("BERT applies a causal mask in its self-attention so that masked tokens cannot be seen.",
           "BERT attends bidirectionally; the masked tokens are hidden by replacing them in the input, not by a mask",
           "bert-causal-mask"),
        _f("During training GPT needs no causal mask, because teacher forcing already supplies the correct previous "
           "tokens.",
           "teacher forcing feeds the true tokens in parallel, which is exactly why the causal mask must hide the future",
           "teacher-forcing-no-mask"),
        _f("Every GPT block contains a cross-attention layer that attends to an encoder's output.",
           "GPT has no encoder; its blocks hold only masked self-attention and a feed-forward network",
           "decoder-only-cross-attention"),
    ]
    solution = [
        Step("BERT",
             "Encoder-only, bidirectional self-attention (no causal mask). Masked LM: 15% of tokens are selected; of "
             "these 80% become [MASK], 10% a random token, 10% stay unchanged, and the loss is taken only at the "
             "selected positions. The original model added next-sentence prediction."),
        Step("The numbers here",
             f"$0.15 \\times {N} = {sel}$ selected; $0.8 \\times {sel} = {mask}$ [MASK], $0.1 \\times {sel} = {rand}$ "
             f"random, $0.1 \\times {sel} = {rand}$ unchanged."),
        Step("GPT",
             "Decoder-only (no cross-attention), causal LM: position $t$ predicts token $t+1$, with a lower-triangular "
             "mask so no position sees the future. The loss is taken at every position."),
        Step("Key facts",
             "BERT: encoder-only, bidirectional, MLM 15% with 80/10/10, NSP in the original; "
             "GPT: decoder-only, causal mask, next-token prediction at every position."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["One model fills in blanks using both sides; the other continues text left to right.",
               "MLM: 15% selected, then 80% [MASK] / 10% random / 10% unchanged",
               f"$0.15 \\times {N} = {sel}$"],
    )


# --- 6. architectures ---------------------------------------------------------

@template("concepts.architectures", topic="concepts", kind="MCQ", marks=1, difficulty=1,
          title="Encoder-only, decoder-only, encoder–decoder", light=True)
def architectures(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    m = s.choice((20, 32, 40, 50, 64))               # source length
    t = s.choice([x for x in (12, 16, 24, 30, 48) if x != m])   # target length
    task = s.integer(0, 2)
    lead = [
        "Transformer models come in three layouts: encoder-only, decoder-only and encoder–decoder.",
        "A team must pick a Transformer layout (encoder-only, decoder-only or encoder–decoder) for several "
        "products: a sentiment classifier, a chat assistant and a translator.",
        "An encoder–decoder Transformer, a decoder-only Transformer and an encoder-only Transformer are compared.",
    ][task]
    prompt = f"{lead} Where a statement mentions lengths, take a source of {m} tokens and a target of {t} tokens. {MCQ_ASK}"
    statements = [
        _t("Of the three layouts, only the encoder–decoder has cross-attention: in the decoder, the queries come from "
           "the decoder and the keys and values from the encoder's output.",
           "cross-attention is how the decoder reads the encoded source; the other layouts have no second stack to read"),
        _t("Decoder-only models such as GPT apply a causal mask in every self-attention layer.",
           "they generate left to right, so no position may see later positions"),
        _t("Encoder-only models such as BERT use bidirectional self-attention and suit classification and tagging "
           "tasks such as sentiment analysis or named-entity recognition.",
           "every token sees the whole input, which is what understanding tasks need"),
        _t("The original Transformer and T5 are encoder–decoder models, a natural fit for sequence-to-sequence "
           "tasks such as translation and summarization.",
           "the encoder reads the source and the decoder generates the target while attending to it"),
        _t("In an encoder–decoder model, the decoder's self-attention is causal while the encoder's is not.",
           "the encoder sees the whole source at once; the decoder generates the target token by token"),
        _t(f"In one cross-attention head, the weight matrix has shape ${t} \\times {m}$: one row per target "
           "position and one column per source position.",
           f"queries come from the {t} decoder positions and keys from the {m} encoder positions"),
        _f("In cross-attention, the queries come from the encoder's output and the keys and values from the decoder.",
           "it is the other way round: the decoder asks (queries), the encoder's output answers (keys and values)",
           "cross-attention-swapped"),
        _f("Decoder-only models such as GPT contain cross-attention layers that attend to an encoder's output.",
           "decoder-only models have no encoder; they use only masked self-attention",
           "decoder-only-cross-attention"),
        _f("Encoder-only models such as BERT use a causal mask so that they can be fine-tuned for classification.",
           "BERT is bidirectional; a causal mask would hide the right-hand context that classification benefits from",
           "encoder-causal"),
        _f("The encoder of an encoder–decoder model applies a causal mask to its self-attention.",
           "the whole source is known in advance, so the encoder attends in both directions",
           "enc-dec-encoder-causal"),
        _f("T5 is a decoder-only model of the same layout as GPT.",
           "T5 is an encoder–decoder model that casts every task as text-to-text",
           "t5-decoder-only"),
        _f("GPT is an encoder–decoder model: its encoder reads the prompt and its decoder writes the continuation.",
           "GPT is decoder-only: the prompt and the continuation go through the same causally masked stack",
           "gpt-enc-dec"),
        _f("Cross-attention requires the source and the target to have the same number of tokens.",
           "the weights form a (target × source) matrix, so the two lengths can differ",
           "cross-attention-same-length"),
        _f(f"In one cross-attention head, the weight matrix has shape ${m} \\times {t}$: one row per source position "
           "and one column per target position.",
           "rows belong to queries, which come from the decoder (target); columns to keys, from the encoder (source)",
           "cross-attention-shape"),
        _f("Encoder-only models such as BERT are the usual choice for open-ended text generation.",
           "without a causal objective BERT has no natural way to generate left to right; decoder-only models do that",
           "bert-generates"),
    ]
    solution = [
        Step("Encoder-only (BERT)",
             "Bidirectional self-attention, no causal mask, no cross-attention. Used for classification, tagging, "
             "retrieval embeddings."),
        Step("Decoder-only (GPT)",
             "Causally masked self-attention only, no cross-attention. Used for generation: the prompt and the "
             "continuation share one stack."),
        Step("Encoder–decoder (original Transformer, T5)",
             "The encoder is bidirectional; each decoder block has causal self-attention and cross-attention whose "
             "queries come from the decoder and whose keys and values come from the encoder's output. Used for "
             "translation and summarization."),
        Step("Shapes",
             f"With a source of {m} tokens and a target of {t}, a cross-attention head's weights are "
             f"${t} \\times {m}$ (queries × keys)."),
        Step("Key facts",
             "Cross-attention: only in the decoder of an encoder–decoder model; "
             "causal masks: decoder-only models and the decoder of encoder–decoder models; "
             "BERT: classification; GPT: generation; T5 / original Transformer: sequence to sequence."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Ask which stack exists in each layout and what each stack is allowed to see.",
               "cross-attention: $Q$ from the decoder, $K, V$ from the encoder",
               f"Queries: {t} target positions; keys: {m} source positions."],
    )


# --- 7. why divide by sqrt(d_k) -----------------------------------------------

def _sqrt_text(x: int) -> str:
    r = round(x ** 0.5)
    return str(r) if r * r == x else f"{x ** 0.5:.2f}"


@template("concepts.why_sqrt_dk", topic="concepts", kind="MCQ", marks=1, difficulty=2,
          title="Why the scores are divided by √d_k", light=True)
def why_sqrt_dk(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d_k = s.choice((16, 32, 64, 128, 256))
    root = _sqrt_text(d_k)
    approx = "=" if "." not in root else "\\approx"
    framing = s.integer(0, 2)
    lead = [
        f"Scaled dot-product attention computes $\\operatorname{{softmax}}(QK^\\top/\\sqrt{{d_k}})\\,V$ with "
        f"$d_k = {d_k}$.",
        f"An engineer proposes removing the factor $1/\\sqrt{{d_k}}$ from the attention scores of a model with "
        f"head width $d_k = {d_k}$, arguing that it is a cosmetic constant.",
        f"In an interview you are asked to justify the division by $\\sqrt{{d_k}}$ in "
        f"$\\operatorname{{softmax}}(QK^\\top/\\sqrt{{d_k}})$, for heads of width $d_k = {d_k}$.",
    ][framing]
    prompt = (f"{lead} Assume the components of a query $q$ and a key $k$ are independent random variables with "
              f"mean 0 and variance 1. {MCQ_ASK}")
    statements = [
        _t(f"Without the scaling, $q \\cdot k$ has mean 0 and variance $d_k = {d_k}$, so its typical magnitude is "
           f"about $\\sqrt{{d_k}} {approx} {root}$.",
           f"q·k sums {d_k} independent products, each with mean 0 and variance 1"),
        _t(f"Dividing by $\\sqrt{{d_k}} {approx} {root}$ brings the variance of each score back to 1, whatever "
           "$d_k$ is.",
           "dividing a variable by c divides its variance by c², and c² = d_k"),
        _t("Without the scaling, large scores push the softmax into saturated regions where one weight is close to "
           "1 and the gradients are tiny.",
           "a nearly one-hot softmax has a Jacobian close to zero, which slows learning"),
        _t(f"If $d_k$ grew from {d_k} to {4 * d_k}, the standard deviation of the unscaled scores would double.",
           "the standard deviation is √d_k, and √4 = 2"),
        _f("The scaling exists mainly to prevent floating-point overflow in the exponentials; it has nothing to do "
           "with gradients.",
           "the stated reason is softmax saturation and vanishing gradients; overflow is handled by subtracting the "
           "row maximum",
           "sqrt-dk-overflow"),
        _f("$\\sqrt{d_k}$ is a learned temperature that the model adjusts during training.",
           "it is a fixed constant set by the head width, not a parameter",
           "sqrt-dk-learned"),
        _f(f"Dividing the scores by $d_k = {d_k}$ rather than by its square root would give them unit variance.",
           f"dividing by d_k leaves a variance of d_k/d_k² = 1/{d_k}; only √d_k restores 1",
           "divide-by-dk"),
        _f(f"Without the scaling, $q \\cdot k$ has variance $\\sqrt{{d_k}} {approx} {root}$.",
           f"the variances of the {d_k} terms add up to d_k; √d_k is the standard deviation",
           "variance-is-sqrt"),
        _f(f"Without the scaling, $q \\cdot k$ has mean $d_k = {d_k}$, so the scores drift upwards as $d_k$ grows.",
           "each product q_i k_i has mean E[q_i]E[k_i] = 0, so the sum has mean 0; it is the spread that grows",
           "dot-mean-nonzero"),
        _f("The scaling changes which key receives the largest weight, which is why it improves accuracy.",
           "dividing all scores by the same positive constant keeps their order, so the argmax is unchanged",
           "scaling-changes-argmax"),
        _f("The scaling is what makes each row of attention weights sum to 1.",
           "the softmax makes each row sum to 1 whatever the scaling",
           "scaling-normalizes"),
    ]
    solution = [
        Step("Variance of the dot product",
             f"$q \\cdot k$ is the sum of the $d_k$ products $q_i k_i$. Each term has mean $E[q_i]E[k_i] = 0$ and variance "
             f"$E[q_i^2]E[k_i^2] = 1$; the {d_k} terms are independent, so $\\operatorname{{Var}}(q \\cdot k) = d_k = {d_k}$ "
             f"and the standard deviation is $\\sqrt{{d_k}} {approx} {root}$."),
        Step("Why that hurts",
             "Scores with a large spread make the softmax nearly one-hot: the largest score takes almost all the "
             "weight and the gradients through the softmax become tiny, so learning stalls."),
        Step("The fix",
             "$\\operatorname{Var}(q \\cdot k / \\sqrt{d_k}) = d_k / d_k = 1$ for every head width. The factor is a "
             "fixed constant, it keeps the order of the scores, and it is $\\sqrt{d_k}$, not $d_k$."),
        Step("Key facts",
             "$E[q \\cdot k] = 0$, $\\operatorname{Var}(q \\cdot k) = d_k$; "
             "unscaled large scores saturate the softmax: vanishing gradients; "
             "dividing by $\\sqrt{d_k}$ restores unit variance; not learned, not about overflow."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Variances of independent terms add.",
               "$\\operatorname{Var}(q \\cdot k) = d_k$, so $\\operatorname{Var}(q \\cdot k/\\sqrt{d_k}) = 1$",
               f"With $d_k = {d_k}$ the unscaled standard deviation is about {root}."],
    )


# --- 8. MQA and GQA -----------------------------------------------------------

@template("concepts.mqa_gqa", topic="concepts", kind="MSQ", marks=2, difficulty=3,
          title="Multi-query and grouped-query attention", light=True)
def mqa_gqa(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    h = s.choice((16, 32, 48, 64, 96))
    h_kv = s.choice([g for g in (2, 4, 8) if h % g == 0 and g < h])
    g = h // h_kv
    d_head = s.choice((64, 128))
    d_model = h * d_head
    framing = s.integer(0, 1)
    lead = [
        f"A decoder-only model with $d_{{model}} = {d_model}$ has $h = {h}$ query heads of width $d_{{head}} = {d_head}$. "
        f"Its multi-head attention (MHA) is replaced by grouped-query attention (GQA) with $h_{{kv}} = {h_kv}$ "
        "key/value heads; multi-query attention (MQA) would use $h_{kv} = 1$.",
        f"To speed up generation, a team compares three attention variants for a model with $h = {h}$ query heads of "
        f"width $d_{{head}} = {d_head}$ ($d_{{model}} = {d_model}$): multi-head (MHA), grouped-query (GQA) with "
        f"$h_{{kv}} = {h_kv}$ key/value heads, and multi-query (MQA).",
    ][framing]
    prompt = f"{lead} Unless a statement says otherwise, compare models that differ only in the attention variant. {MSQ_ASK}"
    statements = [
        _t(f"With GQA the KV cache is {g} times smaller than with MHA.",
           f"the cache stores keys and values for h_kv = {h_kv} heads instead of h = {h}: a factor h/h_kv = {g}"),
        _t("In MQA, all query heads share a single key head and a single value head.",
           "that is the definition of multi-query attention, the case h_kv = 1"),
        _t("GQA interpolates between MHA ($h_{kv} = h$) and MQA ($h_{kv} = 1$).",
           "the two endpoints of the number of key/value heads are exactly MHA and MQA"),
        _t(f"GQA keeps all {h} query heads; only $W_K$ and $W_V$ shrink, from ${d_model} \\times {d_model}$ to "
           f"${d_model} \\times {h_kv * d_head}$ each.",
           f"each projection now produces h_kv·d_head = {h_kv} × {d_head} = {h_kv * d_head} features; W_Q is unchanged"),
        _t("The saving matters most in autoregressive decoding, where each new token must read the whole KV cache from "
           "memory: fewer key/value heads mean fewer bytes to read per token.",
           "decoding is limited by memory bandwidth, and the bytes read scale with h_kv"),
        _t("LLaMA 2 70B uses GQA, with 8 key/value heads shared by its 64 query heads.",
           "its groups of 8 query heads each share one key/value head"),
        _t(f"Under GQA here, each key/value head is shared by a group of {g} query heads.",
           f"{h} query heads over {h_kv} key/value heads gives groups of {h} / {h_kv} = {g}"),
        _f(f"GQA reduces the number of query heads to $h_{{kv}} = {h_kv}$.",
           f"the query heads stay at {h}; only the key and value heads are reduced",
           "gqa-fewer-query-heads"),
        _f("The KV cache is the same size under MHA, GQA and MQA; only the attention FLOPs change.",
           "the cache holds one key and one value vector per key/value head, so it shrinks with h_kv",
           "kv-cache-unchanged"),
        _f("MQA uses a single query head that is shared by many key and value heads.",
           "MQA keeps all query heads and shares a single key/value head among them",
           "mqa-single-query"),
        _f(f"GQA cuts the FLOPs of computing the scores $QK^\\top$ by the factor {g}.",
           f"all {h} query heads still score against keys of the same length; the shared keys are reused, not skipped",
           "gqa-fewer-score-flops"),
        _f(f"Under GQA, $W_Q$ also shrinks by the factor {g}, like $W_K$ and $W_V$.",
           "the query projection keeps h·d_head outputs because all query heads remain",
           "gqa-shrinks-wq"),
        _f("GQA cannot be used during training: it exists only as an inference-time approximation of an MHA model.",
           "GQA is an architecture; models such as LLaMA 2 70B are trained with it (MHA checkpoints can also be "
           "converted and further trained)",
           "gqa-inference-only"),
        _f("MHA is the special case $h_{kv} = 1$ of GQA, and MQA the case $h_{kv} = h$.",
           "the endpoints are the other way round: h_kv = h is MHA and h_kv = 1 is MQA",
           "gqa-endpoints-swapped"),
        _f("LLaMA 2 70B uses MQA, with one key/value head shared by all query heads.",
           "LLaMA 2 70B uses GQA with 8 key/value heads",
           "llama2-mqa"),
    ]
    solution = [
        Step("What is shared",
             "MHA: every query head has its own key and value head ($h_{kv} = h$). MQA: one key head and one value "
             "head for all query heads ($h_{kv} = 1$). GQA: the query heads form $h_{kv}$ groups and each group shares "
             "one key/value head."),
        Step("Here",
             f"$h = {h}$, $h_{{kv}} = {h_kv}$: groups of $h / h_{{kv}} = {g}$ query heads. $W_K$ and $W_V$ shrink to "
             f"${d_model} \\times {h_kv * d_head}$; $W_Q$ stays ${d_model} \\times {d_model}$."),
        Step("What it saves",
             f"The KV cache stores $2 \\cdot h_{{kv}} \\cdot d_{{head}}$ numbers per token and layer instead of "
             f"$2 \\cdot h \\cdot d_{{head}}$: {g} times less. Decoding is memory-bound, so reading {g} times fewer "
             "bytes per step speeds it up. The score FLOPs do not change."),
        Step("Key facts",
             "Only the key/value heads are reduced, never the query heads. The KV cache and the bandwidth to read it "
             "shrink by $h / h_{kv}$. GQA spans MHA ($h_{kv} = h$) to MQA ($h_{kv} = 1$). LLaMA 2 70B has 64 query "
             "heads and 8 KV heads."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Only keys and values are shared; every query head stays.",
               "KV cache $= 2 \\cdot L \\cdot n \\cdot h_{kv} \\cdot d_{head}$ values ($L$ layers, $n$ tokens)",
               f"$h / h_{{kv}} = {h} / {h_kv} = {g}$"],
    )


# --- 9. FlashAttention --------------------------------------------------------

@template("concepts.flash_attention", topic="concepts", kind="MSQ", marks=2, difficulty=3,
          title="What FlashAttention does", light=True)
def flash_attention(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    n = s.choice((4096, 8192, 16384, 32768))
    d_head = s.choice((64, 128))
    size = _bytes(2 * n * n)
    framing = s.integer(0, 1)
    lead = [
        f"FlashAttention is used to train a model on sequences of $n = {n}$ tokens with heads of width "
        f"$d_{{head}} = {d_head}$, in 16-bit precision, on a GPU.",
        f"A colleague replaces standard attention with FlashAttention in a model whose heads have width "
        f"$d_{{head}} = {d_head}$, for sequences of $n = {n}$ tokens in 16-bit precision.",
    ][framing]
    prompt = (f"{lead} 'Standard attention' writes the score and weight matrices to GPU high-bandwidth memory (HBM). "
              f"Compare FlashAttention with it. {MSQ_ASK}")
    statements = [
        _t("FlashAttention computes exact attention: its output equals standard attention's up to floating-point "
           "rounding.",
           "it reorders the same computation; nothing is dropped or approximated"),
        _t("It splits $Q$, $K$ and $V$ into blocks that fit in on-chip SRAM and combines the blocks with an online "
           "softmax that keeps a running maximum and sum per row.",
           "the running statistics let it rescale partial results, so no full row of scores is needed at once"),
        _t(f"It never writes the ${n} \\times {n}$ score matrix of a head (about {size} in 16-bit) to HBM; its extra "
           "memory grows only linearly in $n$.",
           "only the output and per-row softmax statistics (O(n) values) are stored"),
        _t("In the backward pass it recomputes the attention weights block by block from $Q$, $K$, $V$ and the saved "
           "softmax statistics instead of reading them from memory.",
           "recomputing is cheaper than storing and re-reading an n × n matrix in HBM"),
        _t(f"Its speed-up comes from fewer reads and writes to HBM, not from fewer FLOPs: it still performs "
           f"${_O('n^2 d')}$ arithmetic.",
           "it is IO-aware: the arithmetic is unchanged (slightly more with recomputation), the memory traffic drops"),
        _f("FlashAttention approximates attention, like low-rank or sparse methods, trading a little accuracy for "
           "speed.",
           "it is exact; the speed comes from memory access patterns, not from approximation",
           "flash-is-approximate"),
        _f(f"It reduces the arithmetic of attention to ${N_LOG_N}$, so doubling $n$ from {n} to {2 * n} "
           "little more than doubles its FLOPs.",
           "every query still meets every key: the FLOPs stay O(n²·d) and double n means four times the FLOPs",
           "flash-subquadratic"),
        _f("It stores the full attention-weight matrix in HBM so that the backward pass can reuse it.",
           "it deliberately does not store it; the backward pass recomputes the weights from saved statistics",
           "flash-stores-matrix"),
        _f("It skips query–key pairs whose weights are small, computing attention only on the largest entries.",
           "no pair is skipped: every query is scored against every key, block by block",
           "flash-sparse"),
        _f("It projects the keys and values to a lower dimension $r$, much smaller than $n$, along the sequence axis.",
           "that is a low-rank method such as Linformer; FlashAttention uses the full keys and values",
           "flash-low-rank"),
        _f(f"Its memory is still ${_O('n^2')}$, because the softmax of a row needs all the scores of that row at once.",
           "the online softmax merges blocks with a running maximum and sum, so a full row is never held",
           "flash-needs-full-row"),
        _f("Because it recomputes the weights in the backward pass, it moves more data through HBM and is slower than "
           "standard attention in wall-clock time.",
           "recomputation happens in SRAM from small blocks; HBM traffic falls and the kernel runs faster",
           "recompute-slower"),
    ]
    solution = [
        Step("The bottleneck",
             f"Standard attention writes the $n \\times n$ scores and weights of each head to HBM and reads them back; "
             f"for $n = {n}$ that is about {size} per head in 16-bit. Attention is limited by this memory traffic, "
             "not by arithmetic."),
        Step("Tiling with an online softmax",
             "FlashAttention loads blocks of $Q$, $K$, $V$ into on-chip SRAM, computes a block of scores, and updates "
             "the output with a running row maximum and sum, rescaling earlier partial results. The full matrix is "
             "never materialized: extra memory is $\\mathcal{O}(n)$."),
        Step("Backward pass",
             "Only the output and the per-row softmax statistics are kept; the weights are recomputed block by block. "
             "That adds FLOPs but removes the $n^2$ reads and writes, so it is faster overall."),
        Step("Key facts",
             "Exact (the same result up to rounding), neither sparse nor low-rank. "
             f"The FLOPs stay ${_O('n^2 d')}$; the gain is in IO (HBM traffic). "
             "Extra memory is linear in $n$, with recomputation in the backward pass."),
    ]
    return Draft(
        prompt=prompt, statements=statements, solution=solution,
        hints=["Separate the amount of arithmetic from the amount of memory traffic.",
               "FLOPs $\\mathcal{O}(n^2 d)$, extra memory $\\mathcal{O}(n)$",
               f"The skipped matrix: ${n} \\times {n} \\times 2$ bytes $\\approx$ {size} per head."],
    )
