"""Every figure twice: measured on the reference model and evaluated from its closed form.

The two must agree exactly; a disagreement is a bug in one of them and is raised,
never shown to a learner as an answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp

from quizforge.accounting import formulas, measure
from quizforge.accounting.queries import check_positive as _positive
from quizforge.accounting.queries import check_sizes
from quizforge.errors import InputError
from quizforge.reference.config import ModelConfig

DTYPE_BYTES = {name: dtype.itemsize for name, dtype in measure.DTYPES.items()}


class AccountingMismatch(AssertionError):
    """The reference model and the closed form disagree: a bug, not a user error."""


def _agree(what: str, measured: dict[str, int], closed: dict[str, int]) -> None:
    nonzero_m = {k: v for k, v in measured.items() if v}
    nonzero_c = {k: v for k, v in closed.items() if v}
    if nonzero_m != nonzero_c:
        raise AccountingMismatch(f"{what}: measured {nonzero_m} but the closed form gives {nonzero_c}")


@dataclass(frozen=True)
class Component:
    name: str
    value: int
    formula: str  # the closed form in Unicode
    substituted: str = ""  # the closed form with the numbers put in


@dataclass(frozen=True)
class Report:
    """A total with its per-component breakdown and the formulas behind it."""

    title: str
    key: str  # what the total is called in JSON: total, forward, bytes, entries
    cfg: ModelConfig
    total: int
    total_formula: str
    total_substituted: str
    components: list[Component]
    extras: dict[str, object] = field(default_factory=dict)
    device: str = "meta"

    def breakdown(self) -> dict[str, int]:
        return {c.name: c.value for c in self.components}

    def to_json(self) -> dict[str, object]:
        return {
            self.key: self.total, "breakdown": self.breakdown(), "formula": self.total_formula,
            "substituted": self.total_substituted, "formulas": {c.name: c.formula for c in self.components},
            **self.extras,
            "config": {"preset": self.cfg.name or None, **self.cfg.describe()},
            "measured_on": self.device, "closed_form_agrees": True,
        }


def _components(closed: formulas.ClosedForm) -> list[Component]:
    numbers = closed.numbers()
    return [Component(name, numbers[name], formulas.format_expr(expr),
                      formulas.format_substituted(expr, closed.values))
            for name, expr in closed.components.items() if numbers[name]]


def params_report(cfg: ModelConfig, device: str = "meta") -> Report:
    model = measure.instantiate(cfg, device)
    measured = measure.measure_params(cfg, model)
    closed = formulas.param_closed_form(cfg)
    _agree("parameters", measured, closed.numbers())
    total = sum(measured.values())
    return Report("Parameters", "total", cfg, total, formulas.format_expr(closed.total_expr),
                  formulas.format_substituted(closed.total_expr, closed.values), _components(closed),
                  {"non_embedding": total - measured.get("embeddings", 0)}, device)


def flops_report(cfg: ModelConfig, seq_len: int, batch: int = 1, tgt_len: int | None = None,
                 device: str = "meta") -> Report:
    check_sizes(cfg, seq_len, batch, tgt_len)
    tgt = None if tgt_len == seq_len else tgt_len
    dev = measure.resolve_device(device)
    n_params = sum(measure.measure_params(cfg).values())  # every layer, instantiated on meta
    measure.check_fits(cfg, dev, n_params)
    measure.check_activations_fit(cfg, batch, seq_len, tgt, dev)
    # One and two layers measured, the rest by multiplication: the same integers as all of them.
    measured = measure.measure_flops(cfg, batch, seq_len, tgt, device)
    closed = formulas.forward_flop_closed_form(cfg, batch, seq_len, tgt)
    _agree("forward FLOPs", measured.forward, closed.numbers())
    forward = closed.total
    training = int(formulas.training_flops_expr(sp.Integer(forward)))
    if measured.training != training:
        raise AccountingMismatch(f"training FLOPs: measured {measured.training}, closed form {training}")
    # D counts the tokens the model predicts: target tokens for an encoder-decoder.
    tokens = batch * (tgt_len or seq_len) if cfg.arch == "encoder-decoder" else batch * seq_len
    six_nd = int(formulas.six_nd_expr(sp.Integer(n_params), sp.Integer(tokens)))
    training_expr = formulas.training_flops_expr(sp.Symbol("F_forward"))
    extras = {
        "training": measured.training,
        "training_formula": formulas.format_expr(training_expr),
        "six_nd": six_nd,
        "n_params": n_params,
        "tokens": tokens,
        "training_over_six_nd": measured.training / six_nd if six_nd else None,
        "batch": batch,
        "seq_len": seq_len,
    }
    if tgt is not None:
        extras["tgt_len"] = tgt
    return Report("Forward FLOPs", "forward", cfg, forward, formulas.format_expr(closed.total_expr),
                  formulas.format_substituted(closed.total_expr, closed.values), _components(closed),
                  extras, device)


def kv_cache_report(cfg: ModelConfig, seq_len: int, batch: int = 1, dtype: str = "fp16",
                    device: str = "meta") -> Report:
    _check_memory_query(seq_len, batch, dtype, device)
    measured = measure.measure_kv_cache_bytes(cfg, batch, seq_len, dtype)
    expr = formulas.kv_cache_bytes_expr(cfg)
    values = formulas.symbol_values(cfg) | {
        formulas.B: batch, formulas.n: seq_len, formulas.bytes_per: DTYPE_BYTES[dtype]}
    closed = int(expr.subs(values))
    if measured != closed:
        raise AccountingMismatch(f"KV cache: measured {measured} bytes, closed form {closed}")
    # The same model with one KV head per query head is the baseline MQA and GQA shrink.
    full = cfg.with_(n_kv_heads=cfg.n_heads)
    full_bytes = measure.measure_kv_cache_bytes(full, batch, seq_len, dtype)
    layers = cfg.kv_cache_layers
    extras = {
        "dtype": dtype,
        "bytes_per_element": DTYPE_BYTES[dtype],
        "per_token": measured // (batch * seq_len),
        "per_layer": measured // layers,
        "mha_bytes": full_bytes,
        "reduction_factor": full_bytes / measured,
        "attention": _attention_kind(cfg),
        "batch": batch,
        "seq_len": seq_len,
    }
    shown = formulas.format_expr(expr), formulas.format_substituted(expr, values)
    return Report("KV cache", "bytes", cfg, measured, *shown,
                  [Component("keys and values", measured, *shown)], extras)


def attention_scores_report(cfg: ModelConfig, seq_len: int, batch: int = 1, dtype: str = "fp32",
                            device: str = "meta") -> Report:
    """Entries and bytes of the n×n attention-weight matrices one forward pass materialises (read on meta)."""
    _check_memory_query(seq_len, batch, dtype, device)
    measured = measure.measure_attention_scores(cfg, batch, seq_len)
    exprs = formulas.attention_score_entries_expr(cfg)
    values = formulas.symbol_values(cfg) | {formulas.B: batch, formulas.n: seq_len}
    closed = {k: int(v.subs(values)) for k, v in exprs.items()}
    _agree("attention-score entries", measured, closed)
    width = DTYPE_BYTES[dtype]
    comps = [Component(scope, closed[key], formulas.format_expr(exprs[key]),
                       formulas.format_substituted(exprs[key], values))
             for scope, key in (("one layer", "per_layer"), ("all layers", "total"))]
    extras = {"entries_per_layer": closed["per_layer"], "dtype": dtype, "bytes_per_element": width,
              "bytes_per_layer": closed["per_layer"] * width,
              "bytes": closed["total"] * width, "batch": batch, "seq_len": seq_len}
    return Report("Attention-score entries", "entries", cfg, closed["total"], comps[1].formula, comps[1].substituted,
                  comps, extras)


def _attention_kind(cfg: ModelConfig) -> str:
    if cfg.n_kv_heads == cfg.n_heads:
        return "MHA"
    if cfg.n_kv_heads == 1:
        return "MQA"
    return f"GQA ({cfg.n_heads // cfg.n_kv_heads} query heads per KV head)"


def _check_memory_query(seq_len: int, batch: int, dtype: str, device: str) -> None:
    """Sizes are read on meta whatever the device; the device is still checked, for a clear error."""
    measure.resolve_device(device)
    _positive(seq_len=seq_len, batch=batch)
    if dtype not in DTYPE_BYTES:
        raise InputError(f"unknown dtype {dtype!r}; choose {', '.join(DTYPE_BYTES)}")
