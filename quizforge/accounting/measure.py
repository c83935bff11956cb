"""Figures measured on an instantiated reference model: the first of the two computations.

Parameters are summed `numel()`s; FLOPs come from running a forward (and backward)
pass under `torch.utils.flop_counter.FlopCounterMode`; cache and score sizes are
read off the tensors the model really builds. On the meta device none of this
allocates memory.

The layers of a stack are identical, so FLOPs, cache bytes and score
entries are affine in the number of layers: a model with one and with two layers
(and, for an encoder–decoder, one more with two decoder layers) gives the cost of
the rest and of one layer, and the full figure is that layer times the stack's
depth. Meta kernels cost about a millisecond per op, so GPT-3 175B's 96 layers are
measured in tens of milliseconds instead of seconds. `tests/accounting/test_accounting.py`
proves the extrapolation equal, to the integer, to measuring every layer; a model
whose stacks are not identical layers (`stacks_identical`) is measured whole.
"""

from __future__ import annotations

import functools
from collections import defaultdict
from dataclasses import dataclass
from typing import Callable, TypeVar

import torch
from torch import Tensor, nn
from torch.utils.flop_counter import FlopCounterMode

from quizforge.accounting.dynamo_free import without_dynamo_import
from quizforge.accounting.queries import check_has_kv_cache
from quizforge.accounting.queries import check_positions as _check_positions
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
        raise InputError("cuda was asked for, but PyTorch sees no CUDA GPU here", param="device")
    return torch.device(device)


def check_fits(cfg: ModelConfig, device: torch.device, n_params: int) -> None:
    if device.type != "meta" and n_params * 4 > _MAX_REAL_BYTES:
        gib = n_params * 4 / 2**30
        raise InputError(
            f"{cfg.name or cfg.arch} needs {gib:,.1f} GiB of fp32 weights; count it on the meta device",
            param="device")


def instantiate(cfg: ModelConfig, device: str = "meta") -> nn.Module:
    dev = resolve_device(device)
    if dev.type != "meta":
        check_fits(cfg, dev, sum(measure_params(cfg).values()))
    return build(cfg, dev).eval()


Figure = TypeVar("Figure", int, dict)


def _stack_depths(cfg: ModelConfig) -> tuple[int, int]:
    """(encoder layers, decoder layers) of a model; (0, 0) for a lone component."""
    if not cfg.is_model:
        return 0, 0
    if cfg.arch == "encoder-decoder":
        return cfg.encoder_layers, cfg.decoder_layers
    return cfg.n_layers, 0


def _with_depths(cfg: ModelConfig, encoder: int, decoder: int) -> ModelConfig:
    if cfg.arch == "encoder-decoder":
        return cfg.with_(n_layers=encoder, n_encoder_layers=encoder, n_decoder_layers=decoder)
    return cfg.with_(n_layers=encoder)


def _combine(base: Figure, terms: list[tuple[int, Figure]]) -> Figure:
    """base + Σ k·(probe − base), on ints or on dicts of ints (missing keys are 0)."""
    if isinstance(base, dict):
        keys = set(base).union(*(set(probe) for _, probe in terms))
        return {key: base.get(key, 0) + sum(k * (probe.get(key, 0) - base.get(key, 0)) for k, probe in terms)
                for key in keys}
    return base + sum(k * (probe - base) for k, probe in terms)


def per_layer(cfg: ModelConfig, measure_one: Callable[[ModelConfig], Figure]) -> Figure:
    """`measure_one(cfg)`, measured on at most two layers per stack and extended to the full depth.

    Exact because the layers of a stack are identical and run one after another: every
    extra layer adds the same figure (the difference between the two- and one-layer models).
    A model whose stacks are not identical layers is measured whole.
    """
    encoder, decoder = _stack_depths(cfg)
    if (encoder <= 2 and decoder <= 2) or not _identical_when_built(build, cfg):
        return measure_one(cfg)
    base = measure_one(_with_depths(cfg, 1, min(decoder, 1)))
    terms = [(encoder - 1, measure_one(_with_depths(cfg, 2, min(decoder, 1))))]
    if decoder > 1:
        terms.append((decoder - 1, measure_one(_with_depths(cfg, 1, 2))))
    return _combine(base, terms)


def _signature(layer: nn.Module) -> tuple:
    """What makes two layers compute the same: submodule types, settings and tensor shapes."""
    plain = (int, float, bool, str, type(None))
    parts = []
    for name, module in layer.named_modules():
        settings = tuple(sorted((k, v) for k, v in vars(module).items()
                                if not k.startswith("_") and k != "training" and isinstance(v, plain)))
        parts.append((name, type(module).__qualname__, module.extra_repr(), settings))
    tensors = [(name, tuple(t.shape), t.dtype) for name, t in
               (*layer.named_parameters(), *layer.named_buffers())]
    return tuple(parts), tuple(tensors)


@functools.lru_cache(maxsize=2)
def _meta_model(builder: Callable, cfg: ModelConfig) -> nn.Module:
    """The model BUILDER makes of CFG on meta, for reading only: a report counts its parameters
    and checks its stacks, and a 96-layer build costs a tenth of a second."""
    return builder(cfg, "meta")


@functools.lru_cache(maxsize=1024)
def _identical_when_built(builder: Callable, cfg: ModelConfig) -> bool:
    return stacks_identical(_meta_model(builder, cfg))


def stacks_identical(model: nn.Module) -> bool:
    """True when every layer stack (a ModuleList) of `model` repeats one layer exactly."""
    for module in model.modules():
        if isinstance(module, nn.ModuleList) and len(module) > 1:
            first = _signature(module[0])
            if any(_signature(layer) != first for layer in module[1:]):
                return False
    return True


@without_dynamo_import
def measure_params(cfg: ModelConfig, model: nn.Module | None = None) -> dict[str, int]:
    """numel() of every parameter, attributed to the outermost component that owns it.

    A tied head shares the embedding's tensor; each tensor is counted once, where it
    is first registered (the embedding).
    """
    model = model if model is not None else _meta_model(build, cfg)
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
                         f"{device.type}; count it on the meta device", param="device")


def _scalar_loss(out) -> Tensor:
    """Sum every tensor a model returns (BERT returns hidden states and the pooled vector)."""
    outputs = out if isinstance(out, tuple) else (out,)
    return sum(o.sum() for o in outputs if o is not None)


@dataclass(frozen=True)
class FlopMeasurement:
    forward: dict[str, int]  # per component, one forward pass
    training: int  # one forward and one backward pass


@without_dynamo_import
def measure_flops(cfg: ModelConfig, batch: int, seq_len: int, tgt_len: int | None = None,
                  device: str = "meta", model: nn.Module | None = None) -> FlopMeasurement:
    """Forward and training FLOPs, measured under FlopCounterMode.

    With `model`, that model is run as it is, every layer of it. Without, models
    of one and two layers per stack are built on `device` and extended to the full
    depth (`per_layer`), which gives the same integers in a fraction of the time.
    """
    _check_positions(cfg, seq_len, tgt_len)
    if model is not None:
        return _run_flops(cfg, batch, seq_len, tgt_len, model)

    def one(probe: ModelConfig) -> dict:
        measured = _run_flops(probe, batch, seq_len, tgt_len, instantiate(probe, device))
        return {**{f"forward:{k}": v for k, v in measured.forward.items()}, "training": measured.training}

    figures = per_layer(cfg, one)
    forward = {k.split(":", 1)[1]: v for k, v in figures.items()
               if k.startswith("forward:") and (v or k != "forward:other")}
    return FlopMeasurement(forward, figures["training"])


def _run_flops(cfg: ModelConfig, batch: int, seq_len: int, tgt_len: int | None,
               model: nn.Module) -> FlopMeasurement:
    """Run forward then backward under FlopCounterMode.

    The per-component forward counts are read after the forward pass, before the
    backward pass adds to them. Every input of every product needs a gradient (the
    inputs of a lone component are made to require one), so backward is complete.
    """
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


@without_dynamo_import
def measure_kv_cache_bytes(cfg: ModelConfig, batch: int, seq_len: int, dtype: str) -> int:
    """Prefill seq_len tokens on meta and read the size of the cache the model filled
    (on one and two layers, extended to the full depth)."""
    if dtype not in DTYPES:
        raise InputError(f"unknown dtype {dtype!r}; choose {', '.join(DTYPES)}")
    check_has_kv_cache(cfg)
    _check_positions(cfg, seq_len, None)
    return per_layer(cfg, lambda probe: _filled_cache_bytes(probe, batch, seq_len, DTYPES[dtype]))


def _filled_cache_bytes(cfg: ModelConfig, batch: int, seq_len: int, store: torch.dtype) -> int:
    model = build(cfg, "meta").eval()
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


@without_dynamo_import
def measure_attention_scores(cfg: ModelConfig, batch: int, seq_len: int,
                             tgt_len: int | None = None) -> dict[str, int]:
    """Entries of every attention-weight matrix one forward pass builds (meta device;
    one and two layers, extended to the full depth)."""
    _check_positions(cfg, seq_len, tgt_len)
    return per_layer(cfg, lambda probe: _score_entries(probe, batch, seq_len, tgt_len))


def _score_entries(cfg: ModelConfig, batch: int, seq_len: int, tgt_len: int | None) -> dict[str, int]:
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
