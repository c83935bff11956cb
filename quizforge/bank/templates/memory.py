"""Memory: the attention-score matrix, the KV cache, and what MQA and GQA save."""

from __future__ import annotations

from quizforge.bank.question import Misconception, Step, Unit
from quizforge.bank.seeds import SeedChain, widened
from quizforge.bank.steps import (closed_form, decimal, equals_sign, fixed, places_to_separate, plural, rounded,
                                  tex_fixed, tex_int)
from quizforge.bank.template import Draft, template

DTYPE_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2}
MiB, GiB = 2**20, 2**30


@template("memory.attention_scores", topic="memory", kind="NAT", marks=1, difficulty=2,
          title="Memory of the attention-score matrix")
def attention_scores(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    B, h = s.choice((1, 2, 4, 8, 16)), s.choice((8, 12, 16, 32))
    n = s.choice((512, 1024, 2048, 4096, 8192))
    d = s.choice((768, 1024, 2048))
    dtype = s.choice(("fp16", "fp32"))
    size = DTYPE_BYTES[dtype]
    entries = B * h * n * n
    mib = entries * size / MiB
    # Fine enough to tell MiB from MB (4.9% apart) and every other listed mistake from the key.
    places = places_to_separate(mib, 0.0486, 2)
    other = 4 if size == 2 else 2
    wrong = [
        Misconception("wrong-dtype-bytes", "used the wrong dtype size",
                      f"that uses {other} bytes per entry; {dtype} takes {size}", entries * other / MiB),
        Misconception("forgot-heads", "forgot the heads", "every head has its own n × n matrix", entries * size / h / MiB),
        Misconception("n-times-d", "used n·d", "the scores are n × n per head; n × d is the size of Q, K or V",
                      B * n * d * size / MiB),
        Misconception("decimal-megabytes", "used MB, not MiB", "1 MiB is 2²⁰ bytes, not 10⁶", entries * size / 1e6),
    ]
    return Draft(
        prompt=(f"A standard (not FlashAttention) implementation materializes the attention weights of one layer for a batch of "
                f"$B = {B}$ {plural(B, 'sequence')} of $n = {n}$ tokens, with $h = {h}$ heads and $d_{{model}} = {d}$, stored in {dtype}. "
                f"How much memory do those weights take, in MiB? Give the answer to {places} decimal places."),
        answer=rounded(mib, places), exact=mib, decimals=places, unit=Unit("MiB", "bytes", MiB), misconceptions=wrong, fmt=decimal(places),
        solution=[Step("Entries", f"$B \\cdot h \\cdot n^2 = {B} \\cdot {h} \\cdot {n}^2 = {tex_int(entries)}$"),
                  Step("Bytes", f"${tex_int(entries)} \\cdot {size} = {tex_int(entries * size)}$ bytes"),
                  Step("MiB", f"$${tex_int(entries * size)} / 2^{{20}} {equals_sign(mib, places)} {tex_fixed(mib, places)}\\,\\mathrm{{MiB}}$$")],
        hints=["One n × n matrix per head and per sequence; d_model does not enter.", "$B h n^2 \\times$ bytes per entry",
               f"{dtype}: {size} bytes"],
    )


def batch_words(batch: int, ctx: int) -> str:
    """'a batch of 4 sequences, each with 512 cached positions', or one sequence said plainly."""
    if batch == 1:
        return f"a single sequence of {ctx} cached positions"
    return f"a batch of {batch} sequences, each with {ctx} cached positions"


def _kv_config(stream):
    from quizforge.reference.presets import get_preset

    name = stream.choice(("gpt2", "gpt2-medium", "gpt2-xl", "gpt3-6.7b", "llama-7b", "llama2-70b", "gpt3-13b"))
    return get_preset(name)


@template("memory.kv_cache", topic="memory", kind="NAT", marks=2, difficulty=2, title="KV-cache size")
def kv_cache(chain: SeedChain) -> Draft:
    from quizforge.accounting.formulas import B as B_sym, bytes_per, evaluate, kv_cache_bytes_expr, n as n_sym, symbol_values

    s = chain.stream("params")
    cfg = _kv_config(s)
    batch = s.choice((1, 4, 8, 16, 32))
    ctx = s.choice([c for c in (512, 1024, 2048, 4096) if c <= cfg.max_len])
    dtype = s.choice(("fp16", "bf16", "fp32"))
    size = DTYPE_BYTES[dtype]
    expr = kv_cache_bytes_expr(cfg)
    values = symbol_values(cfg) | {B_sym: batch, n_sym: ctx, bytes_per: size}

    total = evaluate(expr, values)
    gib = total / GiB
    # Fine enough to tell GiB from GB (7.4% apart) and every other listed mistake from the key.
    places = places_to_separate(gib, 0.0737, 2)
    other = 4 if size == 2 else 2
    wrong = [
        Misconception("kv-forgot-2", "forgot K or V", "that stores only the keys or only the values; the cache holds both", gib / 2),
        Misconception("wrong-dtype-bytes", "used the wrong dtype size", f"that uses {other} bytes per number; {dtype} takes {size}",
                      gib * other / size),
        Misconception("forgot-layers", "forgot to multiply by the layers", "every layer caches its own K and V", gib / cfg.n_layers),
        Misconception("kv-used-h", "used all query heads", "with GQA only the h_kv key/value heads are cached",
                      gib * cfg.n_heads / cfg.n_kv_heads) if cfg.n_kv_heads != cfg.n_heads else
        Misconception("decimal-gigabytes", "used GB, not GiB", "1 GiB is 2³⁰ bytes, not 10⁹", total / 1e9),
    ]
    gqa = ("" if cfg.n_kv_heads == cfg.n_heads else
           ", multi-query attention with a single key/value head" if cfg.n_kv_heads == 1 else
           f", grouped-query attention with $h_{{kv}} = {cfg.n_kv_heads}$ key/value heads")
    def measure() -> float:
        from quizforge.accounting.measure import measure_kv_cache_bytes

        return rounded(measure_kv_cache_bytes(cfg, batch, ctx, dtype) / GiB, places)

    return Draft(
        verify=measure,
        prompt=(f"**{cfg.name}** has $L = {cfg.n_layers}$ layers, $d_{{model}} = {cfg.d_model}$ and $h = {cfg.n_heads}$ heads of size "
                f"$d_{{head}} = {cfg.d_head}${gqa}. During generation with {batch_words(batch, ctx)}, how large is the KV cache in {dtype}, in GiB? Give the answer to {places} decimal places."),
        answer=rounded(gib, places), exact=gib, decimals=places, unit=Unit("GiB", "bytes", GiB), misconceptions=wrong, fmt=decimal(places),
        solution=[closed_form("Bytes", expr, values, total, lhs="M"),
                  Step("GiB", f"$${tex_int(total)} / 2^{{30}} {equals_sign(gib, places)} {fixed(gib, places)}\\,\\mathrm{{GiB}}$$")],
        hints=["K and V, for every layer, sequence, position and KV head.", "$2 L B n h_{kv} d_{head} \\times$ bytes",
               f"$L = {cfg.n_layers}$, $h_{{kv}} d_{{head}} = {cfg.n_kv_heads * cfg.d_head}$"],
    )


@template("memory.kv_reduction", topic="memory", kind="NAT", marks=1, difficulty=1, title="What MQA and GQA save",
          widened_as="memory.kv_reduction_wide")
def kv_reduction(chain: SeedChain) -> Draft:
    wide = widened(chain)
    s = wide or chain.stream("params")
    h = s.choice((12, 16, 32, 40, 48, 64, 96) if wide is None else range(8, 161, 4))
    h_kv = s.choice([g for g in ((1, 2, 4, 8) if wide is None else range(1, h)) if h % g == 0 and g < h])
    factor = h // h_kv
    scheme = "multi-query attention (MQA, a single key/value head)" if h_kv == 1 else f"grouped-query attention with {h_kv} key/value heads"
    wrong = [
        Misconception("gqa-inverted", "inverted the ratio", "that is h_kv/h: the cache shrinks, so the factor is h/h_kv",
                      rounded(h_kv / h, 4)),
        Misconception("kv-halved", "halved it", "sharing K and V heads divides the cache by h/h_kv, not by 2", 2)
        if factor != 2 else None,
        Misconception("gqa-difference", "subtracted heads", "the cache scales with the number of KV heads: it is a ratio",
                      h - h_kv),
    ]
    return Draft(
        prompt=(f"A model with $h = {h}$ attention heads switches from multi-head attention to {scheme}, keeping $d_{{head}}$, "
                "the layers and everything else the same. By what factor does the KV cache shrink?"),
        answer=factor, unit=Unit("", "none", 1, ("x", "times")), misconceptions=[m for m in wrong if m is not None and m.value != factor], fmt=lambda x: f"{x:g}",
        solution=[Step("Cache size", "$M = 2 L B n\\, h_{kv} d_{head} \\cdot \\text{bytes}$ is proportional to $h_{kv}$."),
                  Step("Factor", f"$$\\frac{{h}}{{h_{{kv}}}} = \\frac{{{h}}}{{{h_kv}}} = {factor}$$")],
        hints=["Only the number of cached key/value heads changes.", "$h / h_{kv}$", f"$h = {h}$, $h_{{kv}} = {h_kv}$"],
    )
