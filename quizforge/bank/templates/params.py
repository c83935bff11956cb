"""Parameter counts: projections, MHA/GQA, FFN, norms, layers, embeddings, whole models.

Every key is the accounting module's closed form for a reference-model config
(the tests pin those forms to `numel()` on instantiated models); each
misconception is the same computation on a config with the mistake built in.
"""

from __future__ import annotations

from fractions import Fraction

from quizforge.bank.coinciding import merge_coinciding
from quizforge.bank.question import Misconception, Step, Unit
from quizforge.bank.seeds import SeedChain, widened
from quizforge.bank.steps import closed_form, fixed, integer, tex_int
from quizforge.bank.template import Draft, template

PARAMETERS = Unit("", "count")     # a plain count that may be typed as 1.05M or 175B where precise enough
D_MODELS = (128, 256, 384, 512, 640, 768, 1024, 1280, 1536, 2048)
HEADS = (4, 8, 12, 16)


def _count(cfg) -> int:
    from quizforge.accounting.formulas import param_total

    return param_total(cfg)


def _per_layer(cfg) -> int:
    """What one more layer adds to a whole model's count."""
    return _count(cfg.with_(n_layers=2)) - _count(cfg.with_(n_layers=1))


def _measured(cfg):
    """The parameter count of `cfg`, by numel() on a model instantiated on the meta device."""
    def measure() -> int:
        from quizforge.accounting.measure import measure_params

        return sum(measure_params(cfg).values())
    return measure


def _formula_step(title: str, cfg, lhs: str) -> Step:
    from quizforge.accounting.formulas import param_closed_form

    form = param_closed_form(cfg)
    return closed_form(title, form.total_expr, form.values, form.total, lhs=lhs)


def _width(stream) -> tuple[int, int]:
    return stream.choice([(d, h) for d in D_MODELS for h in HEADS if d % h == 0])


def _wide_width(stream) -> tuple[int, int]:
    """Any width that is a multiple of 64 up to 4096, with a head count that divides it."""
    d = 64 * stream.integer(2, 64)
    return d, stream.choice([h for h in HEADS if d % h == 0])


def _width_for(chain: SeedChain, s) -> tuple[int, int]:
    wide = widened(chain)
    return _wide_width(wide) if wide is not None else _width(s)


def _bias_words(bias: bool) -> str:
    return "with bias vectors" if bias else "without biases"


@template("params.projections", topic="params", kind="NAT", marks=1, difficulty=1,
          title="Parameters of the Q, K, V, O projections",
          widened_as="params.projections_wide")
def projections(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    d, h = _width_for(chain, s)
    bias = s.chance(1, 2)
    cfg = ModelConfig(arch="mha", d_model=d, n_heads=h, bias=bias)
    total = _count(cfg)
    wrong = [
        Misconception("no-bias", "forgot the biases", "that is the count without the bias terms", _count(cfg.with_(bias=False)))
        if bias else
        Misconception("extra-bias", "added biases", "that includes bias vectors this layer does not have", _count(cfg.with_(bias=True))),
        Misconception("no-output-proj", "forgot W_O", "that counts W_Q, W_K and W_V but not the output projection W_O",
                      total * 3 // 4),
        Misconception("d_k-is-d_model", "d_k = d_model", "that gives every head full-width projections (d_k = d_model)",
                      _count(cfg.with_(d_head=d)) if h > 1 else None),
        Misconception("one-matrix", "counted one projection", "that is a single d_model × d_model projection; there are four",
                      d * d + (d if bias else 0)),
    ]
    return Draft(
        prompt=(f"A multi-head self-attention layer has $d_{{model}} = {d}$ and $h = {h}$ heads. Its four projections "
                f"$W_Q, W_K, W_V, W_O$ are $d_{{model}} \\times d_{{model}}$ linear maps {_bias_words(bias)}. "
                "How many trainable parameters does the layer have?"),
        answer=total, verify=_measured(cfg), misconceptions=[m for m in wrong if m.value], fmt=integer, unit=PARAMETERS,
        solution=[
            Step("Four projections", "Each of $W_Q, W_K, W_V, W_O$ maps $d_{model} \\to d_{model}$: the heads split the "
                                     "output columns, so they do not change the count." + (" Each has a bias of size $d_{model}$." if bias else "")),
            _formula_step("Count", cfg, "N"),
        ],
        hints=["The heads share the width; h does not change the count.",
               "$4 d_{model}^2$" + (" $+ 4 d_{model}$" if bias else ""), f"$d_{{model}} = {d}$"],
    )


@template("params.gqa", topic="params", kind="NAT", marks=2, difficulty=2,
          title="Parameters of grouped-query attention",
          widened_as="params.gqa_wide")
def gqa_attention(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    wide = widened(chain)
    s = wide or chain.stream("params")
    d = s.choice((1024, 2048, 3072, 4096, 5120, 8192)) if wide is None else 512 * s.integer(2, 32)
    d_head = s.choice((64, 128))
    h = d // d_head
    h_kv = s.choice([g for g in (1, 2, 4, 8) if h % g == 0 and g < h])
    cfg = ModelConfig(arch="mha", d_model=d, n_heads=h, n_kv_heads=h_kv, bias=False)
    total = _count(cfg)
    kind = "multi-query attention (one shared key/value head)" if h_kv == 1 else f"grouped-query attention with $h_{{kv}} = {h_kv}$ key/value heads"
    wrong = [
        Misconception("gqa-as-mha", "counted full MHA", "that is the count for full multi-head attention; K and V have only h_kv heads",
                      _count(cfg.with_(n_kv_heads=h))),
        Misconception("gqa-shrunk-q", "shrank Q and O too", "only W_K and W_V shrink; W_Q and W_O keep all h heads",
                      4 * d * h_kv * d_head),
        Misconception("gqa-one-kv-matrix", "counted K and V once", "K and V each have their own projection",
                      total - d * h_kv * d_head),
    ]
    return Draft(
        prompt=(f"An attention layer with $d_{{model}} = {d}$, $h = {h}$ query heads of size $d_{{head}} = {d_head}$ uses {kind}. "
                "Its projections have no biases. How many parameters do $W_Q, W_K, W_V$ and $W_O$ have together?"),
        answer=total, verify=_measured(cfg), misconceptions=wrong, fmt=integer, unit=PARAMETERS,
        solution=[
            Step("Shapes", f"$W_Q$: ${d} \\times {h * d_head}$, $W_K$ and $W_V$: ${d} \\times {h_kv * d_head}$ each, "
                           f"$W_O$: ${h * d_head} \\times {d}$."),
            _formula_step("Count", cfg, "N"),
        ],
        hints=["Only the key and value projections shrink with fewer KV heads.",
               "$2 d_{model} h d_{head} + 2 d_{model} h_{kv} d_{head}$", f"$h_{{kv}} = {h_kv}$, $d_{{head}} = {d_head}$"],
    )


@template("params.ffn", topic="params", kind="NAT", marks=1, difficulty=1, title="Parameters of the feed-forward block",
          widened_as="params.ffn_wide")
def feed_forward(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    wide = widened(chain)
    d = 64 * wide.integer(2, 64) if wide is not None else s.choice(D_MODELS)
    swiglu = (wide or s).chance(1, 3)
    if swiglu:
        d_ff = (wide or s).choice((2, 3, 4)) * d // 3 * 2 // 64 * 64 or 64
        cfg = ModelConfig(arch="ffn", d_model=d, d_ff=d_ff, activation="swiglu", bias=False)
        block = (f"a SwiGLU feed-forward block with $d_{{model}} = {d}$ and inner width $d_{{ff}} = {d_ff}$: "
                 "$\\mathrm{FFN}(x) = W_2(\\mathrm{SiLU}(W_1 x) \\odot W_3 x)$, no biases")
    else:
        d_ff = (wide.choice((2, 4)) if wide is not None else 4) * d
        cfg = ModelConfig(arch="ffn", d_model=d, d_ff=d_ff, activation="relu", bias=True)
        block = (f"the position-wise feed-forward block $\\mathrm{{FFN}}(x) = W_2\\,\\mathrm{{ReLU}}(W_1 x + b_1) + b_2$ "
                 f"with $d_{{model}} = {d}$ and $d_{{ff}} = {d_ff}$")
    total = _count(cfg)
    wrong = [
        Misconception("ffn-one-matrix", "counted one matrix", "that is a single d_model × d_ff matrix; the block has "
                      + ("three" if swiglu else "two"), d * d_ff),
        Misconception("ffn-two-matrices", "forgot the gate", "SwiGLU has a third (gate) matrix W_3", 2 * d * d_ff)
        if swiglu else
        Misconception("no-bias", "forgot the biases", "that is the count without the bias terms b_1 and b_2", 2 * d * d_ff),
        Misconception("ffn-square", "used d_model × d_model", "the inner width is d_ff, not d_model",
                      (3 if swiglu else 2) * d * d + (0 if swiglu else 2 * d)),
    ]
    return Draft(
        prompt=f"Consider {block}. How many trainable parameters does it have?",
        answer=total, verify=_measured(cfg), misconceptions=wrong, fmt=integer, unit=PARAMETERS,
        solution=[_formula_step("Count", cfg, "N")],
        hints=["Count each weight matrix, then each bias vector.",
               "$3 d_{model} d_{ff}$" if swiglu else "$2 d_{model} d_{ff} + d_{ff} + d_{model}$",
               f"$d_{{model}} = {d}$, $d_{{ff}} = {d_ff}$"],
    )


@template("params.norms", topic="params", kind="NAT", marks=1, difficulty=2, title="Parameters of LayerNorm and RMSNorm",
          widened_as="params.norms_wide")
def norms(chain: SeedChain) -> Draft:
    wide = widened(chain)
    s = wide or chain.stream("params")
    d = 64 * s.integer(2, 64) if wide is not None else s.choice(D_MODELS)
    layers = s.integer(2, 48) if wide is not None else s.choice((6, 12, 24, 32))
    rms = s.chance(1, 2)
    norm = "RMSNorm" if rms else "LayerNorm"
    per = d if rms else 2 * d
    count = (2 * layers + 1) * per
    wrong = [
        Misconception("norm-no-final", "forgot the final norm", "a pre-norm stack has one more norm after the last layer",
                      2 * layers * per),
        Misconception("norm-rms-bias", "gave RMSNorm a bias", "RMSNorm has only a gain vector, no bias", (2 * layers + 1) * 2 * d)
        if rms else
        Misconception("norm-one-vector", "counted only the gain", "LayerNorm has a gain and a bias, 2·d_model per norm",
                      (2 * layers + 1) * d),
        Misconception("forgot-layers", "forgot to multiply by the layers", "that is the count for one layer", 2 * per + per),
        Misconception("norm-d-squared", "counted a matrix", "a norm holds vectors of size d_model, not a d_model × d_model matrix",
                      (2 * layers + 1) * d * d),
    ]
    return Draft(
        prompt=(f"A pre-norm decoder-only transformer has $L = {layers}$ layers with $d_{{model}} = {d}$. Each layer has two "
                f"{norm}s (before attention and before the FFN) and one more {norm} follows the last layer. "
                f"How many trainable parameters do all the {norm}s have together?"),
        answer=count, misconceptions=wrong, fmt=integer, unit=PARAMETERS,
        solution=[Step(f"One {norm}", "$\\gamma$" + ("" if rms else " and $\\beta$") + f": ${per}$ parameters."),
                  Step("All of them", f"$$(2L + 1) \\cdot {per} = ({2 * layers} + 1) \\cdot {per} = {tex_int(count)}$$")],
        hints=[f"{norm} learns " + ("a gain only." if rms else "a gain and a bias."), "$(2L+1) \\times$ per-norm count",
               f"$L = {layers}$"],
    )


@template("params.encoder_layer", topic="params", kind="NAT", marks=2, difficulty=2, title="Parameters of an encoder layer",
          widened_as="params.encoder_layer_wide")
def encoder_layer(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    d, h = _width_for(chain, s)
    d_ff = s.choice((2, 4)) * d
    cfg = ModelConfig(arch="encoder-layer", d_model=d, n_heads=h, d_ff=d_ff)
    total = _count(cfg)
    wrong = [
        Misconception("no-bias", "forgot the biases", "that is the count without the bias terms", _count(cfg.with_(bias=False)) + 4 * d),
        Misconception("no-norms", "forgot the LayerNorms", "each sublayer's LayerNorm adds 2·d_model", total - 4 * d),
        # Same number as forgetting the LayerNorms (4·d_model each): grading names both.
        Misconception("no-attention-bias", "forgot the attention biases",
                      "each of W_Q, W_K, W_V and W_O has a bias of d_model", total - 4 * d),
        Misconception("no-ffn", "forgot the FFN", "the feed-forward block holds most of the layer's parameters",
                      _count(cfg.with_(arch="mha")) + 4 * d),
        Misconception("d_k-is-d_model", "d_k = d_model", "that gives every head full-width projections",
                      _count(cfg.with_(d_head=d))),
    ]
    return Draft(
        prompt=(f"A Transformer encoder layer (as in Vaswani et al.) has $d_{{model}} = {d}$, $h = {h}$ heads and "
                f"$d_{{ff}} = {d_ff}$: self-attention with $W_Q, W_K, W_V, W_O$, a ReLU feed-forward block, two LayerNorms, "
                "and biases on every linear map. How many trainable parameters does it have?"),
        answer=total, verify=_measured(cfg), misconceptions=wrong, fmt=integer, unit=PARAMETERS,
        solution=[Step("Parts", "attention $4d^2 + 4d$, FFN $2 d\\,d_{ff} + d_{ff} + d$, two LayerNorms $2 \\cdot 2d$"),
                  _formula_step("Count", cfg, "N")],
        hints=["Attention, FFN, and two norms; every linear map has a bias.",
               "$4d^2 + 4d + 2 d\\,d_{ff} + d_{ff} + d + 4d$", f"$d = {d}$, $d_{{ff}} = {d_ff}$"],
    )


@template("params.decoder_layer", topic="params", kind="NAT", marks=2, difficulty=3,
          title="Parameters of a decoder layer with cross-attention",
          widened_as="params.decoder_layer_wide")
def decoder_layer(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    d, h = _width_for(chain, s)
    d_ff = s.choice((2, 4)) * d
    cfg = ModelConfig(arch="decoder-layer", d_model=d, n_heads=h, d_ff=d_ff)
    total = _count(cfg)
    attn = _count(cfg.with_(arch="mha"))
    wrong = [
        Misconception("no-cross-attention", "forgot cross-attention", "the decoder layer has a second attention block over the encoder output",
                      total - attn - 2 * d),
        Misconception("no-bias", "forgot the biases", "that is the count without the bias terms", _count(cfg.with_(bias=False)) + 6 * d),
        Misconception("two-norms", "used two norms", "with three sublayers there are three LayerNorms", total - 2 * d),
        Misconception("no-norms", "forgot the LayerNorms", "each of the three sublayers has a LayerNorm (2·d_model each)", total - 6 * d),
    ]
    return Draft(
        prompt=(f"A Transformer decoder layer of an encoder–decoder model has $d_{{model}} = {d}$, $h = {h}$ and $d_{{ff}} = {d_ff}$: "
                "masked self-attention, cross-attention over the encoder output, and a ReLU feed-forward block, each followed "
                "by a LayerNorm; every linear map has a bias. How many trainable parameters does the layer have?"),
        answer=total, verify=_measured(cfg), misconceptions=wrong, fmt=integer, unit=PARAMETERS,
        solution=[Step("Parts", "two attention blocks $2(4d^2 + 4d)$, FFN $2 d\\,d_{ff} + d_{ff} + d$, three LayerNorms $3 \\cdot 2d$"),
                  _formula_step("Count", cfg, "N")],
        hints=["Three sublayers: self-attention, cross-attention, FFN.", "$8d^2 + 8d + 2 d\\,d_{ff} + d_{ff} + d + 6d$",
               f"$d = {d}$, $d_{{ff}} = {d_ff}$"],
    )


@template("params.embeddings", topic="params", kind="NAT", marks=1, difficulty=1, title="Embeddings, tied and untied")
def embeddings(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    V = s.choice((30522, 32000, 50257, 32768, 65536, 100277, 128256))
    d = s.choice((512, 768, 1024, 2048, 4096))
    n_ctx = s.choice((0, 512, 1024, 2048))
    tied = s.chance(1, 2)
    positions = n_ctx * d
    total = V * d * (1 if tied else 2) + positions
    pos_text = (f"learned absolute position embeddings for $n_{{ctx}} = {n_ctx}$ positions" if n_ctx
                else "rotary position embeddings (no learned position table)")
    wrong = [
        Misconception("tied-counted-twice", "counted the tied head", "a tied output head reuses the token embedding matrix",
                      2 * V * d + positions) if tied else
        Misconception("untied-no-head", "forgot the output head", "an untied output head has its own V × d_model matrix",
                      V * d + positions),
        Misconception("no-position-table", "forgot the position table", "the learned position table adds n_ctx·d_model",
                      total - positions) if n_ctx else None,
        Misconception("vocab-squared", "used V × V", "embeddings map each token to a d_model vector: V × d_model", V * V),
        Misconception("head-bias", "added a head bias", "the output head here has no bias", total + V),
    ]
    return Draft(
        prompt=(f"A decoder-only language model has a vocabulary of $V = {tex_int(V)}$ tokens, $d_{{model}} = {d}$ and {pos_text}. "
                + ("Its output projection is tied to the token embedding matrix. " if tied else
                   "Its output projection (no bias) is a separate, untied matrix. ")
                + "How many parameters do the embeddings and the output projection hold together?"),
        answer=total, misconceptions=[m for m in wrong if m is not None], fmt=integer, unit=PARAMETERS,
        solution=[Step("Token embeddings", f"$V \\cdot d_{{model}} = {tex_int(V)} \\cdot {d} = {tex_int(V * d)}$"),
                  Step("Output head", "tied: no new parameters" if tied else f"untied: another ${tex_int(V * d)}$"),
                  Step("Positions", f"$n_{{ctx}} \\cdot d_{{model}} = {tex_int(positions)}$" if n_ctx else "RoPE has no parameters."),
                  Step("Total", f"$${tex_int(total)}$$")],
        hints=["Tying shares one matrix between input and output.", "$V d_{model}$ (×2 if untied) $+ n_{ctx} d_{model}$",
               f"$V = {tex_int(V)}$, $d_{{model}} = {d}$"],
    )


_NORMS = {"layernorm": "LayerNorm", "rmsnorm": "RMSNorm (a gain, no bias)"}
_ACTIVATIONS = {"gelu": "a GELU feed-forward block", "relu": "a ReLU feed-forward block",
                "swiglu": "a SwiGLU feed-forward block (three d_model × d_ff matrices)"}
_POSITIONS = {"learned": "learned absolute position embeddings", "rope": "rotary position embeddings (no parameters)",
              "sinusoidal": "sinusoidal position encodings (no parameters)"}


def architecture(cfg) -> str:
    """Everything a whole-model count depends on besides the sizes, as one sentence."""
    parts = [_ACTIVATIONS.get(cfg.activation, f"a {cfg.activation} feed-forward block"),
             _NORMS.get(cfg.norm, cfg.norm),
             "biases on every linear map" if cfg.bias else "no bias vectors in any linear map",
             _POSITIONS.get(cfg.positional, f"{cfg.positional} positions")]
    if cfg.arch == "bert":
        parts += [f"{cfg.n_token_types} segment embeddings", "a d_model × d_model pooler" if cfg.pooler else "no pooler",
                  "no output head counted"]
    else:
        parts.append("an output head tied to the token embeddings" if cfg.tied
                     else "a separate, untied output head without a bias")
    if cfg.n_kv_heads != cfg.n_heads:
        parts.append(f"{cfg.n_kv_heads} key/value heads")
    return "It uses " + ", ".join(parts[:-1]) + " and " + parts[-1] + "."


_MODEL_PRESETS = ("bert-base", "bert-large", "gpt2", "gpt2-medium", "gpt2-large", "gpt2-xl", "llama-7b")


@template("params.model", topic="params", kind="MCQ", marks=2, difficulty=2, title="Parameters of a whole model",
          fixed_fact="7 published models (params.scaled_model scales one by drawn factors)")
def whole_model(chain: SeedChain) -> Draft:
    from quizforge.reference.presets import get_preset

    name = chain.stream("params").choice(_MODEL_PRESETS)
    cfg = get_preset(name)
    return model_count_draft(f"**{name}** ({cfg.source or cfg.arch})", cfg)


def model_count_draft(who: str, cfg) -> Draft:
    """'Which is closest to its total?' for a whole model; `who` opens the prompt."""
    total = _count(cfg)
    millions = lambda x: f"{fixed(Fraction(x) / 10**6, 1)} M"  # noqa: E731
    layer_cfg = cfg
    per_layer = _per_layer(cfg)
    from quizforge.accounting.formulas import param_closed_form

    embeddings = param_closed_form(cfg).numbers()["embeddings"]
    wrong = [
        Misconception("untied-head", "counted the tied head", "the output head is tied to the token embeddings",
                      _count(cfg.with_(tied=False)) if cfg.tied and cfg.arch != "bert" else None),
        Misconception("no-embeddings", "left out the embeddings", "the embedding tables are parameters too",
                      total - embeddings),
        Misconception("forgot-layers", "forgot to multiply by the layers", "that counts one layer's weights once",
                      total - (cfg.n_layers - 1) * per_layer),
        Misconception("no-bias", "forgot the biases", "that is the count without the bias terms", _count(cfg.with_(bias=False))
                      if cfg.bias else None),
    ]
    desc = cfg.describe()
    facts = ", ".join(f"{k} = {v}" for k, v in desc.items() if k in ("n_layers", "d_model", "n_heads", "d_ff", "vocab_size", "max_len"))
    return Draft(
        prompt=(f"{who} has {facts}. {architecture(cfg)} "
                "Which is closest to its total number of trainable parameters?"),
        answer=total, verify=_measured(cfg), misconceptions=[m for m in wrong if m.value], fmt=millions, rel_tol=0.02,
        fallback=lambda st: total * st.choice((0.5, 0.7, 1.4, 2.0, 3.0)),
        solution=[_formula_step("Count", layer_cfg, "N"),
                  Step("In millions", f"$${tex_int(total)} \\approx {fixed(Fraction(total, 10**6), 1).replace(',', '{,}')}\\,\\mathrm{{M}}$$")],
        hints=(["Per layer: attention $4d^2$ plus a SwiGLU FFN $3 d\\,d_{ff}$, no biases; then the embeddings and the head.",
                "$L(4d^2 + 3 d\\,d_{ff} + 2d) + 2 V d + d$"] if cfg.activation == "swiglu" else
               ["Per layer ≈ $12 d^2$; then add the embeddings.", "$L(12d^2 + \\ldots) + V d + n_{ctx} d$"])
              + [f"$L = {cfg.n_layers}$, $d = {cfg.d_model}$"],
    )


_GPT3_ROWS = ("gpt3-small", "gpt3-medium", "gpt3-large", "gpt3-xl", "gpt3-2.7b", "gpt3-6.7b", "gpt3-13b", "gpt3-175b")
# Table 2.1 of Brown et al. (2020) as printed: n_layers, d_model, n_heads, d_head.
_GPT3_TABLE = {"gpt3-small": (12, 768, 12, 64), "gpt3-medium": (24, 1024, 16, 64), "gpt3-large": (24, 1536, 16, 96),
               "gpt3-xl": (24, 2048, 24, 128), "gpt3-2.7b": (32, 2560, 32, 80), "gpt3-6.7b": (32, 4096, 32, 128),
               "gpt3-13b": (40, 5140, 40, 128), "gpt3-175b": (96, 12288, 96, 128)}
BILLIONS = Unit("billions", "count", 10**9, ("billions",), after_number="billion")


def _table_note(name: str, cfg) -> str:
    """Where the table as printed differs from the model counted, and what to count with."""
    L, d, h, d_head = _GPT3_TABLE[name]
    if d != cfg.d_model:
        return (f" The table prints $d_{{model}} = {d}$, but its {h} heads of $d_{{head}} = {d_head}$ make "
                f"${h * d_head}$, the width used here: count with $d_{{model}} = {cfg.d_model}$.")
    if h * d_head != d:
        return (f" The table's {h} heads of $d_{{head}} = {d_head}$ cannot tile $d_{{model}} = {d}$ (the model counted here "
                f"uses {cfg.n_heads} heads of {cfg.d_model // cfg.n_heads}); the number of heads does not change the count.")
    return ""


@template("params.gpt3_table", topic="params", kind="NAT", marks=2, difficulty=3,
          title="Verify a GPT-3 model size from its table",
          fixed_fact="the table's 8 rows: 8 questions (params.gpt3_shaped draws a model in GPT-3's shape)")
def gpt3_table(chain: SeedChain) -> Draft:
    from quizforge.reference.presets import PRESETS

    rows = [r for r in _GPT3_ROWS if r in PRESETS]
    name = chain.stream("params").choice(rows)
    cfg = PRESETS[name]
    total = _count(cfg)
    L, d = cfg.n_layers, cfg.d_model
    _, printed_d, printed_h, printed_d_head = _GPT3_TABLE[name]
    approx = 12 * L * d * d
    wrong = [
        Misconception("12Ld2-only", "left out the embeddings", "that is 12·L·d² alone, without the token and position embeddings",
                      approx),
        Misconception("attention-only", "counted attention only", "4·L·d² is only the attention projections; the FFN adds 8·L·d²",
                      4 * L * d * d),
        Misconception("forgot-layers", "forgot to multiply by the layers", "that is one layer plus the embeddings",
                      total - (L - 1) * _per_layer(cfg)),
        # The exact count is asked so that each forgotten part shows (2·d_model for the final norm alone).
        Misconception("no-bias", "forgot the biases", "that is the count without the bias vectors of the linear maps",
                      _count(cfg.with_(bias=False))),
        Misconception("no-norms", "forgot the LayerNorms", "every layer has two LayerNorms, and one more follows the last "
                      "layer, each with a gain and a bias of d_model", total - (2 * L + 1) * 2 * d),
        Misconception("no-final-norm", "forgot the final LayerNorm", "GPT-2's layout ends with one more LayerNorm (2·d_model)",
                      total - 2 * d),
    ]
    return Draft(
        prompt=(f"The GPT-3 paper's table lists **{name}** with $n_{{layers}} = {L}$, $d_{{model}} = {printed_d}$, "
                f"$n_{{heads}} = {printed_h}$ and $d_{{head}} = {printed_d_head}$; all its models have $d_{{ff}} = 4 d_{{model}}$, "
                f"a vocabulary of $V = {tex_int(cfg.vocab_size)}$ and a context of $n_{{ctx}} = {cfg.max_len}$ (learned positions, "
                f"tied output head, biases and LayerNorms as in GPT-2).{_table_note(name, cfg)} "
                "How many trainable parameters does it have? Count exactly."),
        answer=total, verify=_measured(cfg), misconceptions=merge_coinciding(wrong), fmt=integer, unit=PARAMETERS,
        solution=[Step("Rule of thumb", f"$12 L d^2 = 12 \\cdot {L} \\cdot {d}^2 = {tex_int(approx)}$"),
                  _formula_step("Exact count", cfg, "N"),
                  Step("In billions", f"$${tex_int(total)} \\approx {fixed(Fraction(total, 10**9), 2)} \\times 10^9$$")],
        hints=["Each layer has ≈ 12·d² weights: 4d² attention + 8d² FFN.", "$12 L d^2 + 13 L d + (V + n_{ctx}) d + 2d$",
               f"$L = {L}$, $d = {d}$"],
    )
