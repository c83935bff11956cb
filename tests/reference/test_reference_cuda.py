"""The reference transformer on an NVIDIA GPU gives the CPU's answers.

Skipped (cleanly, at collection) wherever PyTorch sees no CUDA device.
"""

from __future__ import annotations

import copy

import pytest
import torch
import torch.nn.functional as F

from quizforge.reference import (
    ModelConfig,
    build,
    causal_mask,
    generate,
    padding_mask,
    scaled_dot_product_attention,
)

pytestmark = [
    pytest.mark.cuda,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU (torch.cuda.is_available() is False)"),
]

DT = torch.float64
TOL64 = dict(rtol=1e-9, atol=1e-10)

TINY = {
    "gpt": dict(arch="gpt", d_model=32, n_heads=4, d_ff=64, n_layers=2, vocab_size=50, max_len=32),
    "llama": dict(arch="llama", d_model=32, n_heads=4, n_kv_heads=2, d_ff=48, n_layers=2, vocab_size=50,
                  max_len=32),
    "encoder-decoder": dict(arch="encoder-decoder", d_model=32, n_heads=4, d_ff=64, n_layers=2,
                            vocab_size=50, max_len=32),
    "bert": dict(arch="bert", d_model=32, n_heads=4, d_ff=64, n_layers=2, vocab_size=50, max_len=32,
                 n_token_types=2, pooler=True),
}


def _pair(arch: str, dtype: torch.dtype):
    torch.manual_seed(0)
    cpu = build(ModelConfig(**TINY[arch]), "cpu", dtype).eval()
    gpu = copy.deepcopy(cpu).to("cuda")
    for (name, p_cpu), (_, p_gpu) in zip(cpu.state_dict().items(), gpu.state_dict().items()):
        assert p_gpu.device.type == "cuda", name
        assert torch.equal(p_cpu, p_gpu.cpu()), name
    return cpu, gpu


def _inputs(seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(0, 50, (3, 7), generator=g)
    tgt = torch.randint(0, 50, (3, 5), generator=g)
    keep = padding_mask(torch.tensor([7, 4, 2]), 7)[:, 0, 0, :]
    return ids, tgt, keep


def _run(model, arch: str, ids, tgt, keep):
    with torch.no_grad():
        if arch == "encoder-decoder":
            return model(ids, tgt, keep)
        if arch == "bert":
            hidden, pooled = model(ids, torch.zeros_like(ids), keep)
            return torch.cat((hidden.flatten(1), pooled), dim=1)
        return model(ids)


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
@pytest.mark.parametrize("arch", sorted(TINY))
def test_model_on_cuda_matches_cpu(arch: str, dtype: torch.dtype) -> None:
    cpu, gpu = _pair(arch, dtype)
    ids, tgt, keep = _inputs()
    want = _run(cpu, arch, ids, tgt, keep)
    got = _run(gpu, arch, ids.cuda(), tgt.cuda(), keep.cuda())
    assert got.device.type == "cuda" and got.dtype == dtype
    tol = TOL64 if dtype == torch.float64 else dict(rtol=1e-4, atol=1e-4)
    torch.testing.assert_close(got.cpu(), want, **tol)


@pytest.mark.parametrize("arch", ["gpt", "llama"])
def test_kv_cache_and_greedy_generation_on_cuda(arch: str) -> None:
    cpu, gpu = _pair(arch, DT)
    ids, _, _ = _inputs(1)
    ids_gpu = ids.cuda()
    with torch.no_grad():
        full = gpu(ids_gpu)
        cache = gpu.new_cache()
        steps = torch.cat([gpu(ids_gpu[:, i:i + 1], cache) for i in range(ids.shape[1])], dim=1)
    torch.testing.assert_close(steps, full, **TOL64)
    assert cache.nbytes == 2 * cpu.cfg.n_layers * 3 * cpu.cfg.n_kv_heads * 7 * cpu.cfg.d_head * 8
    out_gpu = generate(gpu, ids_gpu, 6, temperature=0.0)
    out_cpu = generate(cpu, ids, 6, temperature=0.0)
    assert torch.equal(out_gpu.cpu(), out_cpu)
    g = torch.Generator(device="cuda").manual_seed(0)
    a = generate(gpu, ids_gpu, 6, temperature=1.0, generator=g)
    g = torch.Generator(device="cuda").manual_seed(0)
    assert torch.equal(a, generate(gpu, ids_gpu, 6, temperature=1.0, generator=g))


def test_llama_bf16_rope_positions_on_cuda() -> None:
    # bf16 cannot represent 257: the rotation angles must still be computed from exact positions.
    torch.manual_seed(0)
    cfg = ModelConfig(**{**TINY["llama"], "max_len": 512, "n_layers": 1})
    model64 = build(cfg, "cuda", DT).eval()
    rope = model64.blocks[0].self_attn.rope
    model16 = copy.deepcopy(model64).to(torch.bfloat16)
    pos = torch.tensor([256, 257], device="cuda")
    assert model16.blocks[0].self_attn.rope.angles(pos)[1, 0].item() == 257.0
    assert rope.angles(pos)[0, 0].item() == 256.0


def _sdpa_cases(device: str, dtype: torch.dtype):
    g = torch.Generator(device=device).manual_seed(0)

    def r(*shape):
        return torch.randn(*shape, generator=g, device=device, dtype=dtype)

    yield r(2, 4, 6, 16), r(2, 4, 6, 16), r(2, 4, 6, 16), None
    yield r(2, 4, 6, 16), r(2, 4, 6, 16), r(2, 4, 6, 16), causal_mask(6, device=device)
    yield r(3, 2, 5, 16), r(3, 2, 9, 16), r(3, 2, 9, 8), padding_mask(torch.tensor([9, 4, 1], device=device), 9)
    yield r(2, 3, 16), r(2, 9, 16), r(2, 9, 16), causal_mask(3, 9, device=device)
    rowless = torch.ones(4, 5, dtype=torch.bool, device=device)
    rowless[1] = False  # query 1 may attend to nothing: zeros, not NaN
    yield r(2, 2, 4, 16), r(2, 2, 5, 16), r(2, 2, 5, 16), rowless


@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_sdpa_on_cuda_matches_torch_and_cpu(dtype: torch.dtype) -> None:
    from torch.nn.attention import SDPBackend, sdpa_kernel

    tol = TOL64 if dtype == torch.float64 else dict(rtol=1e-5, atol=1e-5)
    for q, k, v, mask in _sdpa_cases("cuda", dtype):
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        assert out.device.type == "cuda"
        with sdpa_kernel(SDPBackend.MATH):  # the backend whose fully-masked rows are defined as 0
            torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), **tol)
        if mask is None or mask.any(-1).all():  # whichever fused kernel PyTorch picks (may use TF32)
            fused_tol = tol if dtype == torch.float64 else dict(rtol=5e-3, atol=5e-3)
            torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask), **fused_tol)
        cpu_mask = None if mask is None else mask.cpu()
        out_cpu, w_cpu = scaled_dot_product_attention(q.cpu(), k.cpu(), v.cpu(), cpu_mask)
        torch.testing.assert_close(out.cpu(), out_cpu, **tol)
        torch.testing.assert_close(weights.cpu(), w_cpu, **tol)
        assert not out.isnan().any()
