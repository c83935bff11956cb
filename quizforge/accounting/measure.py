"""Figures measured on an instantiated reference model: the first of the two computations.

Parameters are summed `numel()`s; FLOPs come from running a forward (and backward)
pass under `torch.utils.flop_counter.FlopCounterMode`; cache and score sizes are
read off the tensors the model really builds. On the meta device none of this
allocates memory, so the largest presets are measured in a fraction of a second.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

import torch
from torch import Tensor, nn
from torch.utils.flop_counter import FlopCounterMode

from quizforge.errors import InputError
from quizforge.reference import build
from quizforge.reference.attention import ScaledDotProductAttention
from quizforge.reference.config import ModelConfig
from quizforge.reference.heads import LMHead, Pooler
from quizforge.reference.kv_cache import LayerKVCache

DTYPES = {"fp32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16, "int8": torch.int8}

# Below these, a model is small enough to instantiate for real on the chosen device.
_MAX_REAL_BYTES = 4 * 2**30


def component_of(module: nn.Module) -> str | None:
    if isinstance(module, nn.Embedding):  # token, position and segment tables
        return "embeddings"
    return getattr(type(module), "accounting_component", None)


def resolve_device(device: str) -> torch.device:
    if device not in ("cpu", "cuda", "meta"):
        raise InputError(f"unknown device {device!r}; choose cpu, cuda or meta")
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("--device cuda was asked for, but PyTorch sees no CUDA GPU here")
    return torch.device(device)


def _check_fits(cfg: ModelConfig, device: torch.device, n_params: int) -> None:
    if device.type != "meta" and n_params * 4 > _MAX_REAL_BYTES:
        gib = n_params * 4 / 2**30
        raise InputError(
            f"{cfg.name or cfg.arch} needs {gib:,.1f} GiB of fp32 weights; use --device meta to count it")


def instantiate(cfg: ModelConfig, device: str = "meta") -> nn.Module:
    dev = resolve_device(device)
    if dev.type != "meta":
        _check_fits(cfg, dev, sum(measure_params(cfg).values()))
    return build(cfg, dev).eval()


def measure_params(cfg: ModelConfig, model: nn.Module | None = None) -> dict[str, int]:
    """numel() of every parameter, attributed to the outermost component that owns it.

    A tied head shares the embedding's tensor; each tensor is counted once, where it
    is first registered (the embedding).
    """
    model = model if model is not None else build(cfg, "meta")
    counts: dict[str, int] = defaultdict(int)
    seen: set[int] = set()

    def visit(module: nn.Module, inherited: str | None) -> None:
        component = inherited or component_of(module)
        for p in module.parameters(recurse=False):
            if id(p) not in seen:
                seen.add(id(p))
                counts[component or "other"] += p.numel()
        for child in module.children():
            visit(child, component)

    visit(model, None)
    return dict(counts)


def example_inputs(cfg: ModelConfig, batch: int, seq_len: int, device: torch.device,
                   tgt_len: int | None = None, requires_grad: bool = False) -> tuple:
    """Arguments for model(*args): token ids for models, activations for components."""
    def ids(length: int) -> Tensor:
        return torch.zeros(batch, length, dtype=torch.long, device=device)

    if cfg.arch == "encoder-decoder":
        return ids(seq_len), ids(tgt_len or seq_len)
    if cfg.arch in ("bert", "gpt", "llama"):
        return (ids(seq_len),)
    x = torch.zeros(batch, seq_len, cfg.d_model, device=device, requires_grad=requires_grad)
    if cfg.arch == "decoder-layer":
        memory = torch.zeros(batch, seq_len, cfg.d_model, device=device, requires_grad=requires_grad)
        return x, memory
    return (x,)


def check_activations_fit(cfg: ModelConfig, batch: int, seq_len: int, tgt_len: int | None,
                           device: torch.device) -> None:
    """A rough fp32 size of what a training step keeps for backward, before running it for real."""
    if device.type == "meta":
        return
    n = max(seq_len, tgt_len or 0)
    layers = cfg.encoder_layers + 2 * cfg.decoder_layers if cfg.arch == "encoder-decoder" else cfg.n_layers
    per_layer = batch * (2 * cfg.n_heads * n * n + n * (2 * cfg.d_ff + 8 * cfg.d_model))
    estimate = 4 * (layers * per_layer + 2 * batch * n * cfg.vocab_size)
    if estimate > _MAX_REAL_BYTES:
        raise InputError(f"a training step at this size needs about {estimate / 2**30:,.0f} GiB on "
                         f"{device.type}; use --device meta to count it")


def _check_positions(cfg: ModelConfig, seq_len: int, tgt_len: int | None) -> None:
    if cfg.is_model and cfg.positional in ("learned", "sinusoidal") and cfg.max_len:
        longest = max(seq_len, tgt_len or 0)
        if longest > cfg.max_len:
            raise InputError(f"--seq-len {longest} is longer than the model's context of {cfg.max_len}")


def _scalar_loss(out) -> Tensor:
    """Sum every tensor a model returns (BERT returns hidden states and the pooled vector)."""
    outputs = out if isinstance(out, tuple) else (out,)
    return sum(o.sum() for o in outputs if o is not None)


@dataclass(frozen=True)
class FlopMeasurement:
    forward: dict[str, int]  # per component, one forward pass
    training: int  # one forward and one backward pass


def measure_flops(cfg: ModelConfig, batch: int, seq_len: int, tgt_len: int | None = None,
                  device: str = "meta", model: nn.Module | None = None) -> FlopMeasurement:
    """Run forward then backward under FlopCounterMode.

    The per-component forward counts are read after the forward pass, before the
    backward pass adds to them. Every input of every product needs a gradient (the
    inputs of a lone component are made to require one), so backward is complete.
    """
    _check_positions(cfg, seq_len, tgt_len)
    model = model if model is not None else instantiate(cfg, device)
    model.train()
    _disable_dropout(model)
    dev = next(iter(model.parameters())).device
    check_activations_fit(cfg, batch, seq_len, tgt_len, dev)
    args = example_inputs(cfg, batch, seq_len, dev, tgt_len, requires_grad=True)
    counter = FlopCounterMode(display=False)
    with counter:
        out = model(*args)
        forward = _forward_breakdown(model, counter)
        _scalar_loss(out).backward()
    return FlopMeasurement(forward, counter.get_total_flops())


def _forward_breakdown(model: nn.Module, counter: FlopCounterMode) -> dict[str, int]:
    root = type(model).__name__
    counts = {"attention_proj": 0, "attention_scores": 0, "ffn": 0, "head": 0, "pooler": 0}
    attention_total = 0
    for name, ops in counter.get_flop_counts().items():
        if name == "Global":
            continue
        path = name[len(root) + 1:] if name != root else ""
        module = model.get_submodule(path) if path else model
        flops = sum(ops.values())
        if isinstance(module, ScaledDotProductAttention):
            counts["attention_scores"] += flops
        elif component_of(module) == "attention":
            attention_total += flops
        elif isinstance(module, LMHead):
            counts["head"] += flops
        elif isinstance(module, Pooler):
            counts["pooler"] += flops
        elif component_of(module) == "ffn":
            counts["ffn"] += flops
    counts["attention_proj"] = attention_total - counts["attention_scores"]
    unattributed = counter.get_total_flops() - sum(counts.values())
    if unattributed:
        counts["other"] = unattributed
    return counts


def _disable_dropout(model: nn.Module) -> None:
    for m in model.modules():
        if isinstance(m, nn.Dropout):
            m.p = 0.0
        if isinstance(m, ScaledDotProductAttention):
            m.dropout = 0.0


def measure_kv_cache_bytes(cfg: ModelConfig, batch: int, seq_len: int, dtype: str) -> int:
    """Prefill seq_len tokens on meta and read the size of the cache the model filled."""
    if dtype not in DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; choose {', '.join(DTYPES)}")
    if cfg.arch in ("bert", "encoder-layer", "mha", "ffn", "layernorm", "rmsnorm"):
        raise InputError(f"{cfg.name or cfg.arch} does not decode autoregressively, so it has no KV cache")
    _check_positions(cfg, seq_len, None)
    model = build(cfg, "meta").eval()
    store = DTYPES[dtype]
    with torch.no_grad():
        if cfg.arch == "decoder-layer":
            cache = LayerKVCache(store)
            x = torch.zeros(batch, seq_len, cfg.d_model, device="meta")
            model(x, x, cache=cache)
        else:
            cache = model.new_cache(store)
            ids = torch.zeros(batch, seq_len, dtype=torch.long, device="meta")
            if cfg.arch == "encoder-decoder":
                model.decode(ids, model.encode(ids[:, :1]), cache=cache)
            else:
                model(ids, cache)
    return cache.nbytes


def measure_attention_scores(cfg: ModelConfig, batch: int, seq_len: int,
                             tgt_len: int | None = None) -> dict[str, int]:
    """Entries of every attention-weight matrix one forward pass builds (meta device)."""
    _check_positions(cfg, seq_len, tgt_len)
    model = build(cfg, "meta").eval()
    sizes: list[int] = []

    def record(_module, _inputs, output) -> None:
        sizes.append(output[1].numel())

    hooks = [m.register_forward_hook(record) for m in model.modules()
             if isinstance(m, ScaledDotProductAttention)]
    try:
        with torch.no_grad():
            model(*example_inputs(cfg, batch, seq_len, torch.device("meta"), tgt_len))
    finally:
        for hook in hooks:
            hook.remove()
    return {"per_layer": sizes[0] if sizes else 0, "total": sum(sizes)}
