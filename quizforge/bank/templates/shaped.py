"""Published models' shapes with drawn sizes: a class's worth of distinct parameter counts.

The preset templates (params.model, params.gpt3_layer, params.gpt3_table,
params.transformer_paper) ask about a handful of published models and keep doing so, since
their question IDs are in answer keys; these draw the sizes, so that each student of a
class can get a different question about the same layout.
"""

from __future__ import annotations

from quizforge.bank.coinciding import merge_coinciding
from quizforge.bank.question import Misconception, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import decimal, fixed, integer, rounded, tex_int
from quizforge.bank.template import Draft, template
from quizforge.bank.templates.models import _measured_part, gpt_layer_draft
from quizforge.bank.templates.params import BILLIONS, PARAMETERS, _measured, model_count_draft

_SCALED_FROM = ("bert-base", "bert-large", "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "llama-7b")


def _gpt3_width(s) -> tuple[int, int]:
    """A width in GPT-3's style: heads of 64 or 128, from 512 to 12,288."""
    d_head = s.choice((64, 128))
    return d_head * s.integer(8 if d_head == 64 else 4, 96), d_head


@template("params.gpt3_shaped_layer", topic="params", kind="NAT", marks=1, difficulty=2,
          title="Parameters of one GPT-3-style layer of a drawn width")
def gpt3_shaped_layer(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    d, d_head = _gpt3_width(chain.stream("params"))
    cfg = ModelConfig(arch="gpt", d_model=d, n_heads=d // d_head, d_ff=4 * d, n_layers=1, vocab_size=50_257,
                      max_len=2048)
    return gpt_layer_draft(f"One transformer layer in GPT-3's layout has $d_{{model}} = {d}$ ({cfg.n_heads} heads)", cfg)


@template("params.gpt3_shaped", topic="params", kind="NAT", marks=2, difficulty=3,
          title="Parameters of a drawn model in GPT-3's shape")
def gpt3_shaped(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    d, d_head = _gpt3_width(s)
    L = s.integer(4, 96)
    ctx = s.choice((1024, 2048, 4096))
    V = 50_257
    cfg = ModelConfig(arch="gpt", d_model=d, n_heads=d // d_head, d_ff=4 * d, n_layers=L, vocab_size=V, max_len=ctx)
    # GPT-2's layout in closed form, in plain integers (the sympy forms cost milliseconds a draw);
    # `verify` counts numel() on the reference model, and the tests compare the two.
    layer = 12 * d * d + 13 * d
    total = L * layer + (V + ctx) * d + 2 * d
    wrong = [
        Misconception("12Ld2-only", "left out the embeddings", "that is 12·L·d² alone, without the embeddings and the biases",
                      12 * L * d * d),
        Misconception("forgot-layers", "forgot to multiply by the layers", "that is one layer plus the embeddings",
                      total - (L - 1) * layer),
        Misconception("no-bias", "forgot the biases", "that is the count without the bias vectors of the linear maps",
                      total - L * 9 * d),
        Misconception("no-norms", "forgot the LayerNorms", "every layer has two LayerNorms, and one more follows the last "
                      "layer, each with a gain and a bias of d_model", total - (2 * L + 1) * 2 * d),
        Misconception("no-final-norm", "forgot the final LayerNorm", "GPT-2's layout ends with one more LayerNorm (2·d_model)",
                      total - 2 * d),
        Misconception("no-positions", "forgot the position embeddings", "learned positions are an n_ctx × d table",
                      total - ctx * d),
    ]
    return Draft(
        prompt=(f"A model in GPT-3's shape has $n_{{layers}} = {L}$, $d_{{model}} = {d}$ ({d // d_head} heads of "
                f"$d_{{head}} = {d_head}$), $d_{{ff}} = 4 d_{{model}}$, GPT-2's vocabulary of $V = {tex_int(50_257)}$ and a "
                f"context of $n_{{ctx}} = {ctx}$ (learned positions, tied output head, biases and LayerNorms as in GPT-2, "
                "a final LayerNorm after the last layer). How many trainable parameters does it have? Count exactly."),
        answer=total, verify=_measured(cfg), misconceptions=merge_coinciding(wrong), fmt=integer, unit=PARAMETERS,
        solution=[Step("Per layer", f"attention $4d^2 + 4d$, FFN $8d^2 + 5d$, two LayerNorms $4d$: "
                                    f"$12d^2 + 13d = {tex_int(layer)}$"),
                  Step("Embeddings", f"tokens and positions $(V + n_{{ctx}})\\,d = ({tex_int(V)} + {ctx}) \\cdot {d} = "
                                     f"{tex_int((V + ctx) * d)}$, tied head: nothing more"),
                  Step("Exact count", f"$$N = L(12d^2 + 13d) + (V + n_{{ctx}})\\,d + 2d = {L} \\cdot {tex_int(layer)} + "
                                      f"{tex_int((V + ctx) * d)} + {2 * d} = {tex_int(total)}$$")],
        hints=["Each layer: 12d² weights, 13d biases and LayerNorm parameters.", "$L(12 d^2 + 13 d) + (V + n_{ctx}) d + 2d$",
               f"$L = {L}$, $d = {d}$, $n_{{ctx}} = {ctx}$"],
    )


@template("params.scaled_model", topic="params", kind="MCQ", marks=2, difficulty=2,
          title="Parameters of a published model resized")
def scaled_model(chain: SeedChain) -> Draft:
    from quizforge.reference.presets import get_preset

    s = chain.stream("params")
    name = s.choice(_SCALED_FROM)
    base = get_preset(name)
    layers = max(2, base.n_layers * s.choice((1, 2, 3, 5, 6, 7)) // 4)
    d_head = base.d_model // base.n_heads
    heads = max(2, base.n_heads * s.choice((2, 3, 5, 6, 7, 8)) // 4)
    d = heads * d_head
    # The FFN keeps the published ratio to d_model (SwiGLU's 11008/4096, rounded to a multiple of 64).
    d_ff = max(64, base.d_ff * d // base.d_model // 64 * 64)
    cfg = base.with_(n_layers=layers, n_heads=heads, d_model=d, d_ff=d_ff,
                     **({"n_kv_heads": heads} if base.n_kv_heads == base.n_heads else {}))
    return model_count_draft(f"A model built like **{name}** but resized", cfg)


@template("params.transformer_shaped", topic="params", kind="NAT", marks=2, difficulty=3,
          title="Parameters of a drawn encoder–decoder in the original Transformer's shape")
def transformer_shaped(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    N = s.integer(2, 12)
    h = s.choice((4, 8, 12, 16))
    d = h * s.choice((32, 48, 64, 80, 96, 128))
    d_ff = s.choice((2, 4)) * d
    V = 1000 * s.integer(8, 64)
    ask = s.choice(("total", "non_embedding", "encoder", "decoder"))
    cfg = ModelConfig(arch="encoder-decoder", d_model=d, n_heads=h, d_ff=d_ff, n_layers=N, vocab_size=V)
    attention, ffn = 4 * d * d + 4 * d, 2 * d * d_ff + d_ff + d
    encoder_layer = attention + ffn + 4 * d
    decoder_layer = encoder_layer + attention + 2 * d
    total = N * (encoder_layer + decoder_layer) + V * d
    key = {"total": total, "non_embedding": total - V * d, "encoder": N * encoder_layer, "decoder": N * decoder_layer}[ask]
    biases = {"encoder": N * (5 * d + d_ff), "decoder": N * (9 * d + d_ff)}
    biases["total"] = biases["non_embedding"] = biases["encoder"] + biases["decoder"]
    norms = {"encoder": N * 4 * d, "decoder": N * 6 * d}
    norms["total"] = norms["non_embedding"] = norms["encoder"] + norms["decoder"]
    wrong = [
        Misconception("no-bias", "forgot the biases", "that is the count without the bias vectors of the linear maps",
                      key - biases[ask]),
        Misconception("no-norms", "forgot the LayerNorms", "each LayerNorm has a gain and a bias of d_model each",
                      key - norms[ask]),
    ]
    if ask in ("total", "non_embedding"):
        wrong.append(Misconception("no-cross-attention", "forgot the decoder's cross-attention",
                                   "each decoder layer has self-attention, cross-attention and an FFN",
                                   key - N * (attention + 2 * d)))
    if ask == "total":
        wrong.append(Misconception("untied-head", "gave the output projection its own matrix",
                                   "the pre-softmax projection shares the embedding matrix", total + V * d))
    if ask == "non_embedding":
        wrong.append(Misconception("with-embeddings", "included the embedding matrix",
                                   "the question leaves out the V × d matrix", total))
    if ask in ("encoder", "decoder"):
        wrong.append(Misconception("one-layer", "counted one layer", f"the stack has {N} layers", key // N))
    asked = {"total": "How many trainable parameters does it have",
             "non_embedding": "How many trainable parameters does it have outside the embedding matrix",
             "encoder": f"How many trainable parameters does its encoder stack (the {N} encoder layers) have",
             "decoder": f"How many trainable parameters does its decoder stack (the {N} decoder layers) have"}[ask]
    return Draft(
        prompt=(f"An encoder–decoder model in the original Transformer's shape (Vaswani et al. 2017) has {N} encoder and "
                f"{N} decoder layers, $d_{{model}} = {d}$, $h = {h}$ heads, $d_{{ff}} = {d_ff}$, post-LayerNorm residual "
                "blocks and sinusoidal positions (no parameters); one embedding matrix is shared by the encoder input, the "
                f"decoder input and the pre-softmax projection, over a vocabulary of $V = {tex_int(V)}$ tokens, and every "
                f"linear map and LayerNorm has a bias. {asked}? Count exactly."),
        answer=key, verify=_measured(cfg) if ask == "total" else _measured_part(cfg, ask),
        misconceptions=merge_coinciding(wrong),
        fmt=integer, unit=PARAMETERS,
        solution=[
            Step("Encoder layer", f"attention $4d^2 + 4d$, FFN $2 d\\,d_{{ff}} + d_{{ff}} + d$, two LayerNorms $4d$: "
                                  f"${tex_int(encoder_layer)}$"),
            Step("Decoder layer", f"one more attention block and LayerNorm: ${tex_int(decoder_layer)}$"),
            Step("Embeddings", f"one shared matrix: $V d = {tex_int(V)} \\cdot {d} = {tex_int(V * d)}$"),
            Step("Asked", f"$${tex_int(key)}$$"),
        ],
        hints=[f"Count one encoder layer and one decoder layer, multiply each by {N}, add one embedding matrix.",
               "decoder layer = encoder layer + cross-attention ($4d^2 + 4d$) + one LayerNorm ($2d$)",
               f"$d = {d}$, $d_{{ff}} = {d_ff}$, $V = {tex_int(V)}$"],
    )


@template("params.rule_of_thumb", topic="params", kind="NAT", marks=1, difficulty=1,
          title="The 12·L·d² rule of thumb, in billions")
def rule_of_thumb(chain: SeedChain) -> Draft:
    from fractions import Fraction

    s = chain.stream("params")
    L = s.integer(12, 96)
    d = 128 * s.integer(8, 96)
    billions = Fraction(12 * L * d * d, 10**9)
    wrong = [
        Misconception("attention-only", "counted attention only", "4·L·d² is only the attention projections; the FFN adds 8·L·d²",
                      Fraction(4 * L * d * d, 10**9)),
        Misconception("ffn-only", "counted the FFN only", "8·L·d² is the FFN alone; attention adds 4·L·d²",
                      Fraction(8 * L * d * d, 10**9)),
        Misconception("ffn-width-d", "took d_ff = d", "with d_ff = 4d the FFN is 8d², not 2d²", Fraction(6 * L * d * d, 10**9)),
        Misconception("forgot-layers", "forgot to multiply by the layers", "that is one layer's 12·d²",
                      Fraction(12 * d * d, 10**9)),
    ]
    return Draft(
        prompt=(f"A decoder-only transformer has $L = {L}$ layers of width $d_{{model}} = {d}$ with $d_{{ff}} = 4 d_{{model}}$. "
                "Ignoring biases, LayerNorms and the embeddings, as the rule of thumb does, how many parameters do its "
                "layers hold, in billions? Give it to 2 decimal places."),
        answer=rounded(billions, 2), exact=billions, decimals=2, fmt=decimal(2), unit=BILLIONS, misconceptions=wrong,
        solution=[Step("Per layer", "attention $4d^2$ ($W_Q, W_K, W_V, W_O$) and the FFN $2 \\cdot d \\cdot 4d = 8d^2$: $12d^2$"),
                  Step("All layers", f"$$12 L d^2 = 12 \\cdot {L} \\cdot {d}^2 = {tex_int(12 * L * d * d)} "
                                     f"\\approx {fixed(billions, 2)} \\times 10^9$$")],
        hints=["Count the weight matrices of one layer, then multiply by the layers.", "$12 L d^2$", f"$L = {L}$, $d = {d}$"],
    )
