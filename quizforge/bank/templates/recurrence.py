"""A recurrent layer against a self-attention layer: their parameter and FLOP counts, not
only their ratio. Attention's figures are the accounting module's closed forms for the
reference MHA; the recurrent layer is h_t = tanh(W_x x_t + W_h h_{t-1} + b)."""

from __future__ import annotations

from quizforge.bank.coinciding import merge_coinciding
from quizforge.bank.question import Misconception, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import integer, tex_int
from quizforge.bank.template import Draft, template

ASKS = ("rnn_params", "attention_params", "rnn_flops", "attention_flops")


def _attention(d: int, h: int, n: int) -> tuple[int, int]:
    """(parameters, forward FLOPs for one sequence) of the reference MHA with biases."""
    from quizforge.accounting.formulas import forward_flop_closed_form, param_closed_form
    from quizforge.reference.config import ModelConfig

    cfg = ModelConfig(arch="mha", d_model=d, n_heads=h, bias=True)
    return param_closed_form(cfg).total, forward_flop_closed_form(cfg, 1, n, None).total


@template("flops.rnn_attention_counts", topic="flops", kind="NAT", marks=2, difficulty=2,
          title="Parameters and FLOPs: a recurrent layer and self-attention")
def rnn_attention_counts(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d = s.choice((64, 128, 256, 512, 768, 1024))
    h = s.choice([x for x in (4, 8, 16) if d % x == 0])
    n = s.choice([x for x in (32, 64, 128, 256, 512, 1024, 2048, 4096) if x != 2 * d and x != d])
    ask = s.choice(ASKS)
    attn_params, attn_flops = _attention(d, h, n)
    rnn_params, rnn_flops = 2 * d * d + d, 4 * n * d * d
    if ask == "rnn_params":
        key, what = rnn_params, "trainable parameters of the recurrent layer"
        wrong = [
            Misconception("rnn-no-bias", "forgot the bias", "the layer has one bias vector of size d", 2 * d * d),
            Misconception("rnn-two-biases", "counted two biases", "this layer has one bias b (PyTorch's nn.RNN has two)",
                          2 * d * d + 2 * d),
            Misconception("rnn-no-recurrent", "forgot W_h", "the recurrent matrix W_h is d × d too", d * d + d),
            Misconception("rnn-per-step", "multiplied by the length", "the same weights are reused at every step",
                          n * rnn_params),
        ]
    elif ask == "attention_params":
        key, what = attn_params, "trainable parameters of the self-attention layer"
        wrong = [
            Misconception("no-bias", "forgot the biases", "each of the four projections has a bias", 4 * d * d),
            Misconception("no-output-proj", "forgot W_O", "W_O is a fourth d × d projection", 3 * d * d + 3 * d),
            Misconception("attn-grows-with-n", "made it depend on n", "attention's weights do not depend on the length",
                          attn_params + n * n),
            Misconception("d_k-is-d_model", "d_k = d_model", "the heads split d_model; each head is d/h wide",
                          h * (3 * d * d + 3 * d) + h * d * d + d),
        ]
    elif ask == "rnn_flops":
        key, what = rnn_flops, "forward FLOPs of the recurrent layer over the whole sequence"
        wrong = [
            Misconception("rnn-half", "counted multiply-adds, or left out the recurrent product",
                          "2nd² is what you get either by counting a multiply-add as one operation or by leaving out "
                          "the recurrent product W_h·h(t−1); both give this number", 2 * n * d * d),
            Misconception("rnn-one-step", "counted one step", "the recurrence runs once per token: n steps", 4 * d * d),
            Misconception("rnn-n-squared", "made it quadratic in n", "each step costs the same, whatever came before",
                          4 * n * n * d),
        ]
    else:
        key, what = attn_flops, "forward FLOPs of the self-attention layer over the whole sequence"
        wrong = [
            Misconception("multiply-adds", "counted multiply-adds", "one multiply-add is 2 FLOPs", attn_flops // 2),
            Misconception("attn-no-projections", "forgot the projections", "Q, K, V and O cost 8nd² together",
                          4 * n * n * d),
            Misconception("attn-no-scores", "forgot QKᵀ and A·V", "the scores and the weighted sum cost 4n²d",
                          8 * n * d * d),
            Misconception("attn-per-head-n2d", "multiplied the scores by h", "the heads split d: h · n² · (d/h) = n²d",
                          8 * n * d * d + 4 * h * n * n * d),
        ]
    return Draft(
        prompt=(f"Compare two layers of width $d = {d}$ on one sequence of $n = {n}$ tokens. (a) A recurrent layer "
                "$h_t = \\tanh(W_x x_t + W_h h_{t-1} + b)$ with $W_x, W_h \\in \\mathbb{R}^{d \\times d}$ and one bias $b$. "
                f"(b) Multi-head self-attention with $h = {h}$ heads: $W_Q, W_K, W_V, W_O$ are $d \\times d$ with biases. "
                "Count a multiply-add as 2 FLOPs and leave out of the FLOPs the biases, tanh, softmax and the "
                "$1/\\sqrt{d_k}$ scaling (elementwise work, small next to the matrix products). "
                f"How many {what}? Count exactly."),
        answer=key, fmt=integer, misconceptions=merge_coinciding(wrong),
        solution=[
            Step("Recurrent layer", f"parameters $2d^2 + d = {tex_int(rnn_params)}$; FLOPs $n \\cdot 2 \\cdot 2d^2 = "
                                    f"4nd^2 = {tex_int(rnn_flops)}$, in $n$ sequential steps"),
            Step("Self-attention", f"parameters $4d^2 + 4d = {tex_int(attn_params)}$; FLOPs $8nd^2$ (projections) + "
                                   f"$4n^2 d$ (QKᵀ and A·V) $= {tex_int(attn_flops)}$, all positions in parallel"),
            Step("Asked", f"$${tex_int(key)}$$"),
        ],
        hints=["A d × d matrix times a vector costs 2d² FLOPs.",
               "RNN: $2d^2 + d$ and $4nd^2$; attention: $4d^2 + 4d$ and $8nd^2 + 4n^2 d$", f"$n = {n}$, $d = {d}$"],
    )
