"""Conceptual MCQ/MSQ templates: complexity, path length, normalization, architectures, attention variants.

The two softmax concept templates live with the other softmax templates in `softmax.py`.

Each template draws its numbers and framing here and takes its pool of statements (true and
false, each with the reason) from `bank/concepts/<name>.toml` (`statement_pools`); the
shared option builder draws one true + three false (MCQ) or one to three true (MSQ).
The parameters stream varies the framing and the numbers inside the statements; every
statement is written so that it is true or false on its own, whatever else is drawn with it.
Neither option texts nor `why` strings end with a full stop: the answer key joins the options
with commas and the grader appends its own punctuation to the reason.
"""

from __future__ import annotations

from quizforge.bank.question import Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.statement_pools import statement_pool
from quizforge.bank.template import Draft, template

MSQ_ASK = "Which of the following statements is/are CORRECT?"
MCQ_ASK = "Which ONE of the following statements is CORRECT?"


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
    statements = statement_pool("complexity", h=h, n=n, twice_n=2 * n, d=d, twice_d=2 * d)
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
               "scores: $n^2 \\cdot d$; per-token matrices: $n \\cdot d^2$",
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
    statements = statement_pool("path_length", n=n, n_minus_1=n - 1, k=k, m=m, r=r)
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
    statements = statement_pool("pre_post_norm", P=P, Q=Q, twice_layers=2 * layers, layers=layers, post=post, pre=pre)
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
    statements = statement_pool("layernorm_batchnorm", d=d, tokens=tokens, B=B, n=n)
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

    def prompt_for(options) -> str:
        """The note on counts only where an option holds one (each such statement names the selected count)."""
        return prompt if any(str(sel) in o.md for o in options) else f"{lead} {MSQ_ASK}"
    statements = statement_pool("bert_gpt", sel=sel, N=N, mask=mask, rand=rand)
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
        prompt=prompt, prompt_for=prompt_for, statements=statements, solution=solution,
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
    statements = statement_pool("architectures", t=t, m=m)
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
          title="Why the scores are divided by √dₖ", light=True)
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
    statements = statement_pool("why_sqrt_dk", d_k=d_k, approx=approx, root=root, four_d_k=4 * d_k)
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
    statements = statement_pool("mqa_gqa", g=g, h_kv=h_kv, h=h, d_model=d_model, kv_width=h_kv * d_head, d_head=d_head)
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
    statements = statement_pool("flash_attention", n=n, size=size, twice_n=2 * n)
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
