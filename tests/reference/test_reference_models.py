"""Whole reference models: published parameter counts, every arch end to end, the KV
cache, GQA/MQA, RoPE, sinusoidal tables, sampling, masks and config validation.

Big presets are only ever instantiated on the meta device (no memory, no compute);
everything that runs numerically on the CPU uses tiny sizes.
"""

from __future__ import annotations

import math

import pytest
import torch

from quizforge.errors import InputError
from quizforge.reference import (
    PRESETS,
    DecoderOnly,
    EncoderDecoder,
    EncoderOnly,
    ModelConfig,
    MultiHeadAttention,
    RotaryEmbedding,
    SinusoidalPositionalEncoding,
    build,
    causal_mask,
    generate,
    get_preset,
    padding_mask,
    sinusoidal_table,
)
from quizforge.reference.config import ARCHS, COMPONENT_ARCHS, MODEL_ARCHS
from quizforge.reference.positional import rope_angle, sinusoidal_angle

DT = torch.float64
TOL = dict(rtol=1e-10, atol=1e-12)


def _count(module: torch.nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())  # shared (tied) parameters count once


# ---------------------------------------------------------------------------
# Published parameter counts (meta device: nothing is allocated)
# ---------------------------------------------------------------------------

PUBLISHED = {
    "bert-base": 109_482_240,
    "bert-large": 335_141_888,
    "gpt2": 124_439_808,
    "gpt2-medium": 354_823_168,
    "gpt2-large": 774_030_080,
    "gpt2-xl": 1_557_611_200,
    "llama-7b": 6_738_415_616,
    "llama2-70b": 68_976_648_192,
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_parameter_counts(name: str) -> None:
    model = build(get_preset(name), "meta")
    assert _count(model) == PUBLISHED[name]
    assert all(p.device.type == "meta" for p in model.parameters())


def test_gpt2_count_by_hand_and_tied_head() -> None:
    model = build(get_preset("gpt2"), "meta")
    assert model.lm_head.proj.weight is model.tok_emb.weight
    d, V, L, n = 768, 50_257, 12, 1024
    per_layer = 4 * (d * d + d) + (2 * d * 4 * d + 4 * d + d) + 2 * 2 * d
    assert V * d + n * d + L * per_layer + 2 * d == 124_439_808


def test_llama_head_is_untied_and_has_no_biases() -> None:
    model = build(get_preset("llama-7b"), "meta")
    assert model.lm_head.proj.weight is not model.tok_emb.weight
    assert not any(name.endswith(".bias") for name, _ in model.named_parameters())
    attn = model.blocks[0].self_attn
    assert attn.W_k.weight.shape == (4096, 4096)
    gqa = build(get_preset("llama2-70b"), "meta").blocks[0].self_attn
    assert gqa.W_q.weight.shape == (8192, 8192)
    assert gqa.W_k.weight.shape == gqa.W_v.weight.shape == (8 * 128, 8192)


def test_vaswani_base_is_about_65m() -> None:
    # Table 3 reports 65M for the base model with a shared 37k vocabulary.
    n = _count(build(get_preset("vaswani-base"), "meta"))
    d = 512
    enc = 6 * (4 * (d * d + d) + 2 * d * 2048 + 2048 + d + 4 * d)
    dec = 6 * (8 * (d * d + d) + 2 * d * 2048 + 2048 + d + 6 * d)
    assert n == 37_000 * d + enc + dec
    assert 60e6 < n < 65.5e6


# ---------------------------------------------------------------------------
# Every preset builds on meta and runs a (shape-only) forward pass there
# ---------------------------------------------------------------------------

def _forward_shapes(model: torch.nn.Module, cfg: ModelConfig, device: str, B: int = 2,
                    n: int = 5, n_t: int = 4) -> torch.Tensor:
    """Run one forward pass for any arch; assert the output shapes; return the main output."""
    d = cfg.d_model
    ids = torch.arange(B * n, device=device).reshape(B, n) % cfg.vocab_size if cfg.is_model else None
    x = torch.randn(B, n, d, device=device, generator=None) if not cfg.is_model else None
    if cfg.arch == "encoder-decoder":
        tgt = torch.arange(B * n_t, device=device).reshape(B, n_t) % cfg.vocab_size
        keep = torch.ones(B, n, dtype=torch.bool, device=device)
        out = model(ids, tgt, keep)
        assert out.shape == (B, n_t, cfg.vocab_size)
    elif cfg.arch == "bert":
        hidden, pooled = model(ids, torch.zeros_like(ids), torch.ones(B, n, dtype=torch.bool, device=device))
        assert hidden.shape == (B, n, d)
        assert pooled is None if not cfg.pooler else pooled.shape == (B, d)
        out = hidden
    elif cfg.arch in ("gpt", "llama"):
        out = model(ids)
        assert out.shape == (B, n, cfg.vocab_size)
    elif cfg.arch == "mha":
        out, w = model(x, mask=causal_mask(n, device=device))
        assert out.shape == (B, n, d) and w.shape == (B, cfg.n_heads, n, n)
    elif cfg.arch == "decoder-layer":
        tgt = torch.randn(B, n_t, d, device=device)
        out = model(tgt, x, self_mask=causal_mask(n_t, device=device))
        assert out.shape == (B, n_t, d)
    else:  # ffn, layernorm, rmsnorm, encoder-layer
        out = model(x)
        assert out.shape == (B, n, d)
    assert out.device.type == torch.device(device).type
    return out


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_builds_and_runs_on_meta(name: str) -> None:
    cfg = get_preset(name)
    assert cfg.name == name and cfg.source
    model = build(cfg, "meta")
    expected_type = {"encoder-decoder": EncoderDecoder, "bert": EncoderOnly}.get(cfg.arch, DecoderOnly)
    assert isinstance(model, expected_type)
    assert _count(model) > 0
    # A meta forward costs ~25 ms of Python per layer; one layer of the real width is enough
    # to check that every shape lines up.
    shallow = cfg.with_(n_layers=1)
    assert (shallow.d_head, shallow.n_kv_heads) == (cfg.d_head, cfg.n_kv_heads)
    with torch.no_grad():
        _forward_shapes(build(shallow, "meta"), shallow, "meta", B=1, n=3, n_t=2)


def _tiny(arch: str, **changes) -> ModelConfig:
    base = dict(arch=arch, d_model=16, n_heads=2, d_ff=32, n_layers=2, vocab_size=50, max_len=32)
    if arch == "bert":
        base.update(n_token_types=2, pooler=True)
    if arch not in MODEL_ARCHS:
        for key in ("n_layers", "vocab_size", "max_len"):
            base.pop(key)
    base.update(changes)
    return ModelConfig(**base)


def test_archs_are_models_then_components() -> None:
    assert ARCHS == MODEL_ARCHS + COMPONENT_ARCHS
    assert set(MODEL_ARCHS) == {"encoder-decoder", "bert", "gpt", "llama"}


@pytest.mark.parametrize("device", ["meta", "cpu"])
@pytest.mark.parametrize("arch", ARCHS)
def test_every_arch_builds_and_runs_tiny(arch: str, device: str) -> None:
    torch.manual_seed(0)
    cfg = _tiny(arch)
    model = build(cfg, device).eval()
    assert all(p.device.type == device for p in model.parameters())
    with torch.no_grad():
        out = _forward_shapes(model, cfg, device)
    if device == "cpu":
        assert torch.isfinite(out).all()


@pytest.mark.parametrize("arch", ["gpt", "llama", "encoder-decoder", "bert"])
def test_tiny_model_in_float64_and_preset_conventions(arch: str) -> None:
    torch.manual_seed(0)
    cfg = _tiny(arch)
    model = build(cfg, "cpu", DT).eval()
    assert all(p.dtype == DT for p in model.parameters())
    with torch.no_grad():
        out = _forward_shapes(model, cfg, "cpu")
    assert out.dtype == DT
    defaults = {
        "encoder-decoder": ("layernorm", "relu", "sinusoidal", False),
        "bert": ("layernorm", "gelu", "learned", False),
        "gpt": ("layernorm", "gelu", "learned", True),
        "llama": ("rmsnorm", "swiglu", "rope", True),
    }[arch]
    assert (cfg.norm, cfg.activation, cfg.positional, cfg.norm_first) == defaults


def test_decoder_only_is_causal() -> None:
    torch.manual_seed(0)
    for arch in ("gpt", "llama"):
        model = build(_tiny(arch), "cpu", DT).eval()
        idx = torch.randint(0, 50, (2, 7), generator=torch.Generator().manual_seed(1))
        idx2 = idx.clone()
        idx2[:, 4] = (idx2[:, 4] + 1) % 50
        with torch.no_grad():
            a, b = model(idx), model(idx2)
        torch.testing.assert_close(a[:, :4], b[:, :4], **TOL)
        assert not torch.allclose(a[:, 4:], b[:, 4:])


def test_encoder_decoder_source_padding_is_ignored() -> None:
    torch.manual_seed(0)
    model = build(_tiny("encoder-decoder"), "cpu", DT).eval()
    g = torch.Generator().manual_seed(2)
    src = torch.randint(0, 50, (2, 6), generator=g)
    tgt = torch.randint(0, 50, (2, 4), generator=g)
    keep = padding_mask(torch.tensor([6, 3]), 6)[:, 0, 0, :]
    src2 = src.clone()
    src2[1, 3:] = (src2[1, 3:] + 7) % 50  # change only padding tokens of sequence 1
    with torch.no_grad():
        torch.testing.assert_close(model(src, tgt, keep), model(src2, tgt, keep), **TOL)
        assert not torch.allclose(model(src, tgt), model(src2, tgt))


# ---------------------------------------------------------------------------
# KV cache
# ---------------------------------------------------------------------------

KV_CONFIGS = {
    "gpt": dict(arch="gpt", d_model=16, n_heads=2, d_ff=32, n_layers=2, vocab_size=50, max_len=32),
    "llama-gqa": dict(arch="llama", d_model=32, n_heads=4, n_kv_heads=2, d_ff=48, n_layers=2,
                      vocab_size=50, max_len=32),
    "llama-mqa": dict(arch="llama", d_model=32, n_heads=4, n_kv_heads=1, d_ff=48, n_layers=3,
                      vocab_size=50, max_len=32),
}


@pytest.mark.parametrize("split", ["one-at-a-time", "prefix-then-rest", "chunks"])
@pytest.mark.parametrize("name", sorted(KV_CONFIGS))
def test_kv_cache_matches_full_forward(name: str, split: str) -> None:
    torch.manual_seed(0)
    cfg = ModelConfig(**KV_CONFIGS[name])
    model = build(cfg, "cpu", DT).eval()
    B, n = 2, 9
    idx = torch.randint(0, cfg.vocab_size, (B, n), generator=torch.Generator().manual_seed(5))
    bounds = {"one-at-a-time": list(range(n + 1)), "prefix-then-rest": [0, 4, n],
              "chunks": [0, 3, 4, 7, n]}[split]
    with torch.no_grad():
        full = model(idx)
        cache = model.new_cache()
        pieces = []
        for lo, hi in zip(bounds, bounds[1:]):
            assert cache.length == lo
            pieces.append(model(idx[:, lo:hi], cache))
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, **TOL)
    assert cache.length == n
    elem = torch.tensor([], dtype=DT).element_size()
    assert cache.nbytes == 2 * cfg.n_layers * B * cfg.n_kv_heads * n * cfg.d_head * elem
    for layer in cache.layers:
        assert layer.k.shape == layer.v.shape == (B, cfg.n_kv_heads, n, cfg.d_head)


def test_kv_cache_storage_dtype_and_meta_size() -> None:
    torch.manual_seed(0)
    cfg = ModelConfig(**KV_CONFIGS["llama-gqa"])
    model = build(cfg, "cpu", DT).eval()
    idx = torch.randint(0, 50, (1, 6), generator=torch.Generator().manual_seed(6))
    cache = model.new_cache(torch.float32)
    with torch.no_grad():
        out = model(idx, cache)
    assert out.dtype == DT
    assert cache.nbytes == 2 * cfg.n_layers * 1 * 2 * 6 * 8 * 4
    torch.testing.assert_close(out, model(idx), rtol=1e-5, atol=1e-5)
    # llama-7b in fp16 at 2048 tokens: 2 * 32 layers * 4096 * 2048 * 2 bytes = 1 GiB. On meta,
    # with one of its 32 identical layers (a meta forward costs ~25 ms of Python per layer).
    big = build(get_preset("llama-7b").with_(n_layers=1), "meta", torch.float16)
    cache = big.new_cache()
    with torch.no_grad():
        big(torch.zeros(1, 2048, dtype=torch.long, device="meta"), cache)
    assert cache[0].k.dtype == torch.float16 and cache[0].k.shape == (1, 32, 2048, 128)
    assert 32 * cache.nbytes == 2 * 32 * 4096 * 2048 * 2 == 2**30


def test_kv_cache_int8_needs_meta() -> None:
    torch.manual_seed(0)
    model = build(ModelConfig(**KV_CONFIGS["gpt"]), "cpu").eval()
    with pytest.raises(ValueError):
        with torch.no_grad():
            model(torch.zeros(1, 2, dtype=torch.long), model.new_cache(torch.int8))


# ---------------------------------------------------------------------------
# GQA and MQA equal a full MHA with repeated key/value heads
# ---------------------------------------------------------------------------

def _repeat_heads(t: torch.Tensor, kv: int, group: int) -> torch.Tensor:
    """(kv*d_head, ...) -> (kv*group*d_head, ...), repeating each head block `group` times."""
    return t.reshape(kv, -1, *t.shape[1:]).repeat_interleave(group, dim=0).reshape(-1, *t.shape[1:])


@pytest.mark.parametrize("use_rope", [False, True])
@pytest.mark.parametrize("kv", [1, 2, 3, 6])
def test_gqa_equals_mha_with_repeated_kv(kv: int, use_rope: bool) -> None:
    torch.manual_seed(kv)
    d_model, h, d_head = 24, 6, 4
    rope = RotaryEmbedding(d_head).to(DT) if use_rope else None
    gqa = MultiHeadAttention(d_model, h, n_kv_heads=kv, rope=rope).to(DT).eval()
    full = MultiHeadAttention(d_model, h, rope=rope).to(DT).eval()
    group = h // kv
    assert gqa.W_k.weight.shape == (kv * d_head, d_model)
    assert _count(gqa) == 2 * (d_model * d_model + d_model) + 2 * (kv * d_head * d_model + kv * d_head)
    with torch.no_grad():
        for name in ("W_q", "W_o"):
            getattr(full, name).load_state_dict(getattr(gqa, name).state_dict())
        for name in ("W_k", "W_v"):
            getattr(full, name).weight.copy_(_repeat_heads(getattr(gqa, name).weight, kv, group))
            getattr(full, name).bias.copy_(_repeat_heads(getattr(gqa, name).bias, kv, group))
    x = torch.randn(2, 7, d_model, dtype=DT, generator=torch.Generator().manual_seed(9))
    out_g, w_g = gqa(x, mask=causal_mask(7))
    out_f, w_f = full(x, mask=causal_mask(7))
    torch.testing.assert_close(out_g, out_f, **TOL)
    torch.testing.assert_close(w_g, w_f, **TOL)
    if group > 1:  # query heads in one group share keys, but see them through different W_q
        assert not torch.allclose(w_g[:, 0], w_g[:, 1])


def test_mha_rejects_bad_head_counts() -> None:
    with pytest.raises(ValueError):
        MultiHeadAttention(10, 3)
    with pytest.raises(ValueError):
        MultiHeadAttention(12, 4, n_kv_heads=3)
    # an explicit d_head lifts the divisibility requirement
    attn = MultiHeadAttention(10, 3, d_head=4)
    assert attn.W_q.weight.shape == (12, 10) and attn.W_o.weight.shape == (10, 12)


# ---------------------------------------------------------------------------
# RoPE
# ---------------------------------------------------------------------------

def _rope_score(rope: RotaryEmbedding, q: torch.Tensor, k: torch.Tensor, m: int, n: int) -> torch.Tensor:
    return (rope(q[None], m)[0] * rope(k[None], n)[0]).sum()


def test_rope_score_depends_only_on_relative_offset() -> None:
    rope = RotaryEmbedding(16).to(DT)
    g = torch.Generator().manual_seed(3)
    q, k = torch.randn(16, dtype=DT, generator=g), torch.randn(16, dtype=DT, generator=g)
    for m, n in [(0, 0), (3, 1), (1, 3), (10, 2), (7, 7)]:
        base = _rope_score(rope, q, k, m, n)
        for shift in (1, 5, 100, 1000):
            torch.testing.assert_close(_rope_score(rope, q, k, m + shift, n + shift), base, rtol=1e-9, atol=1e-9)
    # at distance 0 the rotation cancels: the score is the plain dot product
    torch.testing.assert_close(_rope_score(rope, q, k, 42, 42), q @ k, **TOL)
    # and different distances give different scores (the check above could fail)
    assert not torch.isclose(_rope_score(rope, q, k, 3, 1), _rope_score(rope, q, k, 3, 2))


def test_rope_preserves_norms_and_offsets_are_consistent() -> None:
    rope = RotaryEmbedding(8).to(DT)
    x = torch.randn(2, 3, 10, 8, dtype=DT, generator=torch.Generator().manual_seed(4))
    y = rope(x)
    torch.testing.assert_close(y.norm(dim=-1), x.norm(dim=-1), **TOL)
    torch.testing.assert_close(rope(x, 17).norm(dim=-1), x.norm(dim=-1), **TOL)
    torch.testing.assert_close(y[..., 0, :], x[..., 0, :], **TOL)  # position 0: identity
    torch.testing.assert_close(rope(x[..., 4:, :], 4), y[..., 4:, :], **TOL)
    assert not torch.allclose(rope(x[..., 4:, :], 0), y[..., 4:, :])


def test_rope_hand_computed() -> None:
    rope = RotaryEmbedding(4).to(DT)
    e = torch.eye(4, dtype=DT)  # 4 unit vectors, each at position 1
    out = torch.stack([rope(e[i][None], offset=1)[0] for i in range(4)])
    c0, s0 = math.cos(1.0), math.sin(1.0)  # pair 0: angle 1 · 10000^0
    c1, s1 = math.cos(0.01), math.sin(0.01)  # pair 1: angle 1 · 10000^(-2/4)
    expected = torch.tensor([
        [c0, s0, 0, 0],
        [-s0, c0, 0, 0],
        [0, 0, c1, s1],
        [0, 0, -s1, c1],
    ], dtype=DT)
    torch.testing.assert_close(out, expected, rtol=1e-12, atol=1e-12)
    assert rope_angle(1, 1, 4) == pytest.approx(0.01)
    assert rope_angle(5, 0, 4) == 5.0
    # angle grows linearly with position
    x = torch.tensor([[1.0, 0.0, 0.0, 0.0]], dtype=DT)
    torch.testing.assert_close(rope(x, offset=3)[0, :2], torch.tensor([math.cos(3), math.sin(3)], dtype=DT), **TOL)


def test_rope_angles_stay_exact_in_low_precision_models() -> None:
    # bf16 has 8 significant bits: 256 and 257 are the same bf16 number. The angles must be
    # computed from the exact positions whatever dtype the model was cast to.
    cfg = ModelConfig(arch="llama", d_model=16, n_heads=2, d_ff=32, n_layers=1, vocab_size=50, max_len=512)
    for dtype in (torch.bfloat16, torch.float16):
        rope = build(cfg, "cpu", dtype).blocks[0].self_attn.rope
        theta = rope.angles(torch.tensor([256, 257, 2049, 4097]))
        assert theta[:, 0].tolist() == [256.0, 257.0, 2049.0, 4097.0]
        assert theta[1, 1].item() == pytest.approx(257 * 10000 ** (-2 / 8), rel=1e-12)
        x = torch.randn(1, 300, 8, generator=torch.Generator().manual_seed(0))
        want = RotaryEmbedding(8).to(DT)(x.to(DT))
        torch.testing.assert_close(rope(x.to(dtype)).to(DT), want, rtol=2e-2, atol=2e-2)


# ---------------------------------------------------------------------------
# Sinusoidal positional encoding
# ---------------------------------------------------------------------------

def test_sinusoidal_table_hand_values() -> None:
    pe = sinusoidal_table(10, 4, dtype=DT)
    assert pe.shape == (10, 4)
    assert pe[0].tolist() == [0.0, 1.0, 0.0, 1.0]
    assert pe[1, 0].item() == pytest.approx(math.sin(1), abs=1e-15)
    assert pe[1, 1].item() == pytest.approx(math.cos(1), abs=1e-15)
    assert pe[1, 2].item() == pytest.approx(math.sin(1 / 100), abs=1e-15)  # 10000^(2/4) = 100
    assert pe[1, 3].item() == pytest.approx(math.cos(1 / 100), abs=1e-15)
    assert pe[2, 2].item() == pytest.approx(math.sin(2 / 10000 ** (2 / 4)), abs=1e-15)
    assert pe[7, 1].item() == pytest.approx(math.cos(7), abs=1e-15)
    assert pe[9, 3].item() == pytest.approx(math.cos(0.09), abs=1e-15)
    assert sinusoidal_angle(2, 1, 4) == pytest.approx(0.02)
    assert sinusoidal_table(10, 4).dtype == torch.float32


def test_sinusoidal_table_d512_and_odd_width() -> None:
    pe = sinusoidal_table(50, 512, dtype=DT)
    assert pe[40, 100].item() == pytest.approx(math.sin(40 / 10000 ** (100 / 512)), abs=1e-12)
    assert pe[40, 101].item() == pytest.approx(math.cos(40 / 10000 ** (100 / 512)), abs=1e-12)
    assert pe[40, 511].item() == pytest.approx(math.cos(40 / 10000 ** (510 / 512)), abs=1e-12)
    # odd d_model: pairs as usual, the last column is a lone sine
    pe = sinusoidal_table(6, 5, dtype=DT)
    assert pe.shape == (6, 5)
    for p in range(6):
        for col in range(5):
            angle = p / 10000 ** ((col - col % 2) / 5)
            want = math.sin(angle) if col % 2 == 0 else math.cos(angle)
            assert pe[p, col].item() == pytest.approx(want, abs=1e-14)
    assert sinusoidal_table(3, 1, dtype=DT)[:, 0].tolist() == pytest.approx([0.0, math.sin(1), math.sin(2)])


def test_sinusoidal_module_adds_table_and_checks_length() -> None:
    enc = SinusoidalPositionalEncoding(6, 8)
    assert _count(enc) == 0
    x = torch.zeros(2, 3, 6)
    torch.testing.assert_close(enc(x), sinusoidal_table(8, 6)[:3].expand(2, 3, 6))
    torch.testing.assert_close(enc(x, offset=5), sinusoidal_table(8, 6)[5:8].expand(2, 3, 6))
    with pytest.raises(ValueError):
        enc(x, offset=6)


# ---------------------------------------------------------------------------
# generate()
# ---------------------------------------------------------------------------

def _greedy_by_recomputation(model: DecoderOnly, idx: torch.Tensor, steps: int, window: int = 0) -> torch.Tensor:
    with torch.no_grad():
        for _ in range(steps):
            ctx = idx[:, -window:] if window else idx
            nxt = model(ctx)[:, -1].argmax(-1, keepdim=True)
            idx = torch.cat((idx, nxt), dim=1)
    return idx


@pytest.fixture(scope="module")
def tiny_llama() -> DecoderOnly:
    torch.manual_seed(0)
    return build(ModelConfig(**KV_CONFIGS["llama-gqa"]), "cpu", DT).eval()


@pytest.fixture(scope="module")
def tiny_gpt() -> DecoderOnly:
    torch.manual_seed(1)
    return build(ModelConfig(**KV_CONFIGS["gpt"]), "cpu", DT).eval()


def _prompt(B: int = 2, n: int = 4, seed: int = 0) -> torch.Tensor:
    return torch.randint(0, 50, (B, n), generator=torch.Generator().manual_seed(seed))


@pytest.mark.parametrize("which", ["tiny_llama", "tiny_gpt"])
def test_generate_shape_and_determinism(which: str, request: pytest.FixtureRequest) -> None:
    model = request.getfixturevalue(which)
    idx = _prompt()
    out = generate(model, idx, 6, temperature=1.5, generator=torch.Generator().manual_seed(0))
    assert out.shape == (2, 10) and out.dtype == torch.long
    assert torch.equal(out[:, :4], idx)
    assert ((out >= 0) & (out < 50)).all()
    again = generate(model, idx, 6, temperature=1.5, generator=torch.Generator().manual_seed(0))
    assert torch.equal(out, again)
    other = generate(model, idx, 6, temperature=1.5, generator=torch.Generator().manual_seed(1))
    assert not torch.equal(out, other)
    assert torch.equal(generate(model, idx, 0), idx)


@pytest.mark.parametrize("which", ["tiny_llama", "tiny_gpt"])
def test_generate_greedy_matches_full_recomputation(which: str, request: pytest.FixtureRequest) -> None:
    model = request.getfixturevalue(which)
    idx = _prompt(seed=3)
    expected = _greedy_by_recomputation(model, idx, 8)
    assert torch.equal(generate(model, idx, 8, temperature=0.0), expected)
    top1 = generate(model, idx, 8, temperature=1.0, top_k=1, generator=torch.Generator().manual_seed(0))
    assert torch.equal(top1, expected)


def test_generate_top_k_only_samples_the_k_best(tiny_llama: DecoderOnly) -> None:
    idx = _prompt(seed=4)
    out = generate(tiny_llama, idx, 6, temperature=5.0, top_k=3, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        logits = tiny_llama(out[:, :-1])  # logits at step t predict token t+1
    for t in range(idx.shape[1] - 1, out.shape[1] - 1):
        top3 = logits[:, t].topk(3, dim=-1).indices
        assert (top3 == out[:, t + 1, None]).any(-1).all()


def test_generate_slides_past_max_len() -> None:
    torch.manual_seed(2)
    cfg = ModelConfig(arch="gpt", d_model=16, n_heads=2, d_ff=32, n_layers=2, vocab_size=50, max_len=6)
    model = build(cfg, "cpu", DT).eval()
    idx = _prompt(n=4, seed=5)
    out = generate(model, idx, 10, temperature=0.0)
    assert out.shape == (2, 14)
    assert torch.equal(out, _greedy_by_recomputation(model, idx, 10, window=6))
    # a prompt longer than max_len is cropped to the last max_len tokens
    long = _prompt(n=9, seed=6)
    assert torch.equal(generate(model, long, 3, temperature=0.0), _greedy_by_recomputation(model, long, 3, window=6))
    # the model itself refuses more than max_len positions
    with pytest.raises(ValueError):
        model(long)


@pytest.mark.parametrize("kwargs", [
    dict(max_new_tokens=-1),
    dict(max_new_tokens=3, temperature=-0.5),
    dict(max_new_tokens=3, top_k=0),
    dict(max_new_tokens=3, top_k=-2),
])
def test_generate_rejects_bad_arguments(tiny_gpt: DecoderOnly, kwargs: dict) -> None:
    with pytest.raises(ValueError):
        generate(tiny_gpt, _prompt(), **kwargs)


# ---------------------------------------------------------------------------
# Masks
# ---------------------------------------------------------------------------

def test_causal_mask() -> None:
    m = causal_mask(4)
    assert m.dtype == torch.bool and m.shape == (4, 4)
    assert m.tolist() == [
        [True, False, False, False],
        [True, True, False, False],
        [True, True, True, False],
        [True, True, True, True],
    ]
    assert torch.equal(m, torch.tril(torch.ones(4, 4, dtype=torch.bool)))
    # two queries that are the last two of five positions
    assert causal_mask(2, 5).tolist() == [
        [True, True, True, True, False],
        [True, True, True, True, True],
    ]
    assert causal_mask(1, 7).all()
    assert torch.equal(causal_mask(5, 5), causal_mask(5))


def test_padding_mask() -> None:
    m = padding_mask(torch.tensor([3, 1, 4, 0]), 4)
    assert m.dtype == torch.bool and m.shape == (4, 1, 1, 4)
    assert m[:, 0, 0].tolist() == [
        [True, True, True, False],
        [True, False, False, False],
        [True, True, True, True],
        [False, False, False, False],
    ]


# ---------------------------------------------------------------------------
# ModelConfig validation and presets
# ---------------------------------------------------------------------------

GOOD = dict(arch="gpt", d_model=16, n_heads=2, d_ff=32, n_layers=2, vocab_size=50, max_len=32)


@pytest.mark.parametrize("changes", [
    dict(d_model=0),
    dict(d_model=-16),
    dict(n_heads=0),
    dict(n_heads=-2),
    dict(n_layers=0),
    dict(d_ff=0),
    dict(d_ff=-1),
    dict(vocab_size=0),
    dict(max_len=0),  # learned positions need a table size
    dict(n_kv_heads=0),
    dict(d_head=0),
    dict(d_model=18, n_heads=4),  # not divisible
    dict(n_heads=4, n_kv_heads=3),  # 4 query heads cannot share 3 kv heads
    dict(n_heads=2, n_kv_heads=4),
    dict(arch="nope"),
    dict(arch="transformer"),
    dict(d_model=16.0),
    dict(n_heads=True),
    dict(norm="batchnorm"),
    dict(activation="tanh"),
    dict(positional="alibi"),
    dict(dropout=1.0),
    dict(dropout=-0.1),
    dict(arch="llama", d_model=12, n_heads=4),  # RoPE needs an even head dimension (3)
], ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_model_config_rejects_bad_input(changes: dict) -> None:
    with pytest.raises(InputError):
        ModelConfig(**{**GOOD, **changes})


def test_model_config_defaults_and_with_() -> None:
    cfg = ModelConfig(**GOOD)
    assert cfg.n_kv_heads == 2 and cfg.d_head == 8 and cfg.d_attn == 16
    # with_ derives defaulted d_head and n_kv_heads again instead of carrying stale values
    assert (cfg.with_(n_heads=4).d_head, cfg.with_(n_heads=4).n_kv_heads) == (4, 4)
    tiny = get_preset("gpt2").with_(d_model=16, n_heads=2, d_ff=32, n_layers=2, vocab_size=50, max_len=32)
    assert (tiny.d_head, tiny.n_kv_heads, tiny.d_attn) == (8, 2, 16)
    tiny_llama = get_preset("llama2-70b").with_(d_model=32, n_heads=4, n_kv_heads=2, d_ff=48, n_layers=2)
    assert (tiny_llama.d_head, tiny_llama.n_kv_heads) == (8, 2)
    assert get_preset("llama2-70b").with_(n_layers=2).n_kv_heads == 8  # GQA is kept
    assert ModelConfig(arch="mha", d_model=10, n_heads=3, d_head=4).with_(d_model=20).d_head == 4
    with pytest.raises(InputError):
        cfg.with_(d_model=-1)
    with pytest.raises(InputError):
        cfg.with_(d_model=18, n_heads=4)  # d_head is re-derived, so divisibility is re-checked
    comp = ModelConfig(arch="mha", d_model=16, n_heads=4)  # components need no vocab or d_ff
    assert comp.d_head == 4 and not comp.is_model and not comp.uses_ffn
    assert ModelConfig(arch="encoder-decoder", d_model=8, n_heads=2, d_ff=16, vocab_size=10,
                       n_layers=3, n_decoder_layers=1).decoder_layers == 1
    assert issubclass(InputError, ValueError)


def test_get_preset() -> None:
    assert get_preset("gpt2") is PRESETS["gpt2"]
    assert get_preset("  GPT2-XL ") is PRESETS["gpt2-xl"]
    with pytest.raises(InputError):
        get_preset("nope")
    with pytest.raises(InputError, match="did you mean"):
        get_preset("llama")
    for name, cfg in PRESETS.items():
        assert cfg.name == name
    assert get_preset("llama2-70b").n_kv_heads == 8
    assert get_preset("bert-base").norm_eps == 1e-12
