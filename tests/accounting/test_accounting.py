"""Every figure twice: measured on the reference model and from the sympy closed form.

Published counts are the checkpoints' own; hand-derived FLOPs and cache sizes are
written out so a wrong formula and a wrong model cannot agree by accident.
"""

import pytest
import sympy as sp

from quizforge.accounting import formulas, measure
from quizforge.accounting.reports import (
    attention_scores_report,
    flops_report,
    kv_cache_report,
    params_report,
)
from quizforge.errors import InputError
from quizforge.reference.config import ModelConfig
from quizforge.reference.presets import PRESETS, get_preset

def test_torch_encoder_layer_count():
    cfg = ModelConfig(arch="encoder-layer", d_model=512, n_heads=8, d_ff=2048)
    report = params_report(cfg)
    assert report.total == 3_152_384
    assert report.breakdown() == {"attention": 4 * 512 * 512 + 4 * 512,
                                  "ffn": 2 * 512 * 2048 + 2048 + 512, "norms": 4 * 512}


def test_gpt3_family_matches_table_2_1():
    """Brown et al. quote rounded sizes; our exact counts must round to them."""
    quoted = {"gpt3-small": 125e6, "gpt3-medium": 350e6, "gpt3-large": 760e6, "gpt3-xl": 1.3e9,
              "gpt3-2.7b": 2.7e9, "gpt3-6.7b": 6.7e9, "gpt3-13b": 13.0e9, "gpt3-175b": 175.0e9}
    for name, size in quoted.items():
        total = params_report(get_preset(name)).total
        assert abs(total - size) / size < 0.025, (name, total)
    assert params_report(get_preset("gpt3-175b")).total == 174_604_259_328


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_measured_equals_closed_form(name):
    cfg = PRESETS[name]
    closed = formulas.param_closed_form(cfg).numbers()
    measured = measure.measure_params(cfg)
    assert {k: v for k, v in closed.items() if v} == measured


def _small_configs():
    for arch in ("mha", "ffn", "layernorm", "rmsnorm", "encoder-layer", "decoder-layer"):
        for kv, bias, act in ((4, True, "relu"), (2, False, "swiglu"), (1, True, "gelu")):
            yield ModelConfig(arch=arch, d_model=32, n_heads=4, n_kv_heads=kv, d_ff=48, bias=bias,
                              activation=act)
    yield ModelConfig(arch="gpt", d_model=32, n_heads=4, n_kv_heads=2, d_ff=64, n_layers=2,
                      vocab_size=97, max_len=40, tied=False)
    yield ModelConfig(arch="llama", d_model=32, n_heads=4, n_kv_heads=1, d_ff=48, n_layers=3,
                      vocab_size=97, max_len=40)
    yield ModelConfig(arch="bert", d_model=32, n_heads=4, d_ff=64, n_layers=2, vocab_size=97,
                      max_len=40, n_token_types=2, pooler=True)
    yield ModelConfig(arch="encoder-decoder", d_model=32, n_heads=4, d_ff=64, n_layers=2,
                      n_decoder_layers=3, vocab_size=97, max_len=40, norm_first=True, tied=False)
    yield ModelConfig(arch="encoder-decoder", d_model=32, n_heads=4, d_ff=64, n_layers=1,
                      vocab_size=97, max_len=40, positional="learned")
    yield ModelConfig(arch="bert", d_model=32, n_heads=4, d_ff=64, n_layers=2, vocab_size=97,
                      positional="rope", n_token_types=2)
    # d_head set explicitly, so h·d_head differs from d_model
    yield ModelConfig(arch="gpt", d_model=32, n_heads=3, d_head=16, d_ff=64, n_layers=2,
                      vocab_size=97, max_len=40)


SMALL = list(_small_configs())


@pytest.mark.parametrize("cfg", SMALL, ids=lambda c: f"{c.arch}-kv{c.n_kv_heads}-{c.activation}-{c.positional}")
def test_small_configs_agree_on_every_figure(cfg):
    params_report(cfg)  # raises AccountingMismatch on any disagreement
    flops = flops_report(cfg, seq_len=12, batch=3)
    assert flops.extras["training"] == 3 * flops.total
    attention_scores_report(cfg, seq_len=12, batch=3)
    if cfg.arch in ("gpt", "llama", "encoder-decoder", "decoder-layer"):
        kv_cache_report(cfg, seq_len=12, batch=3, dtype="bf16")


def test_mha_flops_by_hand():
    # B=2, n=10, d=64, h=8: projections 4 · 2·B·n·d·d, scores 2 · 2·B·h·n·n·d_k
    report = flops_report(ModelConfig(arch="mha", d_model=64, n_heads=8), seq_len=10, batch=2)
    assert report.breakdown() == {"attention_proj": 4 * 2 * 2 * 10 * 64 * 64,
                                  "attention_scores": 2 * 2 * 2 * 8 * 10 * 10 * 8}
    assert report.total == 655_360 + 51_200


def test_gpt2_forward_flops_by_hand():
    B, n, d, L, f, V = 1, 1024, 768, 12, 3072, 50257
    expected = L * (8 * B * n * d * d + 4 * B * n * n * d + 4 * B * n * d * f) + 2 * B * n * d * V
    report = flops_report(get_preset("gpt2"), seq_len=n, batch=B)
    assert report.total == expected == 291_648_307_200
    assert report.extras["six_nd"] == 6 * 124_439_808 * 1024


def test_encoder_decoder_with_different_lengths():
    cfg = ModelConfig(arch="encoder-decoder", d_model=32, n_heads=4, d_ff=64, n_layers=2,
                      vocab_size=50, max_len=64)
    report = flops_report(cfg, seq_len=7, batch=2, tgt_len=5)
    B, s, t, d, h, f, L = 2, 7, 5, 32, 4, 64, 2
    proj = L * 8 * B * s * d * d + L * (8 * B * t * d * d + 4 * B * t * d * d + 4 * B * s * d * d)
    scores = L * 4 * B * s * s * d + L * (4 * B * t * t * d + 4 * B * t * s * d)
    assert report.breakdown()["attention_proj"] == proj
    assert report.breakdown()["attention_scores"] == scores
    assert report.breakdown()["ffn"] == 4 * B * d * f * L * (s + t)
    assert report.breakdown()["head"] == 2 * B * t * d * 50


def test_kv_cache_llama2_70b_gqa():
    report = kv_cache_report(get_preset("llama2-70b"), seq_len=4096, batch=8, dtype="fp16")
    # 2 (K,V) · 80 layers · 8 · 4096 · 8 KV heads · 128 · 2 bytes = 10 GiB
    assert report.total == 2 * 80 * 8 * 4096 * 8 * 128 * 2 == 10 * 2**30
    assert report.extras["reduction_factor"] == 8
    assert report.extras["per_token"] == 327_680


def test_kv_cache_dtypes_and_mqa():
    gpt2 = get_preset("gpt2")
    fp32 = kv_cache_report(gpt2, seq_len=1024, batch=1, dtype="fp32").total
    assert fp32 == 2 * 12 * 1024 * 768 * 4 == 75_497_472
    assert kv_cache_report(gpt2, seq_len=1024, batch=1, dtype="int8").total * 4 == fp32
    mqa = kv_cache_report(gpt2.with_(n_kv_heads=1), seq_len=1024, batch=1, dtype="fp32")
    assert mqa.extras["reduction_factor"] == 12
    assert mqa.extras["attention"] == "MQA"


def test_kv_cache_refuses_encoders():
    with pytest.raises(InputError, match="no KV cache"):
        kv_cache_report(get_preset("bert-base"), seq_len=128)


def test_attention_score_memory():
    report = attention_scores_report(get_preset("gpt2"), seq_len=1024, batch=1, dtype="fp32")
    assert report.components[0].value == 12 * 1024 * 1024
    assert report.total == 12 * 12 * 1024 * 1024
    assert report.extras["bytes_per_layer"] == 48 * 2**20


def test_closed_forms_are_textbook_algebra():
    cfg = ModelConfig(arch="encoder-layer", d_model=512, n_heads=8, d_ff=2048)
    parts = formulas.param_closed_form(cfg).components
    d = formulas.d
    assert sp.simplify(parts["attention"] - (4 * d**2 + 4 * d)) == 0
    assert formulas.format_expr(parts["attention"]) == "4·d_model² + 4·d_model"
    assert formulas.format_expr(formulas.kv_cache_bytes_expr(get_preset("llama2-70b"))) == \
        "2·B·L·bytes·d_head·h_kv·n"


def test_sequence_longer_than_context_is_refused():
    with pytest.raises(InputError, match="longer than the model's context of 1024"):
        flops_report(get_preset("gpt2"), seq_len=2048)


def test_real_cpu_measurement_matches_meta():
    cfg = SMALL[-4]  # tiny gpt
    on_cpu = flops_report(cfg, seq_len=8, batch=2, device="cpu")
    on_meta = flops_report(cfg, seq_len=8, batch=2, device="meta")
    assert on_cpu.total == on_meta.total
    assert params_report(cfg, device="cpu").total == params_report(cfg).total


def test_huge_model_on_cpu_is_refused():
    with pytest.raises(InputError, match="count it on the meta device"):
        params_report(get_preset("gpt3-175b"), device="cpu")


def test_oversized_real_run_is_refused():
    with pytest.raises(InputError, match="count it on the meta device"):
        flops_report(get_preset("gpt2"), seq_len=1024, batch=64, device="cpu")


def test_worked_numbers_follow_the_formula():
    report = params_report(get_preset("gpt2"))
    attention = next(c for c in report.components if c.name == "attention")
    assert attention.formula == "4·L·d_model² + 4·L·d_model"
    assert attention.substituted == "4·12·768² + 4·12·768"
    total = 0
    for term in attention.substituted.split(" + "):
        product = 1
        for factor in term.split("·"):
            product *= int(factor[:-1]) ** 2 if factor.endswith("²") else int(factor)
        total += product
    assert total == attention.value
    kv = kv_cache_report(get_preset("llama2-70b"), seq_len=4096, batch=8, dtype="fp16")
    assert kv.total_substituted == "2·8·80·2·128·8·4096"  # B=8 and h_kv=8 stay separate factors


# Several architectures, deep enough that the one-and-two-layer extrapolation is used.
DEEP = [
    ModelConfig(arch="gpt", d_model=32, n_heads=4, n_kv_heads=2, d_ff=64, n_layers=5,
                vocab_size=97, max_len=40, tied=False),
    ModelConfig(arch="llama", d_model=32, n_heads=4, n_kv_heads=1, d_ff=48, n_layers=4,
                vocab_size=97, max_len=40),
    ModelConfig(arch="bert", d_model=32, n_heads=4, d_ff=64, n_layers=6, vocab_size=97,
                max_len=40, n_token_types=2, pooler=True),
    ModelConfig(arch="encoder-decoder", d_model=32, n_heads=4, d_ff=64, n_layers=4,
                n_decoder_layers=3, vocab_size=97, max_len=40, norm_first=True, tied=False),
    ModelConfig(arch="encoder-decoder", d_model=32, n_heads=4, d_ff=64, n_layers=1,
                n_decoder_layers=5, vocab_size=97, max_len=40),
]


@pytest.mark.parametrize("cfg", DEEP, ids=lambda c: f"{c.arch}-{c.encoder_layers}-{c.decoder_layers}")
def test_one_layer_extrapolation_equals_measuring_every_layer(cfg):
    whole = measure.measure_flops(cfg, 2, 9, 7 if cfg.arch == "encoder-decoder" else None,
                                  model=measure.instantiate(cfg))
    extrapolated = measure.measure_flops(cfg, 2, 9, 7 if cfg.arch == "encoder-decoder" else None)
    assert extrapolated == whole
    assert whole.training > 0 and whole.forward["ffn"] > 0
    full_scores = measure._score_entries(cfg, 2, 9, None)
    assert measure.measure_attention_scores(cfg, 2, 9) == full_scores
    if cfg.arch != "bert":
        full_cache = measure._filled_cache_bytes(cfg, 2, 9, measure.DTYPES["fp16"])
        assert measure.measure_kv_cache_bytes(cfg, 2, 9, "fp16") == full_cache > 0


def test_layers_that_differ_are_measured_whole(monkeypatch):
    """A stack whose layers are not all alike must not be extrapolated from its first two."""
    from quizforge.reference import build as real_build
    from quizforge.reference.feedforward import FeedForward

    def uneven(cfg, device="cpu", dtype=None):
        model = real_build(cfg, device, dtype)
        if len(model.blocks) >= 2:  # the second layer gets a wider FFN
            model.blocks[1].ffn = FeedForward(cfg.d_model, 4 * cfg.d_ff, cfg.activation).to(device)
        return model

    cfg = DEEP[0]
    monkeypatch.setattr(measure, "build", uneven)
    assert not measure.stacks_identical(uneven(cfg, "meta"))
    assert measure.stacks_identical(real_build(cfg, "meta"))
    whole = measure.measure_flops(cfg, 2, 9, model=uneven(cfg, "meta"))
    assert measure.measure_flops(cfg, 2, 9) == whole
