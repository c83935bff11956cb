"""Interview mode content: free-answer questions in follow-up chains, with model answers.

An ML interviewer rarely asks one isolated question; they ask one, listen, and dig
deeper ("now add a causal mask", "what does that cost?"). A `Chain` is one such line
of questioning and its `Prompt`s are asked in order, each a follow-up of the one
before. The learner answers aloud, in their head or in notes, then compares with
`model_answer` and `key_points` and rates themselves; nothing here grades free text.

Prompt ids are stable ("<chain>.<step>", e.g. ``attention.mask``) so that review
schedules can refer to them. This module is plain data and imports only the standard
library, so the CLI can load it instantly.
"""

from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent

from quizforge.bank.template import TOPICS as _BANK_TOPICS   # light: no torch or sympy behind it
from quizforge.errors import InputError

__all__ = ["Prompt", "Chain", "CHAINS", "TOPICS", "chain", "prompt", "all_prompts"]

TOPICS: tuple[str, ...] = tuple(_BANK_TOPICS)   # chains are filed under the bank's topics


@dataclass(frozen=True)
class Prompt:
    """One interviewer question with what a strong answer contains."""

    id: str  # "<chain>.<step>", e.g. "attention.mask"; lowercase [a-z0-9_.]
    question: str  # what the interviewer asks (Markdown, Unicode math, no LaTeX)
    model_answer: str  # a complete, correct answer; may contain a ```python sketch
    key_points: tuple[str, ...]  # 3-5 short points to check an answer against
    pitfalls: tuple[str, ...] = ()  # common wrong answers interviewers hear


@dataclass(frozen=True)
class Chain:
    """A line of questioning: prompts asked in order, each following up the last."""

    id: str
    title: str
    topic: str  # one of TOPICS
    prompts: tuple[Prompt, ...]


def _text(s: str) -> str:
    return dedent(s).strip()


def _p(
    id: str, question: str, model_answer: str, key_points: tuple[str, ...], pitfalls: tuple[str, ...] = ()
) -> Prompt:
    return Prompt(id, _text(question), _text(model_answer), key_points, pitfalls)


# --- attention from scratch ----------------------------------------------------

_ATTENTION = Chain(
    id="attention",
    title="Attention from scratch",
    topic="attention",
    prompts=(
        _p(
            "attention.implement",
            "Implement scaled dot-product attention in PyTorch. What are the shapes of the inputs and the output?",
            '''
            Attention is softmax(QKᵀ/√d_k)·V. Q has shape (…, n_q, d_k), K has shape (…, n_k, d_k) and
            V has shape (…, n_k, d_v), where the leading dimensions are batch and heads. QKᵀ gives an
            (n_q, n_k) score matrix; each row is scaled by 1/√d_k and turned into a probability
            distribution over the keys by a softmax along the last axis; multiplying by V gives one
            weighted average of value vectors per query, shape (…, n_q, d_v). The sketch below names the
            function `attention`, and takes an optional boolean mask where True means "may attend"
            (the same convention as a boolean `attn_mask` in `torch.nn.functional.scaled_dot_product_attention`).

            ```python
            import math
            import torch

            def attention(q, k, v, mask=None):
                # q: (..., n_q, d_k)  k: (..., n_k, d_k)  v: (..., n_k, d_v)
                scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))  # (..., n_q, n_k)
                if mask is not None:  # bool, broadcastable to scores; True = may attend
                    scores = scores.masked_fill(~mask, float("-inf"))
                weights = torch.softmax(scores, dim=-1)  # each row sums to 1 over the keys
                return weights @ v  # (..., n_q, d_v)
            ```
            ''',
            (
                "Scores = QKᵀ, shape (n_q, n_k): one score per query–key pair",
                "Scale by 1/√d_k before the softmax",
                "Softmax over the key axis (the last one), so each query's weights sum to 1",
                "Output = weights · V, shape (n_q, d_v); batch and head dims just broadcast",
            ),
            (
                "Softmax over the query axis (dim=-2) instead of the keys",
                "Using k.T on a 4-D tensor, which reverses all dims, instead of transpose(-2, -1)",
                "Scaling by d_k, or forgetting the scale altogether",
            ),
        ),
        _p(
            "attention.mask",
            "Now make it causal for a decoder. Where exactly does the mask go, and why there?",
            '''
            Token i may only attend to positions j ≤ i, so the entries with j > i must get zero weight.
            The mask goes on the scores, before the softmax: build a lower-triangular boolean matrix
            `torch.ones(n, n, dtype=torch.bool).tril()` and fill the scores where it is False with −inf
            (or a very negative finite value such as `torch.finfo(scores.dtype).min`). Since exp(−∞) = 0,
            the softmax gives those positions exactly zero weight and renormalises over the allowed
            ones, so every row still sums to 1. Zeroing the weights after the softmax would leave rows
            that no longer sum to 1 (you would have to renormalise, which is the same thing done less
            cleanly), and setting masked scores to 0 does not mask anything, because exp(0) = 1. The
            diagonal is always allowed, so no row is fully masked; a fully masked row (for example a
            padding query) gives NaN with −inf, which is one reason implementations use a large finite
            negative. The mask is needed in training because all positions are processed in parallel:
            without it token i could read token i+1, which is exactly what it is trained to predict.
            ''',
            (
                "Mask j > i (keep the diagonal): lower-triangular mask",
                "Apply it to the scores before the softmax, with −inf or a large negative value",
                "Softmax then renormalises over allowed keys; rows still sum to 1",
                "Needed in parallel training, otherwise the target token leaks into the input",
            ),
            (
                "Multiplying the softmax output by the mask (rows no longer sum to 1)",
                "Filling masked scores with 0 instead of −inf",
                "Using −1e9 in fp16, which does not fit in the dtype",
            ),
        ),
        _p(
            "attention.complexity",
            "What is the time and memory complexity of that attention, for sequence length n and head dimension d?",
            '''
            Per head, QKᵀ multiplies an n×d matrix by a d×n one: n²·d multiply–adds. The weights·V
            product is another n²·d, and the softmax and masking are O(n²). So time is O(n²·d) per head,
            and with h heads of size d_model/h it is O(n²·d_model) per layer. Memory for the scores and
            weights is O(n²) per head (h·n² per layer, per sequence), on top of O(n·d) for Q, K, V and the
            output; in training the weights are kept for the backward pass, so this term multiplies by
            batch and layers. The rest of a layer, the Q/K/V/O projections (8·n·d_model² FLOPs) and a 4×
            FFN (16·n·d_model²), is O(n·d_model²). Attention's 4·n²·d_model FLOPs overtake those
            24·n·d_model² once n > 6·d_model, about 24k tokens for d_model = 4096, so at ordinary
            lengths the linear layers dominate compute. The n² memory bites much earlier: with n = 8192
            and 32 heads, fp16 scores are 8192²·32·2 bytes = 4 GiB per layer per sequence.
            ''',
            (
                "Time O(n²·d) per head from QKᵀ and weights·V",
                "Memory O(n²) per head for the score/weight matrix (× heads × batch)",
                "Projections and FFN are O(n·d_model²)",
                "Attention FLOPs dominate only when n ≳ 6·d_model; its n² memory matters sooner",
            ),
            (
                "Saying O(n²) time, dropping the d factor",
                "Calling attention O(n·d²), which is the projections' cost",
            ),
        ),
        _p(
            "attention.kv_cache",
            "At inference you generate one token at a time. How does a KV cache change the cost?",
            '''
            With a causal mask, the keys and values of earlier tokens never change when later tokens
            arrive, so each layer stores them in a cache. At step t only the new token's q, k and v are
            computed (O(d_model²) per layer for the projections); k and v are appended to the cache, and
            the single query attends over t cached keys, which costs O(t·d) per head. Without the cache
            you would rerun the whole prefix every step, O(t²·d) attention plus O(t·d_model²)
            projections, so generating n tokens goes from O(n³·d) to O(n²·d) attention work. The price is
            memory: per sequence the cache holds 2 (K and V) · n_layers · n_kv_heads · d_head · seq_len ·
            bytes per element. For Llama-2-7B (32 layers, 32 KV heads, d_head = 128, fp16) that is
            2·32·32·128·2 = 512 KiB per token, 2 GiB for a 4096-token sequence. Decoding is then
            memory-bandwidth-bound: every step reads all the weights and the whole cache to do only a few
            FLOPs per byte, whereas the prompt (prefill) is processed in parallel and is compute-bound.
            That is why batching, grouped-query attention and quantised caches matter for serving.
            ''',
            (
                "Past K and V never change under a causal mask, so cache them per layer",
                "Per new token: O(t·d) attention per head instead of recomputing O(t²·d)",
                "Cache size = 2 · n_layers · n_kv_heads · d_head · seq_len · bytes, per sequence",
                "Decoding becomes memory-bandwidth-bound; prefill stays compute-bound",
            ),
            (
                "Claiming the cache makes each step O(1): it is still linear in the context",
                "Caching the queries too (past queries are never reused)",
                "Forgetting the factor 2 for keys and values",
            ),
        ),
    ),
)

# --- the 1/sqrt(d_k) scale -----------------------------------------------------

_SCALING = Chain(
    id="scaling",
    title="The √d_k in attention",
    topic="softmax",
    prompts=(
        _p(
            "scaling.why",
            "Why do we divide QKᵀ by √d_k?",
            '''
            Suppose the components of q and k are independent with mean 0 and variance 1. Then
            q·k = Σ q_i·k_i is a sum of d_k terms, each with mean 0 and variance 1, so the dot product
            has variance d_k and standard deviation √d_k. With d_k = 64, typical scores are around ±8,
            and differences of that size push the softmax close to one-hot. Dividing by √d_k brings the
            scores back to unit variance whatever the head size, which keeps the softmax in a range
            where it still has useful gradients, in particular at initialisation.
            ''',
            (
                "Var(q·k) = d_k for independent, zero-mean, unit-variance components",
                "Standard deviation √d_k, so dividing by √d_k restores unit variance",
                "Keeps the softmax out of saturation regardless of head size",
            ),
            (
                "\"To normalise the vectors\": it is not a normalisation of q or k",
                "\"To prevent overflow\": the max-subtraction trick already handles that",
            ),
        ),
        _p(
            "scaling.without",
            "What actually goes wrong in training if you leave the scale out?",
            '''
            The scores grow like √d_k, so the softmax saturates: the largest score takes almost all of
            the probability mass. The softmax Jacobian is diag(p) − ppᵀ, and when p is nearly one-hot
            every entry of it is close to zero, so almost no gradient flows back through the scores
            into W_Q and W_K. Attention patterns then start out hard and arbitrary and change slowly,
            and training is slower or less stable, more so for wider heads. The network could in
            principle learn smaller query and key weights to compensate, but it starts in a bad place.
            The original Transformer paper gives this as the likely reason unscaled dot-product
            attention did worse than additive attention for large d_k.
            ''',
            (
                "Scores have std √d_k, so the softmax saturates towards one-hot",
                "Softmax Jacobian diag(p) − ppᵀ → 0 when p is one-hot",
                "Vanishing gradients into W_Q and W_K; slow or unstable training",
                "Worse the larger d_k is",
            ),
            (
                "Saying the output values explode (the weights still sum to 1, the output stays bounded)",
            ),
        ),
        _p(
            "scaling.why_not_dk",
            "Why √d_k and not d_k?",
            '''
            The goal is unit variance: Var(q·k / c) = d_k / c², which equals 1 for c = √d_k. Dividing
            by d_k would give variance 1/d_k, so the scores shrink towards zero as heads get wider and
            the softmax drifts towards uniform, averaging everything; the model would have to grow its
            query and key weights to become selective, and the effective temperature would depend on
            the head size. The √ comes from the fact that independent random terms add up in
            standard deviation like √d_k, not like d_k. One nuance: some parametrisations, such as
            μP, do use 1/d_k, arguing that after training q and k are correlated, so their dot product
            grows like d_k rather than √d_k.
            ''',
            (
                "Var(q·k/c) = d_k/c²: c = √d_k gives exactly 1",
                "Dividing by d_k makes scores shrink with width: softmax tends to uniform",
                "Sums of independent terms grow like √d_k in standard deviation",
            ),
            (
                "\"d_k is the number of terms, so divide by it like a mean\"",
            ),
        ),
        _p(
            "scaling.temperature",
            "How does this relate to softmax temperature, for example when sampling from an LLM?",
            '''
            Temperature divides the logits before the softmax: softmax(z/T). As T → 0 it approaches a
            one-hot argmax, and as T → ∞ it approaches uniform; it changes the entropy of the
            distribution but never the ranking. The 1/√d_k factor is a fixed temperature T = √d_k
            applied to the raw dot products. At sampling time the output logits are divided by T:
            T < 1 makes generation sharper and more deterministic, T > 1 more diverse, and T = 0 is
            usually implemented as greedy decoding. Some models control the attention temperature
            explicitly, for example by normalising q and k (QK-norm) and learning a scale, which stops
            the scores from growing during training.
            ''',
            (
                "softmax(z/T): T → 0 gives argmax, T → ∞ gives uniform",
                "Temperature changes entropy, not the ranking",
                "1/√d_k is a fixed temperature of √d_k on the scores",
                "Sampling: T < 1 sharper, T > 1 more diverse, T = 0 treated as greedy",
            ),
        ),
    ),
)

# --- softmax in practice -------------------------------------------------------

_SOFTMAX = Chain(
    id="softmax",
    title="Softmax, numerically",
    topic="softmax",
    prompts=(
        _p(
            "softmax.stable",
            "Implement softmax. What goes wrong with the textbook version?",
            '''
            exp overflows quickly: in fp32 beyond about 88.7 and in fp16 beyond about 11.1, giving
            inf/inf = NaN; and if all logits are very negative every exp underflows to 0 and you get 0/0.
            The fix uses the fact that softmax(z) = softmax(z − c) for any constant c, because the factor
            e^(−c) cancels between numerator and denominator. Subtracting the row maximum makes the
            largest exponent e^0 = 1, so nothing overflows and the denominator is at least 1. A row that
            is entirely −inf (everything masked) still gives NaN and has to be handled separately.

            ```python
            def softmax(z, dim=-1):
                z = z - z.amax(dim=dim, keepdim=True)  # shift: largest entry becomes 0
                e = z.exp()
                return e / e.sum(dim=dim, keepdim=True)
            ```
            ''',
            (
                "exp overflows (fp32 ≈ 88.7, fp16 ≈ 11.1) or everything underflows to 0/0",
                "softmax is shift-invariant: softmax(z) = softmax(z − c)",
                "Subtract the per-row max: largest term is 1, denominator ≥ 1",
                "Fully masked rows still need special handling",
            ),
            (
                "Subtracting the mean instead of the max (does not bound the largest exponent)",
                "Subtracting one global max over the whole tensor rather than per row",
            ),
        ),
        _p(
            "softmax.logsumexp",
            "Why does cross-entropy in PyTorch take logits rather than probabilities?",
            '''
            Because log(softmax(z)) computed in two steps is fragile: a tiny probability underflows to 0,
            its log is −inf, and the loss and gradient become inf or NaN. Written directly,
            log softmax(z)_i = z_i − logsumexp(z), with logsumexp(z) = m + log Σ_j exp(z_j − m) and
            m = max(z), which is finite and accurate for any logits. Fusing the softmax into the loss also
            gives a very simple gradient: for a one-hot target y, ∂L/∂z = p − y. That is why
            `nn.CrossEntropyLoss` expects raw logits, and why applying a softmax before it is a bug (it
            silently trains on a squashed softmax of a softmax).
            ''',
            (
                "log of a computed softmax can hit log(0) = −inf",
                "log_softmax(z)_i = z_i − logsumexp(z), computed with the max shift",
                "Gradient of softmax + cross-entropy w.r.t. logits is p − y",
                "Passing probabilities into CrossEntropyLoss double-applies softmax",
            ),
        ),
        _p(
            "softmax.jacobian",
            "What is the Jacobian of softmax, and how do you backpropagate through it cheaply?",
            '''
            With p = softmax(z), ∂p_i/∂z_j = p_i(δ_ij − p_j), i.e. J = diag(p) − ppᵀ. It is symmetric,
            positive semi-definite, and each row sums to zero because adding a constant to all logits
            changes nothing, so its rank is at most n − 1. You never build the n×n matrix: given the
            upstream gradient g = ∂L/∂p, the gradient with respect to the logits is
            ∂L/∂z = p ⊙ (g − (g·p)), which is O(n). When p is nearly one-hot, J is nearly zero, which is
            the saturation problem that the √d_k scale in attention avoids.
            ''',
            (
                "∂p_i/∂z_j = p_i(δ_ij − p_j); J = diag(p) − ppᵀ",
                "Rows sum to zero (shift invariance); symmetric, PSD",
                "Vector–Jacobian product: p ⊙ (g − g·p), O(n), no n×n matrix",
                "Near one-hot p makes J ≈ 0 (saturation)",
            ),
            (
                "Writing the Jacobian as diag(p(1 − p)) and forgetting the off-diagonal −p_i·p_j",
            ),
        ),
        _p(
            "softmax.online",
            "Can you compute a softmax in one pass, without knowing the maximum in advance?",
            '''
            Yes, with the online softmax trick: keep a running maximum m and a running sum s of
            exp(x − m). When a new element x arrives, set m' = max(m, x) and rescale the old sum,
            s' = s·exp(m − m') + exp(x − m'). At the end softmax(x_i) = exp(x_i − m)/s. The same update
            works on blocks, and it extends to the attention output: keep a running weighted sum of
            value vectors and rescale it by exp(m − m') whenever the maximum changes. This is what lets
            FlashAttention process keys and values block by block without ever holding a full row of
            scores.

            ```python
            import math

            def online_softmax_stats(xs):
                m, s = float("-inf"), 0.0
                for x in xs:
                    m_new = max(m, x)
                    s = s * math.exp(m - m_new) + math.exp(x - m_new)
                    m = m_new
                return m, s  # softmax(x_i) = exp(x_i - m) / s
            ```
            ''',
            (
                "Keep a running max m and a running sum s",
                "When the max grows, rescale: s·exp(m − m')",
                "Works per block and for the weighted sum of values too",
                "The core trick inside FlashAttention",
            ),
        ),
    ),
)

# --- multi-head attention ------------------------------------------------------

_MULTIHEAD = Chain(
    id="multihead",
    title="Multi-head attention",
    topic="dims",
    prompts=(
        _p(
            "multihead.why",
            "Why use several attention heads instead of one big one?",
            '''
            One head produces one softmax distribution per query, so its output is a single weighted
            average of values; it cannot attend sharply to two different places for two different
            reasons without blurring them together. With h heads of size d_head = d_model/h, each head
            has its own query, key and value projections into a smaller subspace and computes its own
            attention pattern (one might follow the previous token, another a syntactic relation,
            another copy a repeated name); the heads' outputs are concatenated and mixed by W_O. This
            costs about the same parameters and FLOPs as a single full-width head, because the
            projections are the same total size. In practice heads specialise, and many can be pruned
            after training with little loss, so the benefit is largely in having several patterns
            available during learning.
            ''',
            (
                "One head = one attention distribution per query, one weighted average",
                "h heads attend to different positions in different learned subspaces",
                "d_head = d_model/h keeps parameters and FLOPs about the same",
                "Outputs are concatenated and mixed by W_O",
            ),
            (
                "\"More heads means more parameters\" (not when d_head = d_model/h)",
            ),
        ),
        _p(
            "multihead.split",
            "How are the heads split in code? Walk me through the shapes.",
            '''
            Project first, then reshape; heads are just slices of the projection. From x of shape
            (B, n, d_model), compute q = x·W_Q of shape (B, n, d_model), view it as (B, n, h, d_head) and
            transpose to (B, h, n, d_head) so the head axis acts like a batch axis; the same for k and v.
            Attention then gives (B, h, n, d_head). Transpose back to (B, n, h, d_head), merge the last
            two axes into d_model (reshape, or `.contiguous().view`, since the transpose makes the tensor
            non-contiguous) and apply W_O. Often Q, K and V come from one fused (d_model, 3·d_model)
            matmul that is then split.

            ```python
            def mha_forward(x, w_q, w_k, w_v, w_o, h):
                B, n, d_model = x.shape
                d_head = d_model // h
                def split(t):  # (B, n, d_model) -> (B, h, n, d_head)
                    return t.view(B, n, h, d_head).transpose(1, 2)
                q, k, v = split(x @ w_q), split(x @ w_k), split(x @ w_v)
                out = attention(q, k, v)                          # (B, h, n, d_head)
                out = out.transpose(1, 2).reshape(B, n, d_model)  # concatenate heads
                return out @ w_o
            ```
            ''',
            (
                "(B, n, d_model) → view (B, n, h, d_head) → transpose (B, h, n, d_head)",
                "Heads behave like an extra batch dimension inside attention",
                "Transpose back and merge to (B, n, d_model), then W_O",
                "After a transpose, use reshape or contiguous() before view",
            ),
            (
                "Viewing directly as (B, h, n, d_head) without the transpose, which scrambles tokens and features",
                "Giving each head separate extra parameters on top of the d_model×d_model projections",
            ),
        ),
        _p(
            "multihead.params",
            "How many parameters does a multi-head attention layer have? Does it depend on the number of heads?",
            '''
            There are four d_model×d_model matrices, W_Q, W_K, W_V and W_O, so 4·d_model² weights, plus
            4·d_model if each projection has a bias: 4·d_model² + 4·d_model in total. It does not depend
            on h as long as h·d_head = d_model; more heads just cut the same matrices into thinner
            slices. For d_model = 768 (BERT-base, GPT-2 small) that is 4·589,824 + 3,072 = 2,362,368
            parameters. Many recent LLMs drop the biases, leaving 4·d_model². If h·d_head differs from
            d_model, the count is 4·d_model·(h·d_head) plus biases.
            ''',
            (
                "W_Q, W_K, W_V, W_O: each d_model × d_model",
                "4·d_model² + 4·d_model with biases",
                "Independent of h when h·d_head = d_model",
                "d_model = 768 → 2,362,368",
            ),
            (
                "Multiplying by h (counting 4·d_model² per head)",
                "Counting only Q, K, V and forgetting the output projection",
            ),
        ),
        _p(
            "multihead.gqa",
            "What are multi-query and grouped-query attention, and what do they save?",
            '''
            In multi-query attention (MQA) all h query heads share a single key head and a single value
            head. Grouped-query attention (GQA) sits in between: the query heads are split into g
            groups and each group shares one K/V head, so n_kv_heads = g, with g = h being ordinary MHA
            and g = 1 being MQA. The saving is in the KV cache, which shrinks by a factor h/g, and with
            it the memory traffic that bounds decoding speed; the K and V projections also shrink from
            2·d_model² to 2·d_model·g·d_head parameters. The attention FLOPs barely change, because
            every query head still computes its own scores. Llama-2-70B, for example, has 64 query heads
            and 8 KV heads, an 8× smaller cache. MQA can cost some quality and stability; GQA with a few
            groups is usually close to MHA, and an MHA checkpoint can be converted by mean-pooling its
            K/V heads within each group and briefly continuing training.
            ''',
            (
                "MQA: one shared K/V head; GQA: one K/V head per group of query heads",
                "KV cache and its memory traffic shrink by h/g",
                "Attention FLOPs roughly unchanged; K/V projection params shrink",
                "GQA keeps quality close to MHA; MQA may lose some",
            ),
            (
                "Saying GQA reduces the number of query heads",
                "Saying its main benefit is fewer training FLOPs",
            ),
        ),
    ),
)

# --- positional information ----------------------------------------------------

_POSITIONAL = Chain(
    id="positional",
    title="Positional information",
    topic="positional",
    prompts=(
        _p(
            "positional.why",
            "Why does a transformer need positional information at all?",
            '''
            Self-attention is permutation-equivariant: the score between two tokens depends only on
            their contents, so permuting the input tokens just permutes the outputs in the same way.
            The FFN and LayerNorm act on each token separately, so the whole stack is equivariant too.
            Without positions the model sees a bag of tokens: "dog bites man" and "man bites dog"
            give the same set of vectors, and a pooled output would be identical. So position has to
            be injected, either added to the inputs (absolute encodings) or built into the attention
            scores (relative schemes such as RoPE or ALiBi). A causal mask breaks the symmetry a
            little, since a token can in effect count how many tokens it sees, and decoders without
            any positional encoding do learn something, but explicit positions work better.
            ''',
            (
                "Attention is permutation-equivariant; FFN and norms are per-token",
                "Without positions the input is a bag of tokens",
                "Inject positions into the inputs (absolute) or the scores (relative)",
                "A causal mask gives only a weak, implicit position signal",
            ),
            (
                "\"Because attention is invariant to order\" (the outputs permute: equivariant, not invariant)",
            ),
        ),
        _p(
            "positional.sinusoidal",
            "Write down the sinusoidal positional encoding. Why those functions?",
            '''
            For position pos and i = 0 … d_model/2 − 1: PE(pos, 2i) = sin(pos / 10000^(2i/d_model)) and
            PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model)); the vector is added to the token embedding.
            Each sin/cos pair is a frequency, with wavelengths in a geometric progression from 2π up to
            10000·2π, so fast dimensions distinguish neighbours and slow ones encode coarse position,
            a bit like a continuous binary counter. The values are bounded in [−1, 1] and need no
            parameters. For a fixed offset k, PE(pos + k) is a fixed linear function of PE(pos) (a
            rotation of each pair), which makes relative offsets easy for the model to use, and
            PE(pos)·PE(pos + k) = Σ_i cos(ω_i·k) depends only on k. It can be computed for any position,
            though that does not mean the model generalises to positions longer than it trained on.
            ''',
            (
                "sin on even dims, cos on odd dims, frequency 1/10000^(2i/d_model)",
                "Geometric range of wavelengths, from 2π to 10000·2π",
                "PE(pos + k) is a linear function (rotation) of PE(pos)",
                "No parameters, bounded, defined for any position; added to embeddings",
            ),
            (
                "Saying it has trainable parameters",
                "Claiming it guarantees length extrapolation",
            ),
        ),
        _p(
            "positional.learned",
            "Learned absolute position embeddings or sinusoidal: which would you pick?",
            '''
            A learned table has max_len × d_model parameters (BERT has 512 positions, GPT-2 1024). It is
            flexible, but there is simply no embedding beyond max_len, and rarely seen late positions
            are trained less. Sinusoidal encodings have no parameters and are defined for any position,
            yet in practice models do not extrapolate well with them either. The original Transformer
            paper found the two performed almost identically. Both are absolute and added at the
            input, so relative relationships must be learned indirectly; this is why most modern LLMs
            use relative schemes applied inside attention, mainly RoPE, or ALiBi.
            ''',
            (
                "Learned: max_len × d_model parameters and a hard length limit",
                "Sinusoidal: parameter-free, any length, but no real extrapolation",
                "Similar quality in the original Transformer experiments",
                "Modern LLMs mostly use relative schemes (RoPE, ALiBi)",
            ),
        ),
        _p(
            "positional.rope",
            "How does RoPE work, and why does it give relative positions?",
            '''
            Rotary position embedding splits each query and key vector (per head) into d_head/2 pairs
            and rotates pair i at position m by the angle m·θ_i, with θ_i = base^(−2i/d_head) and
            base = 10000 in the original. It is applied to q and k after their projections, in every
            layer, and not to v or to the input embeddings. Because R_m is a rotation,
            (R_m·q)ᵀ(R_n·k) = qᵀ·R_mᵀ·R_n·k = qᵀ·R_(n−m)·k: the score depends on the contents and
            only on the offset n − m, not on the absolute positions. It adds no parameters and
            preserves vector norms. Implementations pair either adjacent dimensions (2i, 2i+1) or the
            two halves of the vector ("rotate_half"); the two are equivalent up to a fixed permutation
            of the projection weights. It is used in LLaMA, Mistral, GPT-NeoX and PaLM, among others.
            ''',
            (
                "Rotate each 2-D pair of q and k by angle position·θ_i",
                "θ_i = base^(−2i/d_head), a geometric range of frequencies like sinusoidal PE",
                "qᵀR_mᵀR_n k = qᵀR_(n−m) k: the score depends on the offset only",
                "Applied to q and k in every layer, not to v; no parameters",
            ),
            (
                "Saying RoPE is added to the token embeddings",
                "Rotating the values as well",
            ),
        ),
        _p(
            "positional.extrapolation",
            "What happens if you run a model on sequences longer than it was trained on, and how do people extend the context?",
            '''
            Quality usually degrades sharply past the training length: learned absolute embeddings have no
            entries there, and with sinusoidal encodings or RoPE the model meets position patterns it
            never saw (with RoPE, the slowest-rotating dimensions reach angles never seen in training),
            while attention spread over more tokens also changes its statistics. Fixes: ALiBi adds a
            linear penalty −m·(i − j) to the score of query i and key j ≤ i, with a fixed slope m per
            head, instead of any embedding, and extrapolates better in perplexity. For RoPE models,
            position interpolation divides positions by L_new/L_train so every angle stays in the
            trained range, followed by a short fine-tune;
            NTK-aware scaling and YaRN instead stretch the low frequencies more than the high ones, and
            many models simply raise the RoPE base (Llama 3 uses 500,000) and continue training on long
            documents. Even then the usable context is often shorter than the nominal one, so long-context
            claims should be checked with retrieval-style evaluations, not only perplexity.
            ''',
            (
                "Past the training length quality usually degrades sharply",
                "Cause: unseen positions or angles, and changed attention statistics",
                "ALiBi: linear distance penalty on scores, extrapolates better",
                "RoPE: position interpolation, NTK/YaRN, larger base, plus long-context fine-tuning",
            ),
            (
                "\"Sinusoidal or RoPE encodings extrapolate because they are defined for every position\"",
            ),
        ),
    ),
)

# --- normalisation -------------------------------------------------------------

_NORMALIZATION = Chain(
    id="normalization",
    title="Normalisation layers",
    topic="concepts",
    prompts=(
        _p(
            "normalization.layer_vs_batch",
            "Why do transformers use LayerNorm rather than BatchNorm?",
            '''
            BatchNorm normalises each feature with statistics taken over the batch (and positions), so
            one token's output depends on the other examples; those statistics are noisy with small
            batches and padded, variable-length sequences, and at inference BatchNorm switches to
            running averages, a train/test mismatch that is awkward for token-by-token decoding.
            LayerNorm normalises each token's vector over its own d_model features:
            y = (x − μ)/√(σ² + ε)·γ + β, with μ and σ² computed per token. It does not depend on the
            batch or sequence length and behaves identically in training and inference. It has 2·d_model
            parameters (γ and β), and empirically it simply works better for language models.
            ''',
            (
                "BatchNorm: statistics across the batch; LayerNorm: across features of one token",
                "BatchNorm is noisy with small batches and padding, and differs at inference",
                "LayerNorm is independent of batch and sequence length",
                "y = (x − μ)/√(σ² + ε)·γ + β; 2·d_model parameters",
            ),
            (
                "Saying LayerNorm normalises over the sequence dimension",
            ),
        ),
        _p(
            "normalization.pre_post",
            "Where does the norm go, before or after the sublayer? Why does it matter?",
            '''
            Post-norm, as in the original Transformer and BERT, computes x_(l+1) = LN(x_l + F(x_l)).
            Pre-norm, used from GPT-2 onwards by most LLMs, computes x_(l+1) = x_l + F(LN(x_l)) and adds
            one final LN after the last block. In pre-norm the residual stream is an unbroken identity
            path from the output back to the input, so gradients reach every layer directly and deep
            stacks train stably, often with little or no learning-rate warm-up. In post-norm every
            residual path passes through a LayerNorm; at initialisation the gradients near the output
            layers are large, so it needs a careful warm-up and deep post-norm models can diverge. The
            trade-off is that in pre-norm the residual stream keeps growing with depth, so later
            layers change it relatively little; post-norm, when it trains, can do slightly better,
            which motivated variants such as DeepNorm.
            ''',
            (
                "Post-norm: LN(x + F(x)); pre-norm: x + F(LN(x)) plus a final LN",
                "Pre-norm keeps an identity residual path: stable gradients in deep stacks",
                "Post-norm needs learning-rate warm-up and can diverge when deep",
                "Pre-norm's residual stream grows with depth; post-norm can end slightly better",
            ),
            (
                "Forgetting the final LayerNorm in pre-norm models",
            ),
        ),
        _p(
            "normalization.rmsnorm",
            "What is RMSNorm, and why do many LLMs use it instead of LayerNorm?",
            '''
            RMSNorm divides each token's vector by its root mean square and applies a learned gain:
            y = x / √(mean(x_i²) + ε) · g. Compared with LayerNorm it drops the mean subtraction and
            the bias β, keeping only the re-scaling; the argument is that re-scaling invariance is what
            matters and re-centring adds little. That means one reduction instead of two, fewer
            elementwise operations and d_model parameters instead of 2·d_model, a real speed-up in a
            memory-bound op, with quality on par with LayerNorm. LLaMA, Mistral and Gemma use it, and
            T5's layer norm is the same idea (no mean subtraction, no bias).

            ```python
            def rms_norm(x, weight, eps=1e-6):
                return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight
            ```
            ''',
            (
                "y = x / RMS(x) · g, with RMS(x) = √(mean(x²) + ε)",
                "No mean subtraction and no bias: d_model parameters",
                "Cheaper (one reduction), same quality in practice",
                "Used in LLaMA-family models; T5 uses the same form",
            ),
            (
                "Saying RMSNorm normalises to unit variance (it does not centre, so it is unit RMS, not variance)",
            ),
        ),
    ),
)

# --- the feed-forward block ----------------------------------------------------

_FFN = Chain(
    id="ffn",
    title="The feed-forward block",
    topic="params",
    prompts=(
        _p(
            "ffn.role",
            "What does the feed-forward block in a transformer layer do, and how big is it?",
            '''
            FFN(x) = W_2·σ(W_1·x + b_1) + b_2, applied to every token separately with the same weights
            ("position-wise"). Attention moves information between tokens, largely as weighted
            averages; the FFN then transforms each token's representation with a non-linearity and
            holds much of the model's capacity, and it has been interpreted as a key–value memory for
            learned associations. Usually d_ff = 4·d_model, giving 2·d_model·d_ff + d_ff + d_model
            = 8·d_model² + 5·d_model parameters per layer, against 4·d_model² + 4·d_model for attention,
            so the FFNs hold about two thirds of the non-embedding parameters (and of the matmul
            FLOPs at ordinary context lengths). For
            d_model = 768 that is 4,722,432 parameters per layer.
            ''',
            (
                "Two linear layers with a non-linearity, applied per token",
                "Attention mixes across tokens; the FFN transforms each token",
                "d_ff = 4·d_model → 8·d_model² + 5·d_model parameters",
                "About 2/3 of the non-embedding parameters",
            ),
            (
                "Saying the FFN mixes information between positions",
            ),
        ),
        _p(
            "ffn.swiglu",
            "Why did models move from ReLU to GELU and then SwiGLU? How does SwiGLU change the parameter count?",
            '''
            GELU(x) = x·Φ(x), with Φ the standard normal CDF, is a smooth version of ReLU that keeps a
            small gradient for negative inputs; BERT and GPT-2 use it. SwiGLU is a gated linear unit:
            FFN(x) = W_2·(Swish(W_1·x) ⊙ W_3·x), with Swish(z) = SiLU(z) = z·σ(z), so one projection gates
            the other elementwise; at the same compute it gives measurably lower loss. It has three
            matrices instead of two, 3·d_model·d_ff parameters, so to match a 4·d_model ReLU FFN
            (8·d_model²) the hidden size is cut to d_ff = (2/3)·4·d_model = (8/3)·d_model, since
            3·d_model·(8/3)·d_model = 8·d_model². LLaMA-7B uses d_model = 4096 and d_ff = 11008, which is
            8/3·4096 ≈ 10923 rounded up to a multiple of 256. Biases are usually dropped.

            ```python
            def swiglu_ffn(x, w1, w3, w2):
                return (F.silu(x @ w1) * (x @ w3)) @ w2
            ```
            ''',
            (
                "GELU = x·Φ(x): smooth ReLU",
                "SwiGLU = W_2(SiLU(W_1x) ⊙ W_3x): a gate times a linear branch",
                "Three matrices: 3·d_model·d_ff parameters",
                "d_ff = (2/3)·4·d_model keeps the parameter count at 8·d_model²",
            ),
            (
                "Keeping d_ff = 4·d_model and calling it the same size (it is 1.5× the parameters)",
            ),
        ),
        _p(
            "ffn.residual",
            "Why is there a residual connection around every sublayer?",
            '''
            With y = x + F(x) the Jacobian is I + ∂F/∂x, so the gradient always has an identity path
            back to the early layers and does not vanish with depth. Each sublayer only has to learn a
            correction to a running representation, the "residual stream" that all layers read from
            and write to, and near-identity behaviour at initialisation is easy: GPT-2, for example,
            scales the output projections at init by 1/√N, with N the number of residual layers
            (2·n_layers), so the stream's variance does not grow with depth. It requires every
            sublayer to output d_model features. Without residuals deep transformers train poorly, and
            stacks of pure attention are known to collapse towards rank-one representations with depth;
            skip connections are what counteract that.
            ''',
            (
                "∂y/∂x = I + ∂F/∂x: identity path for gradients",
                "Sublayers learn corrections to a shared residual stream",
                "Easy near-identity init (e.g. scaling output projections by 1/√N)",
                "Prevents rank collapse of pure attention stacks",
            ),
        ),
        _p(
            "ffn.moe",
            "How could you give the FFN many more parameters without paying more compute per token?",
            '''
            With a mixture of experts: replace the one FFN with E expert FFNs and a router, a small
            linear layer that scores the experts for each token and sends it to the top k (often
            k = 1 or 2), weighting their outputs by the router probabilities. Parameters grow about E
            times, but each token only runs k experts, so FLOPs per token grow about k times. Mixtral
            8x7B, for example, has 8 experts per layer with top-2 routing: about 47B parameters in total
            but about 13B active per token. The costs: all experts must still sit in memory, training
            needs an auxiliary load-balancing loss (and often a capacity limit per expert) to stop the
            router sending everything to a few experts, and distributing experts across devices adds
            all-to-all communication.
            ''',
            (
                "E expert FFNs; a learned router picks the top-k per token",
                "Parameters ≈ E×, compute per token ≈ k×",
                "Memory still holds every expert",
                "Needs load balancing; adds communication when experts are sharded",
            ),
            (
                "Saying MoE reduces memory (it reduces FLOPs per parameter, not memory)",
            ),
        ),
    ),
)

# --- architectures -------------------------------------------------------------

_ARCHITECTURES = Chain(
    id="architectures",
    title="Encoders, decoders and both",
    topic="concepts",
    prompts=(
        _p(
            "architectures.families",
            "Compare encoder-only, decoder-only and encoder–decoder transformers. When would you use each?",
            '''
            Encoder-only models (BERT, RoBERTa) use bidirectional self-attention, so every token sees
            the whole input; they produce contextual representations and suit classification, tagging
            and embeddings for retrieval, but are not natural text generators. Decoder-only models (GPT,
            LLaMA) use causal self-attention and are trained to predict the next token; they generate
            text and, with prompting or fine-tuning, handle most tasks, which together with a simple
            objective that uses every token is why they dominate large language models.
            Encoder–decoder models (the original Transformer, T5, BART, Whisper) encode the input
            bidirectionally and generate the output causally, with the decoder reading the encoder
            through cross-attention; they fit tasks with a distinct input and output, such as
            translation, summarisation or speech recognition.
            ''',
            (
                "Encoder-only: bidirectional, representations (classification, retrieval)",
                "Decoder-only: causal, next-token generation; today's LLMs",
                "Encoder–decoder: bidirectional encoder + causal decoder joined by cross-attention",
                "Encoder–decoder suits distinct input/output: translation, summarisation, ASR",
            ),
        ),
        _p(
            "architectures.objectives",
            "How is BERT pre-trained, compared with GPT?",
            '''
            BERT uses masked language modelling: 15% of token positions are chosen for prediction; of
            those, 80% are replaced by [MASK], 10% by a random token and 10% left unchanged, and the
            model predicts the original tokens at the chosen positions using context from both sides.
            The 80/10/10 split reduces the mismatch with fine-tuning, where [MASK] never appears, and
            because any token might be a target the model must keep a good representation of every
            input token. The original BERT also had next-sentence prediction, which RoBERTa later found
            unnecessary. GPT uses causal language modelling: maximise Σ_t log p(x_t | x_<t), with a loss
            at every position, so it gets a training signal from all tokens rather than 15% of them,
            and the objective matches left-to-right generation directly.
            ''',
            (
                "MLM: 15% of positions; 80% [MASK], 10% random, 10% unchanged",
                "80/10/10 reduces the pre-train/fine-tune mismatch from [MASK]",
                "Causal LM: predict x_t from x_<t, loss at every position",
                "MLM is bidirectional but does not generate text naturally",
            ),
            (
                "Saying 15% of tokens are replaced by [MASK] (only 80% of the chosen 15% are)",
                "Computing the MLM loss over all tokens",
            ),
        ),
        _p(
            "architectures.cross_attention",
            "How does cross-attention work in an encoder–decoder? Where do Q, K and V come from?",
            '''
            The queries come from the decoder's hidden states (after its masked self-attention
            sublayer); the keys and values are projections of the encoder's final output. Every
            decoder layer attends to that same encoder output but has its own W_K and W_V. The score
            matrix is n_dec × n_enc, and there is no causal mask, since the whole source is known, only a
            padding mask on the source positions. Each decoder block therefore runs masked
            self-attention, then cross-attention, then the FFN, each with its residual and norm. At
            inference the encoder runs once, and the cross-attention keys and values can be computed
            once and reused for every generated token. The same mechanism connects other modalities,
            for example text queries attending to image features.
            ''',
            (
                "Q from the decoder; K and V from the encoder output",
                "Scores are n_dec × n_enc; no causal mask, only source padding",
                "Each decoder layer has its own K/V projections of the same encoder output",
                "Cross-attention K/V are computed once per input at inference",
            ),
            (
                "Swapping them: queries from the encoder, keys and values from the decoder",
                "Applying the causal mask to cross-attention",
            ),
        ),
    ),
)

# --- training cost and efficient attention ------------------------------------

_EFFICIENCY = Chain(
    id="efficiency",
    title="Training cost and efficient attention",
    topic="flops",
    prompts=(
        _p(
            "efficiency.training_flops",
            "Roughly how many FLOPs does it take to train a transformer with N parameters on D tokens?",
            '''
            About 6·N·D. In the forward pass each parameter takes part in one multiply–add per token,
            2 FLOPs; the backward pass costs about twice the forward, because it computes gradients with
            respect to both the activations and the weights, another 4 FLOPs. The estimate ignores the
            attention score computation, which is small unless the context is long compared with
            d_model, and activation recomputation, which adds another forward pass (about 8·N·D of
            actual hardware work). For GPT-3, 6 · 175×10⁹ · 300×10⁹ ≈ 3.15×10²³ FLOPs. Dividing by the
            achieved throughput gives the time: a 7B model on 1T tokens needs 4.2×10²² FLOPs, which at
            about 40% utilisation of an H100's ~990 dense BF16 TFLOP/s is roughly 30,000 GPU-hours.
            ''',
            (
                "C ≈ 6·N·D",
                "Forward: 2 FLOPs per parameter per token (one multiply–add)",
                "Backward ≈ 2× forward: gradients for activations and for weights",
                "Ignores attention scores (long contexts) and recomputation",
            ),
            (
                "2·N·D (that is the forward pass, i.e. inference)",
                "Counting one FLOP per multiply–add",
            ),
        ),
        _p(
            "efficiency.training_memory",
            "Where does the GPU memory go when you train a model?",
            '''
            Into weights, gradients, optimizer state, activations, and some temporary buffers and
            fragmentation. With mixed-precision Adam the usual count is 16 bytes per parameter: bf16 or
            fp16 weights (2) and gradients (2), plus fp32 master weights (4) and Adam's first and second
            moments (4 + 4). A 7B model therefore needs about 112 GB before any activations, more than
            one 80 GB GPU, which is why ZeRO and FSDP shard these states across GPUs. Activations scale
            with batch × sequence length × d_model × n_layers, plus batch × heads × n² for naive
            attention; activation checkpointing (recompute in the backward pass, roughly one extra
            forward) and FlashAttention cut them down. Inference, by contrast, needs only the weights
            (2 bytes per parameter in bf16) plus the KV cache.
            ''',
            (
                "Weights, gradients, optimizer states, activations",
                "Mixed-precision Adam ≈ 16 bytes/param: 2 + 2 + 4 (master) + 4 + 4 (moments)",
                "Activations grow with batch·seq·d_model·layers (and n² for naive attention)",
                "Shard states (ZeRO/FSDP), checkpoint activations",
            ),
            (
                "Counting only the weights (2 bytes/param)",
                "Forgetting the fp32 master copy of the weights",
            ),
        ),
        _p(
            "efficiency.flash_attention",
            "What does FlashAttention do, and why is it faster if it performs the same FLOPs?",
            '''
            It computes exact attention, not an approximation, but organises the work around the GPU's
            memory hierarchy. A standard implementation writes the n×n score matrix to HBM, reads it
            back for the softmax, writes the probabilities and reads them again to multiply by V, so
            it moves O(n²) data and is limited by memory bandwidth, not by arithmetic. FlashAttention
            tiles Q, K and V into blocks that fit in on-chip SRAM, computes the scores for one block at
            a time, and uses the online softmax (running max and running sum, rescaling the partial
            output) to accumulate the result, so the n×n matrix never goes to HBM. In the backward pass
            it recomputes the scores blockwise from Q, K, V and the saved per-row softmax statistics
            rather than storing them, which costs some extra FLOPs but still saves time. The FLOPs stay
            O(n²·d), extra memory drops from O(n²) to O(n), and the memory traffic falls sharply, which
            is where the speed-up comes from.
            ''',
            (
                "Exact attention, same O(n²·d) FLOPs",
                "Tiling into SRAM-sized blocks with an online softmax",
                "Never materialises the n×n matrix in HBM: O(n) extra memory",
                "Backward recomputes scores instead of storing them; speed comes from less memory IO",
            ),
            (
                "Calling it an approximate or sparse attention",
                "Saying it reduces the FLOPs or the asymptotic time complexity",
            ),
        ),
        _p(
            "efficiency.long_context",
            "If the n² is the problem, what are the alternatives for very long contexts, and what do they give up?",
            '''
            Sparse attention restricts which keys each query sees: a local sliding window (Longformer,
            Mistral 7B), strided patterns (Sparse Transformer, O(n·√n)) or a few global tokens
            (BigBird), for O(n·w) cost with window w. It gives up direct access to distant tokens;
            information has to hop across layers. Linear attention replaces softmax(QKᵀ)V by
            φ(Q)·(φ(K)ᵀV), computing the d×d summary φ(K)ᵀV first, so the cost is O(n·d²) and a causal
            version runs like an RNN with a constant-size state. It gives up the sharp, content-based
            lookup of softmax: a fixed-size state cannot store arbitrarily many key–value pairs exactly,
            so recall and copying suffer. State-space and recurrent models (Mamba, RWKV) make a similar
            trade, and hybrids keep a few full attention layers. In practice many long-context LLMs
            keep exact attention and make it affordable with FlashAttention, GQA and sequence
            parallelism across devices.
            ''',
            (
                "Sparse/local attention: O(n·w), loses direct long-range access",
                "Linear attention: φ(Q)(φ(K)ᵀV), O(n·d²), RNN-like constant state",
                "Fixed-size state hurts exact recall and copying",
                "Common practice: exact attention + FlashAttention + GQA + sequence parallelism",
            ),
            (
                "Presenting FlashAttention as one of the sub-quadratic alternatives",
            ),
        ),
    ),
)

# --- inference memory ----------------------------------------------------------

_INFERENCE = Chain(
    id="inference",
    title="Serving: memory and bandwidth",
    topic="memory",
    prompts=(
        _p(
            "inference.weights",
            "How much GPU memory do you need to serve a 7B-parameter model?",
            '''
            Start with the weights: 7×10⁹ parameters × 2 bytes in bf16 = 14 GB; int8 halves that to
            about 7 GB and 4-bit to about 3.5 GB plus the quantisation scales. Then add the KV cache,
            which grows with batch size × context length, a little activation memory (only one layer's
            worth at a time at inference) and runtime overhead. The cache is often what limits you:
            for Llama-2-7B in fp16 it is 0.5 MiB per token, 2 GiB for one 4096-token sequence, so a batch
            of 16 full-length sequences needs 32 GiB of cache, more than twice the weights.
            ''',
            (
                "Weights: parameters × bytes per parameter (14 GB for 7B in bf16)",
                "Quantisation: int8 ≈ 7 GB, 4-bit ≈ 3.5 GB plus scales",
                "KV cache grows with batch × context and often dominates",
                "Plus small activations and runtime overhead",
            ),
            (
                "Using the training figure of 16 bytes/param for inference",
                "Forgetting the KV cache",
            ),
        ),
        _p(
            "inference.memory_bound",
            "Why is token-by-token decoding memory-bandwidth-bound, and what does batching do about it?",
            '''
            At batch size 1 each decode step reads every weight from HBM once and uses it for a single
            token: about 2 FLOPs per parameter against 2 bytes read in bf16, an arithmetic intensity of
            roughly 1 FLOP per byte. An H100 SXM offers about 990 TFLOP/s of dense BF16 but about
            3.35 TB/s of HBM bandwidth, so it needs around 300 FLOPs per byte to be compute-bound. The
            step time is therefore set by bytes moved: 14 GB / 3.35 TB/s ≈ 4.2 ms per token for a 7B
            model, at most about 240 tokens/s, however fast the arithmetic. Batching B sequences reuses
            each weight read for B tokens, so throughput grows almost linearly with B until the step
            becomes compute-bound or the KV-cache reads, which are per sequence and not shared, take
            over. Prefill processes many prompt tokens per weight read and is compute-bound.
            ''',
            (
                "Batch 1: ~2 FLOPs per 2 bytes read → ~1 FLOP/byte",
                "GPUs need hundreds of FLOPs/byte to be compute-bound",
                "Time per token ≈ bytes read / bandwidth (≈ 4 ms for 7B bf16 on an H100)",
                "Batching reuses weight reads; KV-cache reads are not shared",
            ),
            (
                "Blaming the attention FLOPs for slow decoding",
            ),
        ),
        _p(
            "inference.reduce_kv",
            "The KV cache does not fit. What are your options?",
            '''
            Shrink what is stored per token: grouped- or multi-query attention (Llama-2-70B's 8 KV heads
            against 64 query heads give an 8× smaller cache), quantising the cache to 8 bits (2× versus
            fp16) or lower, or compressing keys and values into a low-rank latent as DeepSeek-V2's
            multi-head latent attention does; these mostly need the model to be trained or adapted
            for them. Bound how many tokens are stored: sliding-window attention caps the cache at the
            window, and eviction schemes that keep a few initial "sink" tokens plus recent or
            high-attention ones approximate full attention. Waste less: PagedAttention (vLLM) allocates
            the cache in fixed-size blocks instead of reserving the maximum length per request, and
            lets requests share the blocks of a common prompt prefix. Finally, offload cold parts to
            CPU memory or shard the cache across GPUs. Each option trades quality, latency or
            engineering complexity.
            ''',
            (
                "Fewer KV heads: GQA/MQA (or low-rank latents like MLA)",
                "Quantise the cache (fp8/int8 halves fp16)",
                "Cap the tokens: sliding window, eviction with attention sinks",
                "Cut waste: paged allocation and prefix sharing; offload or shard",
            ),
            (
                "Quantising only the weights and expecting the cache to shrink",
            ),
        ),
    ),
)


CHAINS: tuple[Chain, ...] = (
    _ATTENTION,
    _SCALING,
    _SOFTMAX,
    _MULTIHEAD,
    _POSITIONAL,
    _NORMALIZATION,
    _FFN,
    _ARCHITECTURES,
    _EFFICIENCY,
    _INFERENCE,
)

_BY_CHAIN = {c.id: c for c in CHAINS}
_BY_PROMPT = {p.id: p for c in CHAINS for p in c.prompts}


def chain(chain_id: str) -> Chain:
    """The chain with this id; InputError naming the valid ids otherwise."""
    try:
        return _BY_CHAIN[chain_id]
    except KeyError:
        raise InputError(f"unknown interview chain {chain_id!r}; choose one of {', '.join(_BY_CHAIN)}") from None


def prompt(prompt_id: str) -> Prompt:
    """The prompt with this id ("<chain>.<step>"); InputError naming the valid ids otherwise."""
    try:
        return _BY_PROMPT[prompt_id]
    except KeyError:
        pass
    chain_id = prompt_id.split(".", 1)[0] if isinstance(prompt_id, str) else ""
    if chain_id in _BY_CHAIN:
        valid = ", ".join(p.id for p in _BY_CHAIN[chain_id].prompts)
        raise InputError(f"unknown interview prompt {prompt_id!r}; chain {chain_id!r} has {valid}")
    raise InputError(
        f"unknown interview prompt {prompt_id!r}; ids are <chain>.<step> (e.g. attention.mask) "
        f"with chain one of {', '.join(_BY_CHAIN)}"
    )


def all_prompts() -> list[Prompt]:
    """Every prompt, chain by chain, in asking order."""
    return [p for c in CHAINS for p in c.prompts]
