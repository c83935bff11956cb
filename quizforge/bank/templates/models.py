"""Whole-model and per-layer parameter counts from the lesson: the original Transformer
(base and big), a small GPT, and one GPT-3 layer.

Keys are the accounting module's closed forms for reference-model configs, and each
template's `verify` counts `numel()` on the model instantiated on the meta device.
"""

from __future__ import annotations

from fractions import Fraction

from quizforge.bank.coinciding import merge_coinciding
from quizforge.bank.question import Misconception, Step, Unit
from quizforge.answers.rounding import equals, rounded
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import closed_form, decimal, integer, tex_int
from quizforge.bank.template import Draft, template


MILLIONS = Unit("millions", "count", 10**6, ("millions",), after_number="million")   # 25.2M, 25.2 million, 25,224,192


def _count(cfg) -> int:
    from quizforge.accounting.formulas import param_total

    return param_total(cfg)


def _measured_total(cfg):
    def measure() -> int:
        from quizforge.accounting.measure import measure_params

        return sum(measure_params(cfg).values())
    return measure


def _formula(title: str, cfg) -> Step:
    from quizforge.accounting.formulas import param_closed_form

    form = param_closed_form(cfg)
    return closed_form(title, form.total_expr, form.values, form.total, lhs="N")


# The paper's Table 3 rounds these to 65M and 213M; its exact vocabulary is not printed.
_PAPER_QUOTE = {"vaswani-base": "65M", "vaswani-big": "213M"}


def _measured_part(cfg, part: str):
    """numel() of a part of the reference model instantiated on meta: a stack, or all but the embeddings."""
    def measure() -> int:
        from torch import nn

        from quizforge.reference import build

        model = build(cfg, "meta")
        if part in ("encoder", "decoder"):
            return sum(p.numel() for p in getattr(model, part).parameters())
        tables = {id(p) for m in model.modules() if isinstance(m, nn.Embedding) for p in m.parameters()}
        return sum(p.numel() for p in model.parameters() if id(p) not in tables)
    return measure


_ASKS = {
    "total": "How many trainable parameters does it have",
    "non_embedding": "How many trainable parameters does it have outside the embedding matrix",
    "encoder": "How many trainable parameters does its encoder stack (the 6 encoder layers) have",
    "decoder": "How many trainable parameters does its decoder stack (the 6 decoder layers) have",
}


@template("params.transformer_paper", topic="params", kind="NAT", marks=2, difficulty=3,
          title="Parameters of the original Transformer (base and big)",
          fixed_fact="2 published models × 4 parts: 8 questions (params.transformer_shaped draws its own)")
def transformer_paper(chain: SeedChain) -> Draft:
    from quizforge.reference.presets import get_preset

    s = chain.stream("params")
    name = s.choice(tuple(_PAPER_QUOTE))
    ask = s.choice(("total", "total", "non_embedding", "encoder", "decoder"))
    cfg = get_preset(name)
    d, V, h, d_ff = cfg.d_model, cfg.vocab_size, cfg.n_heads, cfg.d_ff
    total = _count(cfg)
    millions = lambda x: rounded(x / 1e6, 3)  # noqa: E731
    attention, ffn = 4 * d * d + 4 * d, 2 * d * d_ff + d_ff + d
    encoder_layer = attention + ffn + 4 * d
    decoder_layer = encoder_layer + attention + 2 * d
    key = {"total": total, "non_embedding": total - V * d, "encoder": 6 * encoder_layer, "decoder": 6 * decoder_layer}[ask]
    # Every bias and every LayerNorm in the part asked; 3 decimals in millions tell each apart from the key.
    biases = {"encoder": 6 * (5 * d + d_ff), "decoder": 6 * (9 * d + d_ff)}
    biases["total"] = biases["non_embedding"] = biases["encoder"] + biases["decoder"]
    norms = {"encoder": 6 * 4 * d, "decoder": 6 * 6 * d}
    norms["total"] = norms["non_embedding"] = norms["encoder"] + norms["decoder"]
    forgotten = [Misconception("no-bias", "forgot the biases",
                               "that is the count without the bias vectors of the linear maps", key - biases[ask]),
                 Misconception("no-norms", "forgot the LayerNorms",
                               "each LayerNorm has a gain and a bias of d_model each", key - norms[ask])]
    if ask == "total":
        wrong = [
            Misconception("untied-head", "gave the output projection its own matrix",
                          "the pre-softmax projection shares the embedding matrix", total + V * d),
            Misconception("unshared-embeddings", "gave each of the three uses its own matrix",
                          "encoder input, decoder input and output projection share one V × d matrix", total + 2 * V * d),
            Misconception("no-embeddings", "left out the embeddings", "the shared V × d embedding matrix is a parameter too",
                          total - V * d),
            Misconception("no-cross-attention", "forgot the decoder's cross-attention",
                          "each decoder layer has self-attention, cross-attention and an FFN", total - 6 * (attention + 2 * d)),
        ]
    elif ask == "non_embedding":
        wrong = [
            Misconception("with-embeddings", "included the embedding matrix", "the question leaves out the V × d matrix",
                          total),
            Misconception("no-cross-attention", "forgot the decoder's cross-attention",
                          "each decoder layer has self-attention, cross-attention and an FFN",
                          total - V * d - 6 * (attention + 2 * d)),
            Misconception("ffn-width-d", "took d_ff = d", f"the FFN is {d_ff} wide",
                          total - V * d - 12 * (2 * d * (d_ff - d) + d_ff - d)),
        ]
    else:
        layer = encoder_layer if ask == "encoder" else decoder_layer
        wrong = [
            Misconception("one-layer", "counted one layer", "the stack has 6 layers", layer),
            Misconception("ffn-width-d", "took d_ff = d", f"the FFN is {d_ff} wide", key - 6 * (2 * d * (d_ff - d) + d_ff - d)),
            Misconception("no-cross-attention", "forgot the cross-attention",
                          "each decoder layer has self-attention, cross-attention and an FFN", 6 * encoder_layer)
            if ask == "decoder" else
            Misconception("encoder-with-cross", "gave the encoder cross-attention", "only decoder layers attend to the encoder",
                          6 * decoder_layer),
        ]
    wrong += forgotten
    return Draft(
        prompt=(f"The original Transformer **{name.split('-')[1]}** model (Vaswani et al. 2017) has 6 encoder and 6 decoder "
                f"layers, $d_{{model}} = {d}$, $h = {h}$ heads, $d_{{ff}} = {d_ff}$, post-LayerNorm residual blocks and "
                "sinusoidal positions (no parameters). Assume, as the paper does, one embedding matrix shared by the encoder "
                f"input, the decoder input and the pre-softmax projection, over a vocabulary of $V = {tex_int(V)}$ BPE tokens, "
                f"and biases on every linear map and LayerNorm. {_ASKS[ask]}, in millions? Give it to 3 decimal places."),
        answer=millions(key), exact=Fraction(key, 10**6), decimals=3, fmt=decimal(3), unit=MILLIONS,
        verify=lambda: millions(_measured_total(cfg)() if ask == "total" else _measured_part(cfg, ask)()),
        misconceptions=merge_coinciding([Misconception(m.tag, m.label, m.feedback, Fraction(m.value, 10**6)) for m in wrong],
                                        decimals=3),
        solution=[
            Step("Encoder layer", f"attention $4d^2 + 4d$, FFN $2 d\\,d_{{ff}} + d_{{ff}} + d$, two LayerNorms $4d$: "
                                  f"${tex_int(encoder_layer)}$"),
            Step("Decoder layer", f"one more attention block and LayerNorm: ${tex_int(decoder_layer)}$"),
            Step("Embeddings", f"one shared matrix: $V d = {tex_int(V)} \\cdot {d} = {tex_int(V * d)}$"),
            _formula("Whole model", cfg),
            Step("Asked", f"$${tex_int(key)} {equals(key / 1e6, 3)}\\,\\mathrm{{M}}$$"),
            Step("The paper's figure", f"Table 3 quotes about {_PAPER_QUOTE[name]} for the whole model; its exact "
                                       "vocabulary and counting are not printed, so the question fixes them."),
        ],
        hints=["Count one encoder layer and one decoder layer, multiply by 6 each, add one embedding matrix.",
               "decoder layer = encoder layer + cross-attention ($4d^2 + 4d$) + one LayerNorm ($2d$)",
               f"$d = {d}$, $d_{{ff}} = {d_ff}$, $V = {tex_int(V)}$"],
    )


@template("params.small_gpt", topic="params", kind="NAT", marks=2, difficulty=2,
          title="Parameters of a small GPT")
def small_gpt(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    d = s.choice((64, 128, 192, 256, 384, 512))
    h = s.choice([x for x in (2, 4, 8) if d % x == 0])
    L = s.integer(2, 8)
    V = s.choice((256, 1000, 4096, 8192, 16000))
    ctx = s.choice((128, 256, 512, 1024))
    tied = s.chance(1, 2)
    cfg = ModelConfig(arch="gpt", d_model=d, n_heads=h, d_ff=4 * d, n_layers=L, vocab_size=V, max_len=ctx, tied=tied)
    total = _count(cfg)
    layer = 12 * d * d + 13 * d
    wrong = [
        Misconception("untied-head", "counted an untied head", "the output head reuses the token embedding matrix",
                      total + V * d) if tied else
        Misconception("tied-head", "treated the head as tied", "this model's output head has its own V × d matrix",
                      total - V * d),
        Misconception("no-positions", "forgot the position embeddings", "learned positions are an n_ctx × d table",
                      total - ctx * d),
        Misconception("forgot-layers", "counted one layer", "every one of the L layers has its own weights",
                      total - (L - 1) * layer),
        Misconception("no-bias", "forgot the biases", "every linear map here has a bias",
                      _count(cfg.with_(bias=False))),
        Misconception("no-final-norm", "forgot the final LayerNorm", "a pre-LN GPT ends with one more LayerNorm (2d)",
                      total - 2 * d),
    ]
    head = "tied to the token embeddings" if tied else "a separate $V \\times d$ matrix without bias"
    return Draft(
        prompt=(f"A small GPT (GPT-2 layout: pre-LayerNorm blocks, a final LayerNorm, learned positions, $d_{{ff}} = 4d$, "
                f"biases on every linear map and LayerNorm) has $L = {L}$ layers, $d = {d}$, $h = {h}$ heads, a vocabulary of "
                f"$V = {tex_int(V)}$ and a context of $n_{{ctx}} = {ctx}$; its output head is {head}. "
                "How many trainable parameters does it have? Count exactly."),
        answer=total, fmt=integer, verify=_measured_total(cfg), misconceptions=merge_coinciding(wrong),
        solution=[
            Step("One layer", f"$12d^2 + 13d = {tex_int(layer)}$ (attention $4d^2 + 4d$, FFN $8d^2 + 5d$, two LayerNorms $4d$)"),
            Step("Embeddings", f"tokens $V d = {tex_int(V * d)}$, positions $n_{{ctx}} d = {tex_int(ctx * d)}$"
                 + ("" if tied else f", head $V d = {tex_int(V * d)}$")),
            _formula("Total", cfg),
        ],
        hints=["Per layer $12d^2 + 13d$; then embeddings and the final LayerNorm.",
               "$L(12d^2 + 13d) + Vd + n_{ctx} d + 2d$" + ("" if tied else " $+ Vd$"), f"$L = {L}$, $d = {d}$"],
    )


_GPT3_ROWS = ("gpt3-small", "gpt3-medium", "gpt3-large", "gpt3-2.7b", "gpt3-6.7b", "gpt3-175b")


@template("params.gpt3_layer", topic="params", kind="NAT", marks=1, difficulty=2,
          title="Parameters of one GPT-3 layer",
          fixed_fact="6 published widths: 6 questions (params.gpt3_shaped_layer draws its own width)")
def gpt3_layer(chain: SeedChain) -> Draft:
    from quizforge.reference.presets import get_preset

    name = chain.stream("params").choice(_GPT3_ROWS)
    cfg = get_preset(name)
    return gpt_layer_draft(f"One transformer layer of GPT-3 **{name}** has $d_{{model}} = {cfg.d_model}$ ({cfg.n_heads} heads)",
                           cfg)


def gpt_layer_draft(opening: str, cfg) -> Draft:
    """One GPT-3-style layer counted exactly; `opening` names the layer and its width."""
    d = cfg.d_model
    layer = _count(cfg.with_(n_layers=2)) - _count(cfg.with_(n_layers=1))

    def measured() -> int:
        one, two = (_measured_total(cfg.with_(n_layers=k))() for k in (1, 2))
        return two - one

    wrong = [
        Misconception("12d2-only", "left out the biases and LayerNorms", "12d² counts the weight matrices only; "
                      "biases and LayerNorm gains add 13d", 12 * d * d),
        Misconception("four-d-short", "forgot the LayerNorms or the attention biases",
                      "that is 4d short: either the two LayerNorms (2 × 2d) or the four attention biases (4 × d) "
                      "are missing — both give this number", 12 * d * d + 9 * d),
        Misconception("attention-only", "counted attention only", "the FFN (8d² + 5d) is two thirds of the layer",
                      4 * d * d + 4 * d),
        Misconception("ffn-width-d", "took d_ff = d", "GPT-3's FFN is 4d wide", 6 * d * d + 10 * d),
    ]
    return Draft(
        prompt=(f"{opening}, "
                "$d_{ff} = 4 d_{model}$, biases on the four attention projections and the two FFN maps, and two "
                "LayerNorms with gain and bias. How many trainable parameters does one layer have? Count exactly."),
        answer=layer, fmt=integer, verify=measured, misconceptions=merge_coinciding(wrong),
        solution=[
            Step("Attention", f"$4d^2 + 4d = {tex_int(4 * d * d + 4 * d)}$"),
            Step("FFN", f"$d \\cdot 4d + 4d + 4d \\cdot d + d = 8d^2 + 5d = {tex_int(8 * d * d + 5 * d)}$"),
            Step("LayerNorms", f"$2 \\cdot 2d = {tex_int(4 * d)}$"),
            Step("One layer", f"$$12d^2 + 13d = 12 \\cdot {d}^2 + 13 \\cdot {d} = {tex_int(layer)}$$"),
        ],
        hints=["Attention 4d² + 4d; FFN 8d² + 5d; two LayerNorms.", "$12d^2 + 13d$", f"$d = {d}$"],
    )
