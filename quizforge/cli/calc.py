"""`quiz calc`: calculators whose answers come from the reference transformer."""

from __future__ import annotations

from typing import Any

import click

from quizforge.cli.output import emit_json
from quizforge.errors import InputError

ARCH_CHOICES = ("mha", "ffn", "layernorm", "rmsnorm", "encoder-layer", "decoder-layer",
                "encoder-decoder", "bert", "gpt", "llama")
DEVICE_CHOICES = ("cpu", "cuda", "meta")
DTYPE_CHOICES = ("fp32", "fp16", "bf16", "int8")


@click.group()
def calc() -> None:
    """Calculators whose answers come from the reference transformer."""


# --- shared options --------------------------------------------------------

def model_options(func):
    """PRESET, or an architecture described by flags; flags after a preset override it."""
    options = [
        click.argument("preset", required=False),
        click.option("--arch", type=click.Choice(ARCH_CHOICES), help="Build this architecture instead of a preset."),
        click.option("--d-model", type=int, help="Model width d_model."),
        click.option("--n-heads", type=int, help="Number of attention heads h."),
        click.option("--n-kv-heads", type=int, help="Key/value heads (GQA; 1 = MQA). Default: n-heads."),
        click.option("--d-ff", type=int, help="Feed-forward inner width."),
        click.option("--n-layers", type=int, help="Number of layers (each stack, for encoder-decoder)."),
        click.option("--vocab", type=int, help="Vocabulary size."),
        click.option("--max-len", type=int, help="Context length (learned position table size)."),
        click.option("--activation", type=click.Choice(("relu", "gelu", "swiglu")), help="FFN activation."),
        click.option("--pre-norm/--post-norm", "norm_first", default=None, help="Where the norms sit."),
        click.option("--no-bias", is_flag=True, help="Drop every bias term."),
        click.option("--untied", is_flag=True, help="Give the output head its own matrix."),
        click.option("--device", type=click.Choice(DEVICE_CHOICES), default="meta", show_default=True,
                     help="Where the reference model is instantiated and run."),
        click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


def memory_options(default_dtype: str, seq_help: str, dtype_help: str):
    """--seq-len, --batch and --dtype, for the calculators that size tensors."""
    def decorate(func):
        func = click.option("--dtype", type=click.Choice(DTYPE_CHOICES), default=default_dtype,
                            show_default=True, help=dtype_help)(func)
        func = click.option("--batch", type=int, default=1, show_default=True, help="Sequences per batch.")(func)
        return click.option("--seq-len", type=int, required=True, help=seq_help)(func)
    return decorate


def resolve_config(preset: str | None, arch: str | None, **flags: Any):
    """A ModelConfig from a preset and/or flags. Torch-free."""
    from quizforge.reference.config import ModelConfig
    from quizforge.reference.presets import get_preset

    changes = {
        "d_model": flags.get("d_model"), "n_heads": flags.get("n_heads"), "n_kv_heads": flags.get("n_kv_heads"),
        "d_ff": flags.get("d_ff"), "n_layers": flags.get("n_layers"), "vocab_size": flags.get("vocab"),
        "max_len": flags.get("max_len"), "activation": flags.get("activation"),
        "norm_first": flags.get("norm_first"),
    }
    changes = {k: v for k, v in changes.items() if v is not None}
    if flags.get("no_bias"):
        changes["bias"] = False
    if flags.get("untied"):
        changes["tied"] = False
    if preset and arch:
        raise InputError("give either a PRESET or --arch, not both")
    if preset:
        base = get_preset(preset)
        if "n_heads" in changes and "n_kv_heads" not in changes and base.n_kv_heads == base.n_heads:
            changes["n_kv_heads"] = changes["n_heads"]
        if "d_model" in changes or "n_heads" in changes:
            changes["d_head"] = None  # recompute d_model / h
        return base.with_(**changes) if changes else base
    if not arch:
        raise InputError("name a PRESET (see `quiz calc presets`) or describe one with --arch and sizes")
    flag_for = {"vocab_size": "vocab"}   # the config field's name differs from the flag's
    missing = [f"--{flag_for.get(name, name).replace('_', '-')}" for name in _required_flags(arch) if name not in changes]
    if missing:
        raise InputError(f"--arch {arch} needs {', '.join(missing)}")
    return ModelConfig(arch=arch, **changes)


def _required_flags(arch: str) -> list[str]:
    needed = ["d_model"]
    if arch not in ("layernorm", "rmsnorm", "ffn"):
        needed.append("n_heads")
    if arch not in ("mha", "layernorm", "rmsnorm"):
        needed.append("d_ff")
    if arch in ("encoder-decoder", "bert", "gpt", "llama"):
        needed.append("vocab_size")
    if arch in ("bert", "gpt"):
        needed.append("max_len")
    return needed


def _with_torch(as_json: bool, what: str, work, needs_sympy: bool = False):
    """Run work() after importing torch, naming each wait on a terminal: the import alone takes
    seconds, and a 175 B model is then built on the meta device and run under a FLOP counter.
    Arguments are checked before this, so bad input never waits for torch."""
    from quizforge.render import Progress

    with Progress(quiet=as_json) as progress:
        progress.step("importing torch")
        from quizforge.torch_import import import_torch

        import_torch()  # the work imports it anyway; this names the wait, and Ctrl-C here exits cleanly
        if needs_sympy:  # the closed forms: part of the same wait
            import sympy  # noqa: F401

        progress.step(what)
        return work()


def _measured(cfg, as_json: bool, what: str, make_report):
    return _with_torch(as_json, f"building {cfg.name or cfg.arch} and {what}", make_report, needs_sympy=True)


def _reports():
    from quizforge.accounting import reports  # imports torch and sympy: only inside _with_torch

    return reports


def _show(report, as_json: bool, view: str) -> None:
    """One JSON object, or the report's rich view."""
    if as_json:
        emit_json(report.to_json())
        return
    from quizforge.render import calc as calc_views, console

    console().print(getattr(calc_views, view)(report))


# --- quiz calc presets -----------------------------------------------------

@calc.command("presets", short_help="The built-in model presets.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def calc_presets(as_json: bool) -> None:
    """List the built-in model presets."""
    from quizforge.reference.presets import PRESETS

    if as_json:
        emit_json({name: cfg.describe() | {"source": cfg.source} for name, cfg in PRESETS.items()})
        return
    from quizforge.render import calc as calc_views, console

    console().print(calc_views.presets_table(PRESETS))


# --- quiz calc params ------------------------------------------------------

@calc.command("params", short_help="Parameter counts, per component.")
@model_options
def calc_params(preset, arch, device, as_json, **flags) -> None:
    """Count parameters, in total and per component.

    \b
    Examples:
      quiz calc params gpt2
      quiz calc params --arch mha --d-model 512 --n-heads 8
      quiz calc params --arch encoder-layer --d-model 512 --n-heads 8 --d-ff 2048
    """
    cfg = resolve_config(preset, arch, **flags)
    report = _measured(cfg, as_json, "counting its parameters", lambda: _reports().params_report(cfg, device))
    _show(report, as_json, "params_view")


# --- quiz calc flops -------------------------------------------------------

@calc.command("flops", short_help="Forward and training FLOPs, per component.")
@model_options
@click.option("--seq-len", type=int, required=True, help="Tokens per sequence (source tokens for encoder-decoder).")
@click.option("--batch", type=int, default=1, show_default=True, help="Sequences per batch.")
@click.option("--tgt-len", type=int, help="Target tokens, encoder-decoder only (default: --seq-len).")
def calc_flops(preset, arch, device, as_json, seq_len, batch, tgt_len, **flags) -> None:
    """Forward and training FLOPs (a multiply-add is 2 FLOPs; matrix products only).

    \b
    Examples:
      quiz calc flops gpt2 --seq-len 1024
      quiz calc flops --arch mha --d-model 512 --n-heads 8 --seq-len 128 --batch 4
    """
    cfg = resolve_config(preset, arch, **flags)
    from quizforge.accounting.queries import check_sizes

    check_sizes(cfg, seq_len, batch, tgt_len)
    report = _measured(cfg, as_json, "counting FLOPs",
                       lambda: _reports().flops_report(cfg, seq_len, batch, tgt_len, device))
    _show(report, as_json, "flops_view")


# --- quiz calc kv-cache ----------------------------------------------------

@calc.command("kv-cache", short_help="KV-cache bytes, and what MQA or GQA saves.")
@model_options
@memory_options(default_dtype="fp16", seq_help="Cached positions per sequence.",
                dtype_help="Storage type of the cached keys and values.")
def calc_kv_cache(preset, arch, device, as_json, seq_len, batch, dtype, **flags) -> None:
    """KV-cache size for a batch and context, and what MQA/GQA saves.

    \b
    Examples:
      quiz calc kv-cache llama2-70b --seq-len 4096 --batch 8 --dtype fp16
      quiz calc kv-cache gpt2 --seq-len 1024 --batch 1 --dtype fp32
    """
    cfg = resolve_config(preset, arch, **flags)
    from quizforge.accounting.queries import check_has_kv_cache, check_sizes

    check_sizes(cfg, seq_len, batch)
    check_has_kv_cache(cfg)
    report = _measured(cfg, as_json, "filling its KV cache",
                       lambda: _reports().kv_cache_report(cfg, seq_len, batch, dtype, device))
    _show(report, as_json, "kv_cache_view")


# --- quiz calc attention-memory --------------------------------------------

@calc.command("attention-memory", short_help="Entries and bytes of the n×n attention-score matrices.")
@model_options
@memory_options(default_dtype="fp32", seq_help="Tokens per sequence.",
                dtype_help="Type of the attention weights.")
def calc_attention_memory(preset, arch, device, as_json, seq_len, batch, dtype, **flags) -> None:
    """Entries and bytes of the n × n attention-score matrices (the O(n²) in attention).

    \b
    Example:
      quiz calc attention-memory gpt2 --seq-len 1024 --batch 8
    """
    cfg = resolve_config(preset, arch, **flags)
    from quizforge.accounting.queries import check_sizes

    check_sizes(cfg, seq_len, batch)
    report = _measured(cfg, as_json, "counting attention scores",
                       lambda: _reports().attention_scores_report(cfg, seq_len, batch, dtype, device))
    _show(report, as_json, "attention_memory_view")


# --- quiz calc attention ---------------------------------------------------

@calc.command("attention", short_help="Attention on small matrices, worked by hand.")
@click.option("--q", "q_text", required=True, help="Queries, e.g. '[[1,0],[0,1],[1,1]]' (n_q × d_k).")
@click.option("--k", "k_text", required=True, help="Keys (n_k × d_k).")
@click.option("--v", "v_text", required=True, help="Values (n_k × d_v).")
@click.option("--causal", is_flag=True, help="Apply a causal mask (query i sees keys j ≤ i).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of the worked solution.")
def calc_attention(q_text, k_text, v_text, causal, as_json) -> None:
    """softmax(QKᵀ/√d_k)V by hand, step by step.

    \b
    Example:
      quiz calc attention --q '[[1,0],[0,1],[1,1]]' --k '[[1,0],[0,1],[1,1]]' --v '[[1,2],[3,4],[5,6]]' --causal
    """
    from quizforge.handcalc import attention_steps, check_attention_inputs
    from quizforge.answers.matrices import parse_matrix

    q, k, v = parse_matrix(q_text, "--q"), parse_matrix(k_text, "--k"), parse_matrix(v_text, "--v")
    check_attention_inputs(q, k, v, causal)
    steps = _with_torch(as_json, "working softmax(QKᵀ/√d_k)V", lambda: attention_steps(q, k, v, causal=causal))
    if as_json:
        emit_json(steps.to_json())
        return
    from quizforge import render
    from quizforge.render.handcalc import render_attention

    render.console().print(render_attention(steps))


# --- quiz calc pe ----------------------------------------------------------

@calc.command("pe", short_help="The sinusoidal positional encoding of one position.")
@click.option("--pos", type=int, required=True, help="Position p (0-based).")
@click.option("--d-model", type=int, required=True, help="Model width d_model.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object instead of a table.")
def calc_pe(pos, d_model, as_json) -> None:
    """The sinusoidal positional encoding vector PE(pos, ·).

    \b
    Example:
      quiz calc pe --pos 3 --d-model 8
    """
    from quizforge.handcalc import check_pe_inputs, pe_vector

    check_pe_inputs(pos, d_model)
    pe = _with_torch(as_json, f"working PE({pos}, ·) for d_model={d_model}", lambda: pe_vector(pos, d_model))
    if as_json:
        emit_json(pe.to_json())
        return
    from quizforge import render
    from quizforge.render.handcalc import render_pe

    render.console().print(render_pe(pe))


