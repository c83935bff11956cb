"""Rich renderings of the calculators' reports (`quiz calc`). Imported only when something is printed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from quizforge.answers.rounding import rounded
from quizforge.render.fit import TableOrLines, rows_table

if TYPE_CHECKING:  # annotations only: console() must not pull in torch and sympy
    from quizforge.accounting.reports import Report
    from quizforge.reference.config import ModelConfig

COMPONENT_LABELS = {
    "embeddings": "embeddings", "attention": "attention (W_q, W_k, W_v, W_o)", "ffn": "feed-forward",
    "norms": "norms", "head": "output head", "pooler": "pooler",
    "attention_proj": "attention projections", "attention_scores": "attention QKᵀ and A·V",
}


def si(value: float, billions: str = "G") -> str:
    """124,439,808 -> '124.4 M' (decimal prefixes). Parameter counts pass billions="B", as
    model sizes are quoted (6.74 B); FLOPs keep G."""
    for factor, suffix in ((1e15, "P"), (1e12, "T"), (1e9, billions), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor:
            return f"{_two_places(value / factor)} {suffix}"
    return f"{value:,.0f}"


def binary_bytes(value: int) -> str:
    """Bytes in binary units, as memory is quoted: 1.50 GiB."""
    for factor, suffix in ((2**40, "TiB"), (2**30, "GiB"), (2**20, "MiB"), (2**10, "KiB")):
        if value >= factor:
            return f"{_two_places(value / factor)} {suffix}"
    return f"{value} B"


def _two_places(x: float) -> str:
    """1,234.5 with 2 decimals, rounded half away from zero as the README says: 3.125 -> '3.13'
    (format() rounds the binary value half to even, giving '3.12')."""
    return f"{rounded(x, 2):,.2f}"


def _name(cfg: ModelConfig) -> str:
    return cfg.name or f"--arch {cfg.arch}"


def _config_line(cfg: ModelConfig) -> Text:
    parts = [f"{k}={v}" for k, v in cfg.describe().items() if k != "arch"]
    return Text(f"{_name(cfg)} ({cfg.arch}): " + ", ".join(parts), style="dim")


def _breakdown_table(report: Report, unit: str, value_format=lambda v: f"{v:,}") -> TableOrLines:
    table = Table(title=f"{report.title}: {_name(report.cfg)}", title_justify="left")
    table.add_column("component")
    table.add_column(unit, justify="right")
    table.add_column("share", justify="right")
    table.add_column("closed form")
    rows = []
    for c in report.components:
        share = f"{100 * c.value / report.total:.1f}%" if report.total else "-"
        rows.append((COMPONENT_LABELS.get(c.name, c.name), value_format(c.value), share,
                     _formula_cell(c.formula, c.substituted)))
        table.add_row(*rows[-1])
    table.add_section()
    total = ("total", value_format(report.total), "", _formula_cell(report.total_formula, report.total_substituted))
    table.add_row(Text(total[0], style="bold"), Text(total[1], style="bold"), "", total[3])

    def lines() -> list:
        out: list = []
        for label, value, share, formula in [*rows, total]:
            head = Text.assemble((label, "bold"), "  ", (value, "bold"), f" ({share})" if share else "")
            out += [head, Padding(formula, (0, 0, 0, 2), expand=False)]
        return out

    return TableOrLines(table, [cell for row in [*rows, total] for cell in row[1:3]], lines)


def _formula_cell(formula: str, substituted: str) -> Text:
    cell = Text(formula)
    if substituted and substituted != formula:
        cell.append(f"\n= {substituted}", style="dim")
    return cell


def _agreement(report: Report) -> Text:
    return Text(f"✓ measured on the reference model ({report.device}) and equal to the closed form",
                style="green")


def params_view(report: Report) -> Group:
    parts = [_breakdown_table(report, "parameters"),
             Text(f"= {si(report.total, billions='B')} parameters; {report.extras['non_embedding']:,} without embeddings"),
             _config_line(report.cfg), _agreement(report)]
    if report.cfg.source:
        parts.append(Text(f"source: {report.cfg.source}", style="dim"))
    return Group(*parts)


def flops_view(report: Report) -> Group:
    x = report.extras
    lengths = f"batch {x['batch']} × {x['seq_len']} tokens"
    if "tgt_len" in x:
        lengths = f"batch {x['batch']} × {x['seq_len']} source and {x['tgt_len']} target tokens"
    training = Table(title="Training step (forward + backward)", title_justify="left")
    training.add_column("count")
    training.add_column("FLOPs", justify="right")
    training.add_column("how")
    rows = [("exact", f"{x['training']:,}", "3 × forward: backward takes a gradient for both operands"),
            ("6·N·D rule", f"{x['six_nd']:,}", f"6 × {x['n_params']:,} params × {x['tokens']:,} tokens")]
    for row in rows:
        training.add_row(*row)
    ratio = x["training_over_six_nd"]
    return Group(
        _breakdown_table(report, "FLOPs"),
        Text(f"= {si(report.total)}FLOP forward for {lengths}; a multiply-add counts as 2, "
             "only matrix products are counted"),
        rows_table(training, rows, [row[1] for row in rows]),
        Text(f"exact / 6ND = {ratio:.3f}" if ratio else ""),
        _config_line(report.cfg), _agreement(report),
    )


def kv_cache_view(report: Report) -> Group:
    x = report.extras
    table = Table(title=f"KV cache: {_name(report.cfg)}", title_justify="left")
    table.add_column("quantity")
    table.add_column("value", justify="right")
    rows = [("total", f"{report.total:,} B = {binary_bytes(report.total)}"),
            ("per token (all layers)", f"{x['per_token']:,} B"),
            ("per layer", f"{x['per_layer']:,} B = {binary_bytes(x['per_layer'])}"),
            ("attention", x["attention"]),
            ("same model with full MHA", f"{x['mha_bytes']:,} B = {binary_bytes(x['mha_bytes'])}"),
            ("reduction factor", f"{x['reduction_factor']:g}×")]
    for row in rows:
        table.add_row(*row)
    numbers = [f"{n:,}" for n in (report.total, x["per_token"], x["per_layer"], x["mha_bytes"])]
    return Group(
        rows_table(table, rows, numbers),
        Text(f"total = {report.total_formula} = {report.total_substituted}   (batch {x['batch']}, {x['seq_len']} positions, "
             f"{x['dtype']} = {x['bytes_per_element']} B per element)"),
        _config_line(report.cfg),
        Text("✓ read off the cache the reference model fills, and equal to the closed form", style="green"),
    )


def attention_memory_view(report: Report) -> Group:
    x = report.extras
    table = Table(title=f"Attention-score matrices: {_name(report.cfg)}", title_justify="left")
    table.add_column("scope")
    table.add_column("entries", justify="right")
    table.add_column(f"bytes ({x['dtype']})", justify="right")
    table.add_column("closed form")
    rows = []
    for c in report.components:
        nbytes = c.value * x["bytes_per_element"]
        rows.append((c.name, f"{c.value:,}", f"{nbytes:,} = {binary_bytes(nbytes)}",
                     _formula_cell(c.formula, c.substituted)))
        table.add_row(*rows[-1])
    return Group(
        rows_table(table, rows, [row[1] for row in rows] + [row[2].split(" = ")[0] for row in rows]),
        Text(f"batch {x['batch']}, {x['seq_len']} tokens; one n×n matrix per head, per attention module"),
        _config_line(report.cfg),
        Text("✓ counted on the weights the reference model returns, and equal to the closed form",
             style="green"),
    )


def presets_table(presets: Mapping[str, ModelConfig]) -> TableOrLines:
    """The presets as a table; as one wrapped line each where a name or number would be cut."""
    columns = ("name", "arch", "layers", "d_model", "heads", "kv heads", "d_ff", "vocab", "context")
    table = Table(title="Presets", title_justify="left")
    for column in columns:
        table.add_column(column, justify="left" if column in ("name", "arch") else "right")
    rows = []
    for name, cfg in presets.items():
        layers = str(cfg.n_layers) if cfg.arch != "encoder-decoder" else f"{cfg.encoder_layers}+{cfg.decoder_layers}"
        rows.append([name, cfg.arch, layers, f"{cfg.d_model:,}", str(cfg.n_heads), str(cfg.n_kv_heads),
                     f"{cfg.d_ff:,}", f"{cfg.vocab_size:,}", f"{cfg.max_len:,}" if cfg.max_len else "any"])
        table.add_row(*rows[-1])

    def lines() -> list:
        # The name on a line of its own; then label=value, as the config line writes it, so that a label
        # and its value never part, indented under the name when it wraps.
        out: list = []
        for row in rows:
            details = "  ".join(f"{label.replace(' ', '_')}={cell}" for label, cell in zip(columns[1:], row[1:]))
            out += [Text(row[0], style="bold"), Padding(Text(details), (0, 0, 0, 2), expand=False)]
        return out

    return TableOrLines(table, [cell for row in rows for cell in row] + list(columns), lines)
