"""The reference transformer against PyTorch's own implementations.

Every comparison copies weights into the PyTorch module (or vice versa), feeds the
same seeded random inputs, and checks outputs (and attention weights) agree in
float64. PyTorch's nn.MultiheadAttention / nn.Transformer*Layer use the opposite
boolean-mask convention (True = NOT allowed), so masks are inverted on the way in.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from quizforge.reference import (
    DecoderLayer,
    EncoderLayer,
    FeedForward,
    LayerNorm,
    ModelConfig,
    MultiHeadAttention,
    RMSNorm,
    build,
    causal_mask,
    padding_mask,
    scaled_dot_product_attention,
    sinusoidal_table,
)

DT = torch.float64
TOL = dict(rtol=1e-10, atol=1e-12)


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


def _randn(*shape: int, g: torch.Generator) -> torch.Tensor:
    return torch.randn(*shape, generator=g, dtype=DT)


# ---------------------------------------------------------------------------
# 1. scaled dot-product attention vs F.scaled_dot_product_attention
# ---------------------------------------------------------------------------

def _sdpa_case(name: str, g: torch.Generator):
    """(q, k, v, mask) for one named case."""
    if name == "no-mask":
        return _randn(2, 3, 5, 8, g=g), _randn(2, 3, 5, 8, g=g), _randn(2, 3, 5, 8, g=g), None
    if name == "causal":
        q, k, v = (_randn(2, 3, 6, 8, g=g) for _ in range(3))
        return q, k, v, causal_mask(6)
    if name == "padding":
        q, k, v = (_randn(3, 2, 5, 8, g=g) for _ in range(3))
        return q, k, v, padding_mask(torch.tensor([5, 3, 1]), 5)  # (3, 1, 1, 5)
    if name == "causal+padding":
        q, k, v = (_randn(3, 2, 5, 8, g=g) for _ in range(3))
        return q, k, v, causal_mask(5) & padding_mask(torch.tensor([5, 3, 1]), 5)
    if name == "nq!=nk":
        q = _randn(2, 2, 3, 8, g=g)
        k, v = _randn(2, 2, 7, 8, g=g), _randn(2, 2, 7, 8, g=g)
        return q, k, v, causal_mask(3, 7)  # queries are the last 3 of 7 positions
    if name == "dv!=dk":
        q, k = _randn(2, 4, 8, g=g), _randn(2, 6, 8, g=g)
        return q, k, _randn(2, 6, 5, g=g), padding_mask(torch.tensor([6, 2]), 6)[:, 0]  # (2, 1, 6)
    if name == "leading-dims":
        q, k, v = _randn(2, 3, 2, 4, 8, g=g), _randn(2, 3, 2, 6, 8, g=g), _randn(2, 3, 2, 6, 3, g=g)
        mask = torch.rand(2, 3, 2, 4, 6, generator=g) < 0.5
        mask[..., 0] = True  # every query may see at least one key
        return q, k, v, mask
    raise AssertionError(name)


SDPA_CASES = ["no-mask", "causal", "padding", "causal+padding", "nq!=nk", "dv!=dk", "leading-dims"]


@pytest.mark.parametrize("case", SDPA_CASES)
def test_sdpa_matches_torch(case: str) -> None:
    q, k, v, mask = _sdpa_case(case, _gen(SDPA_CASES.index(case)))
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert out.shape == expected.shape == (*q.shape[:-1], v.shape[-1])
    torch.testing.assert_close(out, expected, **TOL)

    assert weights.shape == (*q.shape[:-1], k.shape[-2])
    torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1], dtype=DT), **TOL)
    assert (weights >= 0).all()
    torch.testing.assert_close(weights @ v, out, **TOL)
    if mask is not None:
        full_mask = mask.expand(weights.shape)
        assert (weights[~full_mask] == 0.0).all(), "masked positions must get exactly zero weight"
        assert (weights[full_mask] > 0.0).all()
    # independent recomputation of the weights
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    torch.testing.assert_close(weights, torch.softmax(scores, -1), **TOL)


def test_sdpa_fully_masked_row_gives_zeros_like_torch() -> None:
    g = _gen(11)
    q, k, v = _randn(2, 2, 4, 8, g=g), _randn(2, 2, 5, 8, g=g), _randn(2, 2, 5, 8, g=g)
    mask = torch.ones(4, 5, dtype=torch.bool)
    mask[2] = False  # query 2 may attend to nothing
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    assert not out.isnan().any() and not weights.isnan().any()
    assert (out[..., 2, :] == 0).all()
    assert (expected[..., 2, :] == 0).all()
    assert (weights[..., 2, :] == 0).all()
    torch.testing.assert_close(out, expected, **TOL)
    # the other rows are unaffected
    torch.testing.assert_close(weights[..., [0, 1, 3], :].sum(-1), torch.ones(2, 2, 3, dtype=DT), **TOL)


def test_sdpa_hand_computed() -> None:
    q = torch.tensor([[1.0, 0.0]], dtype=DT)
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=DT)
    v = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=DT)
    out, weights = scaled_dot_product_attention(q, k, v)
    a = math.exp(1 / math.sqrt(2))
    w0, w1 = a / (a + 1), 1 / (a + 1)
    torch.testing.assert_close(weights, torch.tensor([[w0, w1]], dtype=DT), **TOL)
    torch.testing.assert_close(out, torch.tensor([[w0 * 1 + w1 * 3, w0 * 2 + w1 * 4]], dtype=DT), **TOL)
    # masking the second key puts all the weight on the first
    out, weights = scaled_dot_product_attention(q, k, v, torch.tensor([[True, False]]))
    assert weights.tolist() == [[1.0, 0.0]]
    assert out.tolist() == [[1.0, 2.0]]


def test_sdpa_custom_scale_matches_torch() -> None:
    g = _gen(12)
    q, k, v = _randn(2, 5, 8, g=g), _randn(2, 5, 8, g=g), _randn(2, 5, 8, g=g)
    out, _ = scaled_dot_product_attention(q, k, v, causal_mask(5), scale=0.3)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(5), scale=0.3), **TOL)


def test_sdpa_rejects_non_bool_mask() -> None:
    q = torch.zeros(1, 2, 4)
    with pytest.raises(TypeError):
        scaled_dot_product_attention(q, q, q, torch.ones(2, 2))


# ---------------------------------------------------------------------------
# 2. MultiHeadAttention vs nn.MultiheadAttention
# ---------------------------------------------------------------------------

def _copy_mha(ours: MultiHeadAttention, theirs: nn.MultiheadAttention) -> None:
    """Copy our W_q, W_k, W_v, W_o into PyTorch's stacked in_proj and out_proj."""
    with torch.no_grad():
        theirs.in_proj_weight.copy_(torch.cat([ours.W_q.weight, ours.W_k.weight, ours.W_v.weight]))
        theirs.out_proj.weight.copy_(ours.W_o.weight)
        if ours.W_q.bias is not None:
            theirs.in_proj_bias.copy_(torch.cat([ours.W_q.bias, ours.W_k.bias, ours.W_v.bias]))
            theirs.out_proj.bias.copy_(ours.W_o.bias)
        else:
            assert theirs.in_proj_bias is None and theirs.out_proj.bias is None


def _mha_pair(d_model: int, n_heads: int, bias: bool, seed: int):
    torch.manual_seed(seed)
    ours = MultiHeadAttention(d_model, n_heads, bias=bias).to(DT).eval()
    if bias:  # nn.Linear biases are random already, but make sure none is zero
        assert all(m.bias.abs().min() > 0 for m in (ours.W_q, ours.W_k, ours.W_v, ours.W_o))
    theirs = nn.MultiheadAttention(d_model, n_heads, bias=bias, batch_first=True, dtype=DT).eval()
    _copy_mha(ours, theirs)
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())
    return ours, theirs


MHA_CASES = ["self", "self-causal", "self-padding", "self-causal+padding", "cross", "cross-padding"]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("case", MHA_CASES)
def test_mha_matches_torch(case: str, bias: bool) -> None:
    d_model, h, B = 24, 4, 3
    ours, theirs = _mha_pair(d_model, h, bias, seed=MHA_CASES.index(case))
    g = _gen(100 + MHA_CASES.index(case))
    cross = case.startswith("cross")
    n_q, n_k = (4, 7) if cross else (6, 6)
    x = _randn(B, n_q, d_model, g=g)
    mem = _randn(B, n_k, d_model, g=g) if cross else x
    lengths = torch.tensor([n_k, 3, 1])
    keep = padding_mask(lengths, n_k)[:, 0, 0, :]  # (B, n_k), True on real tokens

    our_mask = None
    attn_mask = key_padding_mask = None
    if "causal" in case:
        our_mask = causal_mask(n_q)
        attn_mask = ~causal_mask(n_q)  # PyTorch: True = NOT allowed
    if "padding" in case:
        pad = padding_mask(lengths, n_k)  # (B, 1, 1, n_k)
        our_mask = pad if our_mask is None else our_mask & pad
        key_padding_mask = ~keep  # PyTorch: True = padding

    if cross:
        out, w = ours(x, mem, mem, mask=our_mask)
    else:
        out, w = ours(x, mask=our_mask)
    exp_out, exp_w = theirs(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                            need_weights=True, average_attn_weights=False)
    assert out.shape == (B, n_q, d_model)
    assert w.shape == exp_w.shape == (B, h, n_q, n_k)
    torch.testing.assert_close(out, exp_out, **TOL)
    torch.testing.assert_close(w, exp_w, **TOL)  # per head
    _, exp_avg = theirs(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                        need_weights=True, average_attn_weights=True)
    torch.testing.assert_close(w.mean(dim=1), exp_avg, **TOL)
    if "padding" in case:
        assert (w[2, :, :, 1:] == 0).all()  # sequence 2 has a single real key


def test_mha_unbatched_matches_batched() -> None:
    ours, theirs = _mha_pair(16, 2, True, seed=7)
    x = _randn(5, 16, g=_gen(7))
    out, w = ours(x, mask=causal_mask(5))
    out_b, w_b = ours(x[None], mask=causal_mask(5))
    assert out.shape == (5, 16) and w.shape == (2, 5, 5)
    torch.testing.assert_close(out, out_b[0], **TOL)
    torch.testing.assert_close(w, w_b[0], **TOL)
    exp, _ = theirs(x, x, x, attn_mask=~causal_mask(5))
    torch.testing.assert_close(out, exp, **TOL)


# ---------------------------------------------------------------------------
# 3. Encoder / decoder layers vs nn.TransformerEncoderLayer / nn.TransformerDecoderLayer
# ---------------------------------------------------------------------------

def _randomise_norms(module: nn.Module, g: torch.Generator) -> None:
    """LayerNorm starts at weight 1, bias 0; random values make the copy check meaningful."""
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, LayerNorm):
                m.weight.copy_(1 + 0.3 * torch.randn(m.weight.shape, generator=g, dtype=m.weight.dtype))
                m.bias.copy_(0.3 * torch.randn(m.bias.shape, generator=g, dtype=m.bias.dtype))


def _copy_linear(src: nn.Linear, dst: nn.Linear) -> None:
    dst.weight.copy_(src.weight)
    dst.bias.copy_(src.bias)


def _copy_norm(src: LayerNorm, dst: nn.LayerNorm) -> None:
    dst.weight.copy_(src.weight)
    dst.bias.copy_(src.bias)
    assert dst.eps == src.eps


D, H, FF = 16, 4, 40


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_layer_matches_torch(activation: str, norm_first: bool) -> None:
    torch.manual_seed(1)
    cfg = ModelConfig(arch="encoder-layer", d_model=D, n_heads=H, d_ff=FF, activation=activation,
                      norm_first=norm_first)
    ours = build(cfg, dtype=DT).eval()
    assert isinstance(ours, EncoderLayer)
    g = _gen(21)
    _randomise_norms(ours, g)
    theirs = nn.TransformerEncoderLayer(D, H, FF, dropout=0.0, activation=activation, batch_first=True,
                                        norm_first=norm_first, dtype=DT).eval()
    with torch.no_grad():
        _copy_mha(ours.self_attn, theirs.self_attn)
        _copy_linear(ours.ffn.W_1, theirs.linear1)
        _copy_linear(ours.ffn.W_2, theirs.linear2)
        _copy_norm(ours.norm1, theirs.norm1)
        _copy_norm(ours.norm2, theirs.norm2)
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())

    x = _randn(3, 6, D, g=g)
    # no mask
    torch.testing.assert_close(ours(x), theirs(x), **TOL)
    # padding mask
    lengths = torch.tensor([6, 4, 2])
    keep = padding_mask(lengths, 6)
    got = ours(x, keep)
    exp = theirs(x, src_key_padding_mask=~keep[:, 0, 0, :])
    torch.testing.assert_close(got, exp, **TOL)
    # a causal src mask
    torch.testing.assert_close(ours(x, causal_mask(6)), theirs(x, src_mask=~causal_mask(6)), **TOL)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_decoder_layer_matches_torch(activation: str, norm_first: bool) -> None:
    torch.manual_seed(2)
    cfg = ModelConfig(arch="decoder-layer", d_model=D, n_heads=H, d_ff=FF, activation=activation,
                      norm_first=norm_first)
    ours = build(cfg, dtype=DT).eval()
    assert isinstance(ours, DecoderLayer) and ours.cross_attn is not None
    g = _gen(22)
    _randomise_norms(ours, g)
    theirs = nn.TransformerDecoderLayer(D, H, FF, dropout=0.0, activation=activation, batch_first=True,
                                        norm_first=norm_first, dtype=DT).eval()
    with torch.no_grad():
        _copy_mha(ours.self_attn, theirs.self_attn)
        _copy_mha(ours.cross_attn, theirs.multihead_attn)
        _copy_linear(ours.ffn.W_1, theirs.linear1)
        _copy_linear(ours.ffn.W_2, theirs.linear2)
        _copy_norm(ours.norm1, theirs.norm1)
        _copy_norm(ours.norm2, theirs.norm2)
        _copy_norm(ours.norm3, theirs.norm3)
    assert sum(p.numel() for p in ours.parameters()) == sum(p.numel() for p in theirs.parameters())

    B, n_t, n_s = 3, 5, 7
    tgt, memory = _randn(B, n_t, D, g=g), _randn(B, n_s, D, g=g)
    src_keep = padding_mask(torch.tensor([7, 5, 2]), n_s)
    got = ours(tgt, memory, self_mask=causal_mask(n_t), memory_mask=src_keep)
    exp = theirs(tgt, memory, tgt_mask=~causal_mask(n_t), memory_key_padding_mask=~src_keep[:, 0, 0, :])
    assert got.shape == (B, n_t, D)
    torch.testing.assert_close(got, exp, **TOL)
    # without masks too
    torch.testing.assert_close(ours(tgt, memory), theirs(tgt, memory), **TOL)
    # the causal mask matters: changing a later target token leaves earlier outputs alone
    tgt2 = tgt.clone()
    tgt2[:, -1] += 1.0
    got2 = ours(tgt2, memory, self_mask=causal_mask(n_t), memory_mask=src_keep)
    torch.testing.assert_close(got2[:, :-1], got[:, :-1], **TOL)
    assert not torch.allclose(got2[:, -1], got[:, -1])


def test_decoder_layer_needs_memory() -> None:
    layer = build(ModelConfig(arch="decoder-layer", d_model=8, n_heads=2, d_ff=16))
    with pytest.raises(ValueError):
        layer(torch.zeros(1, 3, 8))


# ---------------------------------------------------------------------------
# 4. Norms and the feed-forward network
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [1e-5, 1e-12, 0.1])
def test_layernorm_matches_torch(eps: float) -> None:
    g = _gen(31)
    norm = LayerNorm(10, eps).to(DT)
    with torch.no_grad():
        norm.weight.copy_(_randn(10, g=g))
        norm.bias.copy_(_randn(10, g=g))
    x = 3 * _randn(2, 4, 10, g=g) + 1
    torch.testing.assert_close(norm(x), F.layer_norm(x, (10,), norm.weight, norm.bias, eps), **TOL)
    ref = nn.LayerNorm(10, eps=eps, dtype=DT)
    with torch.no_grad():
        ref.weight.copy_(norm.weight)
        ref.bias.copy_(norm.bias)
    torch.testing.assert_close(norm(x), ref(x), **TOL)


def test_layernorm_hand_computed() -> None:
    x = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=DT)  # mean 2.5, biased variance 1.25
    y = LayerNorm(4, eps=0.0).to(DT)(x)
    expected = torch.tensor([-1.5, -0.5, 0.5, 1.5], dtype=DT) / math.sqrt(1.25)
    torch.testing.assert_close(y, expected, **TOL)
    norm = build(ModelConfig(arch="layernorm", d_model=4, norm_eps=0.75), dtype=DT)
    torch.testing.assert_close(norm(x), torch.tensor([-1.5, -0.5, 0.5, 1.5], dtype=DT) / math.sqrt(2.0), **TOL)
    assert sum(p.numel() for p in norm.parameters()) == 8


@pytest.mark.parametrize("eps", [1e-6, 1e-5, 0.1])
def test_rmsnorm_matches_formula_and_torch(eps: float) -> None:
    g = _gen(32)
    norm = RMSNorm(12, eps).to(DT)
    with torch.no_grad():
        norm.weight.copy_(_randn(12, g=g))
    x = 2 * _randn(3, 5, 12, g=g) + 0.5
    expected = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + eps) * norm.weight
    torch.testing.assert_close(norm(x), expected, **TOL)
    if hasattr(nn, "RMSNorm"):
        ref = nn.RMSNorm(12, eps=eps, dtype=DT)
        with torch.no_grad():
            ref.weight.copy_(norm.weight)
        torch.testing.assert_close(norm(x), ref(x), **TOL)
        torch.testing.assert_close(norm(x), F.rms_norm(x, (12,), norm.weight, eps), **TOL)


def test_rmsnorm_hand_computed() -> None:
    x = torch.tensor([3.0, 4.0], dtype=DT)  # mean square 12.5
    y = RMSNorm(2, eps=0.0).to(DT)(x)
    torch.testing.assert_close(y, torch.tensor([3.0, 4.0], dtype=DT) / math.sqrt(12.5), **TOL)
    norm = build(ModelConfig(arch="rmsnorm", d_model=2, norm_eps=0.0), dtype=DT)
    assert isinstance(norm, RMSNorm)
    assert sum(p.numel() for p in norm.parameters()) == 2  # weight only, no bias
    # RMSNorm does not centre: a constant vector maps to (almost) all ones
    torch.testing.assert_close(RMSNorm(4, eps=0.0).to(DT)(torch.full((4,), -2.0, dtype=DT)),
                               -torch.ones(4, dtype=DT), **TOL)


@pytest.mark.parametrize("activation", ["relu", "gelu", "swiglu"])
def test_feedforward_matches_formula(activation: str) -> None:
    torch.manual_seed(3)
    ffn = FeedForward(8, 20, activation).to(DT)
    x = _randn(2, 3, 8, g=_gen(33))
    W1, b1, W2, b2 = ffn.W_1.weight, ffn.W_1.bias, ffn.W_2.weight, ffn.W_2.bias
    if activation == "relu":
        h = torch.clamp(x @ W1.T + b1, min=0)
    elif activation == "gelu":  # exact (erf) GELU, as in nn.TransformerEncoderLayer
        a = x @ W1.T + b1
        h = 0.5 * a * (1 + torch.erf(a / math.sqrt(2)))
    else:
        a = x @ W1.T + b1
        h = a * torch.sigmoid(a) * (x @ ffn.W_3.weight.T + ffn.W_3.bias)
    torch.testing.assert_close(ffn(x), h @ W2.T + b2, **TOL)
    n_mats = 3 if activation == "swiglu" else 2
    assert sum(p.numel() for p in ffn.parameters()) == n_mats * 8 * 20 + (n_mats - 1) * 20 + 8


# ---------------------------------------------------------------------------
# 5. Parameter counts of single layers
# ---------------------------------------------------------------------------

def _count(module: nn.Module) -> int:
    return sum(p.numel() for p in module.parameters())


def test_encoder_layer_parameter_count_matches_torch() -> None:
    with torch.device("meta"):
        theirs = nn.TransformerEncoderLayer(512, 8, 2048)
    assert _count(theirs) == 3_152_384
    ours = build(ModelConfig(arch="encoder-layer", d_model=512, n_heads=8, d_ff=2048), "meta")
    assert _count(ours) == 3_152_384
    # by hand: 4 (512² + 512) attention + (512·2048 + 2048 + 2048·512 + 512) FFN + 2·2·512 norms
    assert 4 * (512 * 512 + 512) + (2 * 512 * 2048 + 2048 + 512) + 4 * 512 == 3_152_384


def test_decoder_layer_parameter_count_matches_torch() -> None:
    with torch.device("meta"):
        theirs = nn.TransformerDecoderLayer(512, 8, 2048)
    ours = build(ModelConfig(arch="decoder-layer", d_model=512, n_heads=8, d_ff=2048), "meta")
    assert _count(theirs) == _count(ours) == 3_152_384 + 4 * (512 * 512 + 512) + 2 * 512 == 4_204_032


def test_mha_parameter_count_matches_torch() -> None:
    with torch.device("meta"):
        for bias in (True, False):
            theirs = nn.MultiheadAttention(512, 8, bias=bias)
            ours = build(ModelConfig(arch="mha", d_model=512, n_heads=8, bias=bias), "meta")
            assert _count(ours) == _count(theirs) == 4 * 512 * 512 + (4 * 512 if bias else 0)


# ---------------------------------------------------------------------------
# 6. Whole models against PyTorch building blocks (and an independent LLaMA forward)
# ---------------------------------------------------------------------------

def _randomise_all_norms(module: nn.Module, g: torch.Generator) -> None:
    _randomise_norms(module, g)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, RMSNorm):
                m.weight.copy_(1 + 0.3 * torch.randn(m.weight.shape, generator=g, dtype=m.weight.dtype))


def _torch_encoder_layer(ours: EncoderLayer | DecoderLayer, cfg: ModelConfig) -> nn.TransformerEncoderLayer:
    """A PyTorch encoder layer holding our layer's weights (a decoder-only block maps norm3 -> norm2)."""
    theirs = nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, cfg.d_ff, dropout=0.0, activation=cfg.activation,
                                        layer_norm_eps=cfg.norm_eps, batch_first=True, norm_first=cfg.norm_first,
                                        dtype=DT)
    ffn_norm = ours.norm2 if isinstance(ours, EncoderLayer) else ours.norm3
    with torch.no_grad():
        _copy_mha(ours.self_attn, theirs.self_attn)
        _copy_linear(ours.ffn.W_1, theirs.linear1)
        _copy_linear(ours.ffn.W_2, theirs.linear2)
        _copy_norm(ours.norm1, theirs.norm1)
        _copy_norm(ffn_norm, theirs.norm2)
    return theirs.eval()


def _torch_decoder_layer(ours: DecoderLayer, cfg: ModelConfig) -> nn.TransformerDecoderLayer:
    theirs = nn.TransformerDecoderLayer(cfg.d_model, cfg.n_heads, cfg.d_ff, dropout=0.0, activation=cfg.activation,
                                        layer_norm_eps=cfg.norm_eps, batch_first=True, norm_first=cfg.norm_first,
                                        dtype=DT)
    with torch.no_grad():
        _copy_mha(ours.self_attn, theirs.self_attn)
        _copy_mha(ours.cross_attn, theirs.multihead_attn)
        _copy_linear(ours.ffn.W_1, theirs.linear1)
        _copy_linear(ours.ffn.W_2, theirs.linear2)
        for i in (1, 2, 3):
            _copy_norm(getattr(ours, f"norm{i}"), getattr(theirs, f"norm{i}"))
    return theirs.eval()


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_decoder_matches_torch(norm_first: bool) -> None:
    torch.manual_seed(4)
    cfg = ModelConfig(arch="encoder-decoder", d_model=16, n_heads=4, d_ff=40, n_layers=2, n_decoder_layers=3,
                      vocab_size=30, max_len=20, norm_first=norm_first)
    ours = build(cfg, dtype=DT).eval()
    g = _gen(41)
    _randomise_all_norms(ours, g)
    enc = [_torch_encoder_layer(layer, cfg) for layer in ours.encoder]
    dec = [_torch_decoder_layer(layer, cfg) for layer in ours.decoder]
    assert len(enc) == 2 and len(dec) == 3

    src = torch.randint(0, 30, (3, 7), generator=g)
    tgt = torch.randint(0, 30, (3, 5), generator=g)
    keep = padding_mask(torch.tensor([7, 5, 2]), 7)[:, 0, 0, :]
    table = sinusoidal_table(20, 16, dtype=DT)
    E = ours.tok_emb.weight

    x = E[src] * 4.0 + table[:7]  # token embeddings scaled by sqrt(d_model) = 4
    for layer in enc:
        x = layer(x, src_key_padding_mask=~keep)
    if norm_first:
        x = F.layer_norm(x, (16,), ours.encoder_norm.weight, ours.encoder_norm.bias, cfg.norm_eps)
    memory = x
    y = E[tgt] * 4.0 + table[:5]
    for layer in dec:
        y = layer(y, memory, tgt_mask=~causal_mask(5), memory_key_padding_mask=~keep)
    if norm_first:
        y = F.layer_norm(y, (16,), ours.decoder_norm.weight, ours.decoder_norm.bias, cfg.norm_eps)
    expected = y @ E.T  # tied pre-softmax projection

    torch.testing.assert_close(ours.encode(src, keep), memory, **TOL)
    torch.testing.assert_close(ours(src, tgt, keep), expected, **TOL)
    assert ours.lm_head.proj.weight is ours.tok_emb.weight


def test_bert_matches_torch() -> None:
    torch.manual_seed(5)
    cfg = ModelConfig(arch="bert", d_model=16, n_heads=4, d_ff=64, n_layers=2, vocab_size=30, max_len=20,
                      n_token_types=2, pooler=True, norm_eps=1e-12)
    ours = build(cfg, dtype=DT).eval()
    g = _gen(42)
    _randomise_all_norms(ours, g)
    layers = [_torch_encoder_layer(layer, cfg) for layer in ours.layers]
    ids = torch.randint(0, 30, (3, 6), generator=g)
    types = (torch.arange(6) >= 3).long().expand(3, 6)
    keep = padding_mask(torch.tensor([6, 4, 1]), 6)[:, 0, 0, :]

    x = ours.tok_emb.weight[ids] + ours.pos_emb.weight[:6] + ours.type_emb.weight[types]
    x = F.layer_norm(x, (16,), ours.emb_norm.weight, ours.emb_norm.bias, 1e-12)
    for layer in layers:
        x = layer(x, src_key_padding_mask=~keep)
    pooled = torch.tanh(x[:, 0] @ ours.pooler.dense.weight.T + ours.pooler.dense.bias)

    hidden, got_pooled = ours(ids, types, keep)
    torch.testing.assert_close(hidden, x, **TOL)
    torch.testing.assert_close(got_pooled, pooled, **TOL)


def test_gpt_matches_torch() -> None:
    torch.manual_seed(6)
    cfg = ModelConfig(arch="gpt", d_model=16, n_heads=4, d_ff=64, n_layers=3, vocab_size=30, max_len=20)
    assert cfg.norm_first and cfg.activation == "gelu" and cfg.tied
    ours = build(cfg, dtype=DT).eval()
    g = _gen(43)
    _randomise_all_norms(ours, g)
    blocks = [_torch_encoder_layer(block, cfg) for block in ours.blocks]  # pre-norm, causal
    ids = torch.randint(0, 30, (2, 9), generator=g)

    x = ours.tok_emb.weight[ids] + ours.pos_emb.weight[:9]
    for block in blocks:
        x = block(x, src_mask=~causal_mask(9))
    x = F.layer_norm(x, (16,), ours.final_norm.weight, ours.final_norm.bias, cfg.norm_eps)
    torch.testing.assert_close(ours(ids), x @ ours.tok_emb.weight.T, **TOL)


def _llama_by_hand(model, ids: torch.Tensor) -> torch.Tensor:
    """LLaMA's forward written independently: complex-number RoPE on interleaved pairs (as in
    Meta's release), keys/values repeated per group, PyTorch's causal SDPA, RMSNorm, SwiGLU."""
    cfg = model.cfg
    B, n = ids.shape
    d, H, KV, dh, eps = cfg.d_model, cfg.n_heads, cfg.n_kv_heads, cfg.d_head, cfg.norm_eps
    freqs = 1.0 / cfg.rope_base ** (torch.arange(0, dh, 2, dtype=DT) / dh)
    angles = torch.outer(torch.arange(n, dtype=DT), freqs)  # (n, dh/2)
    rotation = torch.polar(torch.ones_like(angles), angles)

    def rope(x: torch.Tensor) -> torch.Tensor:  # (B, n, heads, dh)
        xc = torch.view_as_complex(x.reshape(*x.shape[:-1], dh // 2, 2).contiguous())
        return torch.view_as_real(xc * rotation[None, :, None, :]).flatten(-2)

    h = model.tok_emb.weight[ids]
    for blk in model.blocks:
        a, f = blk.self_attn, blk.ffn
        x = F.rms_norm(h, (d,), blk.norm1.weight, eps)
        q = rope((x @ a.W_q.weight.T).view(B, n, H, dh))
        k = rope((x @ a.W_k.weight.T).view(B, n, KV, dh)).repeat_interleave(H // KV, dim=2)
        v = (x @ a.W_v.weight.T).view(B, n, KV, dh).repeat_interleave(H // KV, dim=2)
        o = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        h = h + o.transpose(1, 2).reshape(B, n, H * dh) @ a.W_o.weight.T
        x = F.rms_norm(h, (d,), blk.norm3.weight, eps)
        h = h + (F.silu(x @ f.W_1.weight.T) * (x @ f.W_3.weight.T)) @ f.W_2.weight.T
    h = F.rms_norm(h, (d,), model.final_norm.weight, eps)
    return h @ model.lm_head.proj.weight.T


@pytest.mark.parametrize("n_kv_heads", [4, 2, 1])
def test_llama_matches_independent_forward(n_kv_heads: int) -> None:
    torch.manual_seed(7)
    cfg = ModelConfig(arch="llama", d_model=32, n_heads=4, n_kv_heads=n_kv_heads, d_ff=48, n_layers=2,
                      vocab_size=30, max_len=20)
    ours = build(cfg, dtype=DT).eval()
    assert not cfg.tied and not cfg.bias
    g = _gen(44)
    _randomise_all_norms(ours, g)
    ids = torch.randint(0, 30, (2, 11), generator=g)
    with torch.no_grad():
        torch.testing.assert_close(ours(ids), _llama_by_hand(ours, ids), **TOL)
