"""FLOPs: QKᵀ and A·V, projections, one layer, training (6ND), attention against RNNs, training time.

FLOPs count 2 per multiply-add, as the accounting module and FlopCounterMode do.
"""

from __future__ import annotations

from fractions import Fraction

from quizforge.bank.question import Misconception, Step, Unit
from quizforge.bank.seeds import SeedChain, widened
from quizforge.bank.steps import (closed_form, decimal, equals_sign, fixed, integer, places_to_separate, plural, rounded,
                                  sci, sci_result, scientific, tex_fixed, tex_int)
from quizforge.bank.template import Draft, template

FLOPS = Unit("FLOPs", "flops", 1, ("FLOPs", "FLOP"))
RATIO = Unit("", "none", 1, ("x", "times"))
DAYS = Unit("days", "time", 86400)       # 4.8 days, 4.8 d, 115.2 hours
WIDTHS = ((512, 8), (768, 12), (1024, 16), (1280, 20), (2048, 16), (4096, 32))
SEQ_LENS = (128, 256, 512, 1024, 2048, 4096)


def _forward(cfg, batch: int, seq_len: int):
    from quizforge.accounting.formulas import forward_flop_closed_form

    return forward_flop_closed_form(cfg, batch, seq_len)


def _measured_forward(cfg, batch: int, seq_len: int, component: str | None = None):
    """Forward FLOPs counted by FlopCounterMode while the reference model runs on meta."""
    def measure() -> int:
        from quizforge.accounting.measure import measure_flops

        breakdown = measure_flops(cfg, batch, seq_len).forward
        return breakdown[component] if component else sum(breakdown.values())
    return measure


def _measured_scores(B: int, h: int, n: int, d_k: int, d_v: int, which: str):
    """FLOPs of one of the reference attention's two products, counted while it runs on meta.

    With Q, K and V all as wide as the asked product's width, QKᵀ and A·V cost the
    same, so the asked one is half of what the counter sees.
    """
    def measure() -> int:
        import torch
        from torch.utils.flop_counter import FlopCounterMode

        from quizforge.reference.attention import scaled_dot_product_attention

        width = d_k if which == "qk" else d_v
        q, k, v = (torch.empty(B, h, n, width, device="meta") for _ in range(3))
        with FlopCounterMode(display=False) as counter:
            scaled_dot_product_attention(q, k, v)
        return counter.get_total_flops() // 2
    return measure


def _score_product(chain: SeedChain, which: str) -> Draft:
    s = chain.stream("params")
    B, h = s.choice((1, 2, 4, 8)), s.choice((1, 8, 12, 16))
    n = s.choice((64, 128, 256, 512, 1024))
    d_k = s.choice((32, 64, 128))
    d_v = d_k if which == "qk" else s.choice([x for x in (32, 64, 96, 128) if x != d_k])
    inner = d_k if which == "qk" else d_v
    flops = 2 * B * h * n * n * inner
    product = "$QK^\\top$ (the raw scores)" if which == "qk" else "$AV$ (the weights $A$ times the values)"
    heads = "one head" if h == 1 else f"$h = {h}$ heads"
    wrong = [
        Misconception("macs-not-flops", "counted multiply-adds", "that counts multiply-adds; each is 2 FLOPs", flops // 2),
        Misconception("forgot-heads", "forgot the heads", "every head computes its own product", flops // h) if h > 1 else None,
        Misconception("n-d-squared", "swapped n and d", "the product is n×d times d×n: its cost grows with n², not d²",
                      2 * B * h * n * inner * inner),
        Misconception("av-used-d_k", "used d_k", "A·V's inner size is n and its output width is d_v", 2 * B * h * n * n * d_k)
        if which == "av" else None,
        Misconception("forgot-batch", "forgot the batch", "each sequence in the batch is a separate product", flops // B)
        if B > 1 else None,
    ]
    shapes = (f"$({n} \\times {d_k}) \\cdot ({d_k} \\times {n})$" if which == "qk"
              else f"$({n} \\times {n}) \\cdot ({n} \\times {d_v})$")
    return Draft(
        prompt=(f"Self-attention runs on a batch of $B = {B}$ {plural(B, 'sequence')} of $n = {n}$ tokens with {heads}, "
                f"$d_k = {d_k}$ and $d_v = {d_v}$. Counting 2 FLOPs per multiply-add, how many FLOPs does computing "
                f"{product} take, over all heads and the whole batch?"),
        answer=flops, misconceptions=[m for m in wrong if m is not None], fmt=integer, unit=FLOPS,
        verify=_measured_scores(B, h, n, d_k, d_v, which),
        solution=[Step("One head, one sequence", f"{shapes}: ${n} \\cdot {n} \\cdot {inner}$ multiply-adds, "
                                                 f"$2 \\cdot {n}^2 \\cdot {inner} = {tex_int(2 * n * n * inner)}$ FLOPs."),
                  Step("All heads and sequences", f"$$2 B h n^2 \\cdot {'d_k' if which == 'qk' else 'd_v'} = "
                                                  f"2 \\cdot {B} \\cdot {h} \\cdot {n}^2 \\cdot {inner} = {tex_int(flops)}$$")],
        hints=["A product of (a×b) and (b×c) is a·b·c multiply-adds.", "$2 B h n^2 d$",
               f"$n = {n}$, inner size ${inner}$"],
    )


@template("flops.qk", topic="flops", kind="NAT", marks=1, difficulty=1, title="FLOPs of QKᵀ")
def qk_flops(chain: SeedChain) -> Draft:
    return _score_product(chain, "qk")


@template("flops.av", topic="flops", kind="NAT", marks=1, difficulty=2, title="FLOPs of A·V")
def av_flops(chain: SeedChain) -> Draft:
    return _score_product(chain, "av")


@template("flops.projections", topic="flops", kind="NAT", marks=2, difficulty=2, title="FLOPs of the attention projections")
def projection_flops(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    d, h = s.choice(WIDTHS)
    B, n = s.choice((1, 2, 4, 8)), s.choice(SEQ_LENS)
    cfg = ModelConfig(arch="mha", d_model=d, n_heads=h, bias=False)
    form = _forward(cfg, B, n)
    expr = form.components["attention_proj"]
    flops = form.evaluate(expr)
    wrong = [
        Misconception("macs-not-flops", "counted multiply-adds", "that counts multiply-adds; each is 2 FLOPs", flops // 2),
        Misconception("no-output-proj", "forgot W_O", "the output projection W_O is a fourth d×d product", flops * 3 // 4),
        Misconception("forgot-batch", "forgot the batch", "every sequence in the batch is projected", flops // B) if B > 1 else None,
        Misconception("per-head-full-width", "d_k = d_model per head", "the heads split d_model; they don't each project it fully",
                      flops * h),
    ]
    return Draft(
        verify=_measured_forward(cfg, B, n, "attention_proj"),
        prompt=(f"A self-attention layer with $d_{{model}} = {d}$ and $h = {h}$ heads processes $B = {B}$ {plural(B, 'sequence')} of "
                f"$n = {n}$ tokens. Counting 2 FLOPs per multiply-add and ignoring biases, how many FLOPs do the four "
                "projections $W_Q, W_K, W_V, W_O$ take in the forward pass?"),
        answer=flops, misconceptions=[m for m in wrong if m is not None], fmt=integer, unit=FLOPS,
        solution=[Step("Per projection", "$B n$ tokens, each a $d_{model} \\times d_{model}$ product: $2 B n d^2$ FLOPs."),
                  closed_form("Four projections", expr, form.values, flops, lhs="F")],
        hints=["Each token is multiplied by four d×d matrices.", "$8 B n d_{model}^2$", f"$B n = {B * n}$, $d = {d}$"],
    )


@template("flops.layer", topic="flops", kind="NAT", marks=2, difficulty=3, title="Forward FLOPs of one encoder layer")
def layer_flops(chain: SeedChain) -> Draft:
    from quizforge.reference.config import ModelConfig

    s = chain.stream("params")
    d, h = s.choice(WIDTHS)
    B, n = s.choice((1, 2, 4)), s.choice(SEQ_LENS)
    cfg = ModelConfig(arch="encoder-layer", d_model=d, n_heads=h, d_ff=4 * d)
    form = _forward(cfg, B, n)
    parts = form.numbers()
    flops = form.total
    wrong = [
        Misconception("macs-not-flops", "counted multiply-adds", "that counts multiply-adds; each is 2 FLOPs", flops // 2),
        Misconception("forgot-scores", "forgot QKᵀ and A·V", "the score products add 4·B·n²·d", flops - parts["attention_scores"]),
        Misconception("forgot-ffn", "forgot the FFN", "the feed-forward block is 2/3 of the linear work", flops - parts["ffn"]),
        Misconception("forgot-batch", "forgot the batch", "every sequence in the batch runs through the layer", flops // B)
        if B > 1 else None,
    ]
    return Draft(
        verify=_measured_forward(cfg, B, n),
        prompt=(f"A Transformer encoder layer has $d_{{model}} = {d}$, $h = {h}$ and $d_{{ff}} = {4 * d}$. Counting only matrix "
                f"products, at 2 FLOPs per multiply-add, how many FLOPs does its forward pass take on $B = {B}$ {plural(B, 'sequence')} "
                f"of $n = {n}$ tokens?"),
        answer=flops, misconceptions=[m for m in wrong if m is not None], fmt=integer, unit=FLOPS,
        solution=[Step("Parts", f"projections ${tex_int(parts['attention_proj'])}$, scores and $AV$ ${tex_int(parts['attention_scores'])}$, "
                                f"FFN ${tex_int(parts['ffn'])}$"),
                  closed_form("Total", form.total_expr, form.values, flops, lhs="F")],
        hints=["Projections, QKᵀ and AV, then the FFN's two matrices.", "$8Bnd^2 + 4Bn^2d + 4Bnd\\,d_{ff}$",
               f"$B = {B}$, $n = {n}$, $d = {d}$"],
    )


_MODELS = ((125e6, "125M"), (350e6, "350M"), (1.3e9, "1.3B"), (6.7e9, "6.7B"), (7e9, "7B"), (13e9, "13B"),
           (70e9, "70B"), (175e9, "175B"))
_TOKENS = ((300e9, "300B"), (1e12, "1T"), (1.4e12, "1.4T"), (2e12, "2T"), (15e12, "15T"))


@template("flops.training", topic="flops", kind="NAT", marks=1, difficulty=1, title="Training compute: 6·N·D",
          widened_as="flops.training_wide")
def training_compute(chain: SeedChain) -> Draft:
    import sympy as sp

    from quizforge.accounting.formulas import six_nd_expr

    wide = widened(chain)
    s = wide or chain.stream("params")
    if wide is None:
        N, n_name = s.choice(_MODELS)
        D, d_name = s.choice(_TOKENS)
    else:       # any size from 0.5B to 200B in steps of 0.5B, any dataset from 0.5T to 20T
        billions, trillions = Fraction(s.integer(1, 400), 2), Fraction(s.integer(1, 40), 2)
        N, n_name = float(billions * 10**9), f"{float(billions):g}B"
        D, d_name = float(trillions * 10**12), f"{float(trillions):g}T"
    Ns, Ds = sp.Symbol("N", positive=True), sp.Symbol("D", positive=True)
    expr = six_nd_expr(Ns, Ds)
    total = float(expr.subs({Ns: N, Ds: D}))
    wrong = [
        Misconception("forward-only", "counted only the forward pass", "2·N·D is the forward pass; backward doubles it again (6·N·D)",
                      2 * N * D),
        Misconception("backward-only", "counted only the backward pass", "4·N·D is the backward pass; add the forward 2·N·D",
                      4 * N * D),
        Misconception("macs-not-flops", "counted multiply-adds", "3·N·D counts multiply-adds; each is 2 FLOPs", 3 * N * D),
    ]
    return Draft(
        prompt=(f"Using the standard approximation, how many FLOPs does training a {n_name}-parameter dense transformer on "
                f"{d_name} tokens take? (Give it to 3 significant figures, as in `3.15e21`; answers within 1% are accepted.)"),
        answer=total, rel_tol=0.01, unit=FLOPS, misconceptions=wrong, fmt=scientific,
        solution=[Step("Per token", "forward $2N$ (one multiply-add per parameter), backward $4N$ (gradients for activations "
                                    "and for weights): $6N$ FLOPs per token."),
                  Step("Total", f"$$6 N D = 6 \\cdot {sci(N)} \\cdot {sci(D)} {sci_result(total)}$$")],
        hints=["Forward is 2 FLOPs per parameter per token; backward is twice the forward.", "$C \\approx 6ND$",
               f"$N = {sci(N)}$, $D = {sci(D)}$"],
    )


@template("flops.rnn_vs_attention", topic="flops", kind="NAT", marks=1, difficulty=2,
          title="Self-attention against a recurrent layer",
          widened_as="flops.rnn_vs_attention_wide")
def rnn_vs_attention(chain: SeedChain) -> Draft:
    wide = widened(chain)
    s = wide or chain.stream("params")
    d = s.choice((128, 256, 512, 1024, 2048)) if wide is None else 64 * s.integer(1, 64)
    n = s.choice((32, 64, 128, 256, 512, 1024, 4096, 8192)) if wide is None else 32 * s.integer(1, 256)
    while n == d:
        n = s.choice((32, 64, 128, 4096, 8192))
    ratio = Fraction(n, d)
    wrong = [
        Misconception("ratio-inverted", "inverted the ratio", "that is the RNN's cost over self-attention's", Fraction(d, n)),
        Misconception("ratio-squared", "squared the ratio", "the costs are n²·d and n·d²: their ratio is n/d, not (n/d)²", ratio ** 2),
        Misconception("ratio-n-squared", "compared n² with d", "both costs share a factor n·d; what remains is n against d", Fraction(n * n, d)),
    ]
    return Draft(
        prompt=(f"Per layer, self-attention costs $\\mathcal{{O}}(n^2 \\cdot d)$ operations and a recurrent layer "
                f"$\\mathcal{{O}}(n \\cdot d^2)$. Taking the constants as equal, with $n = {n}$ tokens and $d = {d}$, what is the "
                "ratio of self-attention's cost to the recurrent layer's? Give it to 2 decimal places."),
        answer=rounded(ratio, 2), exact=ratio, decimals=2, unit=RATIO, misconceptions=[m for m in wrong if m.value < 1e7], fmt=decimal(2),
        solution=[Step("Ratio", f"$$\\frac{{n^2 d}}{{n d^2}} = \\frac{{n}}{{d}} = \\frac{{{n}}}{{{d}}} "
                                f"{equals_sign(ratio, 2)} {fixed(ratio, 2)}$$"),
                  Step("Reading it", "self-attention is cheaper than a recurrent layer while $n < d$, "
                                     + ("as here." if n < d else "which is not the case here."))],
        hints=["Cancel the common factor n·d.", "$n/d$", f"$n = {n}$, $d = {d}$"],
    )


_GPUS = (("A100", 312), ("H100", 989))


@template("flops.training_days", topic="flops", kind="NAT", marks=2, difficulty=3, title="Training time from throughput and MFU")
def training_days(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    N, n_name = s.choice(_MODELS[2:])
    D, d_name = s.choice(_TOKENS)
    gpu, peak_tflops = s.choice(_GPUS)
    count = s.choice((256, 512, 1024, 2048, 4096))
    mfu = s.choice((0.3, 0.35, 0.4, 0.45, 0.5))
    flops = 6 * N * D
    per_second = count * peak_tflops * 1e12 * mfu
    seconds = Fraction(int(flops)) / (count * peak_tflops * 10**12 * Fraction(str(mfu)))
    days = seconds / 86400
    # Short runs get more decimal places, so that neither 0 nor a listed mistake (a third
    # of the key, or MFU times it) lands in the accepted range.
    places = places_to_separate(days, 0.5, 1)
    wrong = [
        Misconception("forgot-mfu", "ignored the MFU", "at 100% utilization; real throughput is peak × MFU", days * Fraction(str(mfu))),
        Misconception("forward-only", "used 2·N·D", "training is 6·N·D, not the forward pass's 2·N·D", days / 3),
        Misconception("hours-not-days", "gave hours", "that is the time in hours; divide by 24", days * 24),
        Misconception("divided-by-mfu-twice", "applied MFU the wrong way", "multiply peak throughput by MFU; don't divide by it",
                      days * Fraction(str(mfu)) ** 2),
    ]
    return Draft(
        prompt=(f"A {n_name}-parameter model is trained on {d_name} tokens using {count:,} {gpu} GPUs, each with a peak of "
                f"{peak_tflops} TFLOP/s in bf16, at a model FLOPs utilization (MFU) of {mfu:.0%}. Using $6ND$ for the training "
                f"compute, how many days does training take? Give the answer to {places} {plural(places, 'decimal place')}."),
        answer=rounded(days, places), exact=days, decimals=places, unit=DAYS, misconceptions=wrong, fmt=decimal(places),
        solution=[Step("Compute", f"$6ND = 6 \\cdot {sci(N)} \\cdot {sci(D)} {sci_result(flops)}$ FLOPs"),
                  Step("Throughput", f"${count} \\cdot {peak_tflops} \\times 10^{{12}} \\cdot {mfu} {sci_result(per_second)}$ FLOP/s"),
                  Step("Time", f"$${sci(flops)} / {sci(per_second)} \\approx {tex_fixed(seconds, 0)}\\,\\mathrm{{s}} "
                               f"{equals_sign(days, places)} {fixed(days, places)}$$ days")],
        hints=["Time = compute ÷ achieved throughput.", "$t = 6ND / (G \\cdot P \\cdot \\mathrm{MFU})$",
               f"$G = {count}$, $P = {peak_tflops}$ TFLOP/s"],
    )
