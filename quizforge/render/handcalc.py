"""Rich renderables for the hand calculations: the worked solution a student would write.

Nothing here prints; each function returns a `rich.console.Group` for the caller to print
(or to export as text). Floats are shown to 4 decimal places, exact inputs as integers,
short decimals or fractions, masked scores as "−∞".
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from rich import box
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from quizforge.handcalc import AttentionSteps, PEVector
from quizforge.answers.matrices import format_fraction
from quizforge.render.matrix import MatrixView

NEG_INF = "−∞"
MASKED = "masked"


def f4(x: float) -> str:
    """4 decimal places, without a '-0.0000'."""
    s = f"{x:.4f}"
    return "0.0000" if s == "-0.0000" else s


def _small(x: float) -> str:
    """4 decimal places, or 4 significant figures when that would show a nonzero value as 0.0000."""
    return f"{x:.4e}" if x != 0 and abs(x) < 0.001 else f4(x)


def _factor(x: Fraction) -> str:
    s = format_fraction(x)
    return f"({s})" if x < 0 else s


def _ffactor(x: float) -> str:
    s = f4(x)
    return f"({s})" if s.startswith("-") else s


def _heading(text: str) -> Text:
    return Text(text, style="bold cyan")


def _matrix(
    title: str,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    cells: Sequence[Sequence[str]],
) -> MatrixView:
    """A labelled matrix: its name on one line, then its entries (a table, or a list when narrow)."""
    return MatrixView(title, cells, row_labels, col_labels)


def render_attention(steps: AttentionSteps, expand: bool | None = None) -> Group:
    """The worked solution of softmax(QKᵀ/√d_k)·V.

    expand: write out every dot product and exp term (default: when d_k, n_k and d_v are ≤ 4).
    """
    s = steps
    n_q, n_k, d_k, d_v = s.n_q, s.n_k, s.d_k, s.d_v
    if expand is None:
        expand = d_k <= 4 and n_k <= 4 and d_v <= 4
    qs = [f"q{i + 1}" for i in range(n_q)]
    ks = [f"k{j + 1}" for j in range(n_k)]
    vs = [f"v{j + 1}" for j in range(n_k)]
    vcols = [f"col {c + 1}" for c in range(d_v)]
    dcols = [f"d{c + 1}" for c in range(d_k)]

    parts: list[RenderableType] = [
        Text("Scaled dot-product attention: softmax(QKᵀ / √d_k)·V", style="bold"),
        Text(
            f"n_q = {n_q} queries, n_k = {n_k} keys, d_k = {d_k}, d_v = {d_v}"
            + (", causal mask" if s.causal else "")
        ),
        Text(""),
        _heading("Given"),
        _matrix("Q", qs, dcols, [[format_fraction(x) for x in row] for row in s.q]),
        _matrix("K", ks, dcols, [[format_fraction(x) for x in row] for row in s.k]),
        _matrix("V", vs, vcols, [[format_fraction(x) for x in row] for row in s.v]),
    ]
    step = 0

    def next_step(title: str) -> Text:
        nonlocal step
        step += 1
        return Group(Text(""), _heading(f"Step {step}  {title}"))

    # Step: QKᵀ ---------------------------------------------------------------------------
    parts.append(next_step("Scores S = QKᵀ: entry (i, j) is the dot product q_i · k_j"))
    if expand:
        cells = [
            [
                " + ".join(f"{_factor(a)}·{_factor(b)}" for a, b in zip(qi, kj)) + f" = {format_fraction(sij)}"
                for kj, sij in zip(s.k, srow)
            ]
            for qi, srow in zip(s.q, s.scores)
        ]
    else:
        cells = [[format_fraction(x) for x in row] for row in s.scores]
    parts.append(_matrix("S = QKᵀ", qs, ks, cells))

    # Step: scale ---------------------------------------------------------------------------
    parts.append(next_step(f"Scale by 1/√d_k = {s.scale_text} ≈ {f4(s.scale)}"))
    parts.append(_matrix("S/√d_k", qs, ks, [[f4(x) for x in row] for row in s.scaled]))

    # Step: causal mask ---------------------------------------------------------------------
    if s.causal:
        if s.offset:
            rule = (f"the {n_q} queries are the last of {n_k} positions, so q_i sits at position "
                    f"i + {s.offset} and may attend to k_j only if j ≤ i + {s.offset}")
        else:
            rule = "q_i may attend to k_j only if j ≤ i"
        parts.append(next_step(f"Causal mask: {rule}; masked scores become {NEG_INF}"))
        parts.append(_matrix(
            "mask", qs, ks, [[MASKED if hidden else "✓" for hidden in row] for row in s.masked]
        ))
        parts.append(_matrix(
            "masked S/√d_k", qs, ks,
            [[NEG_INF if hidden else f4(x) for x, hidden in zip(row, mrow)] for row, mrow in zip(s.scaled, s.masked)],
        ))

    # Step: softmax -------------------------------------------------------------------------
    parts.append(next_step("Softmax row by row: a_ij = exp(s_ij − m_i) / Σ_j exp(s_ij − m_i), m_i = row max"))
    for i in range(n_q):
        srow, mrow, erow, wrow = s.scaled[i], s.masked[i], s.exps[i], s.weights[i]
        shown = ", ".join(NEG_INF if h else f4(x) for x, h in zip(srow, mrow))
        lines = [f"Row {i + 1} ({qs[i]}): [{shown}], max m = {f4(s.row_max[i])}"]
        if expand:
            for j, (x, h, e) in enumerate(zip(srow, mrow, erow)):
                lines.append(
                    f"  {ks[j]}: {MASKED} → exp({NEG_INF}) = 0" if h
                    else f"  {ks[j]}: exp({f4(x)} − {_ffactor(s.row_max[i])}) = {f4(e)}"
                )
        else:
            lines.append("  exp terms: " + ", ".join("0" if h else f4(e) for e, h in zip(erow, mrow)))
        lines.append(f"  sum = {f4(s.sums[i])}")
        if expand:
            fracs = ", ".join("0" if h else f"{f4(e)}/{f4(s.sums[i])}" for e, h in zip(erow, mrow))
            lines.append(f"  weights = [{fracs}]")
            lines.append(f"          = [{', '.join(f4(w) for w in wrow)}]")
        else:
            lines.append(f"  weights = [{', '.join(f4(w) for w in wrow)}]")
        parts.append(Text("\n".join(lines)))
    parts.append(_matrix("A = softmax(S/√d_k)  (each row sums to 1)", qs, ks,
                         [[f4(w) for w in row] for row in s.weights]))

    # Step: output --------------------------------------------------------------------------
    parts.append(next_step("Output O = A·V: row i is the weighted average of V's rows with weights a_i"))
    if expand:
        cells = [
            [
                " + ".join(f"{f4(w)}·{_factor(s.v[j][c])}" for j, w in enumerate(wrow)) + f" = {f4(orow[c])}"
                for c in range(d_v)
            ]
            for wrow, orow in zip(s.weights, s.output)
        ]
    else:
        cells = [[f4(x) for x in row] for row in s.output]
    parts.append(_matrix("O = A·V", qs, vcols, cells))
    if expand:
        parts.append(_matrix("O (rounded)", qs, vcols, [[f4(x) for x in row] for row in s.output]))
    return Group(*parts)


def render_pe(pe: PEVector, max_rows: int = 64) -> Group:
    """Table of j, i, 2i/d_model, function, angle and value for one sinusoidal PE vector.

    Shows at most max_rows coordinates (the first and last halves) with a gap row between.
    """
    header = Text(f"Sinusoidal positional encoding: pos = {pe.pos}, d_model = {pe.d_model}", style="bold")
    formula = Text(
        "PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(pos / 10000^(2i/d_model))"
    )
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for name, justify in (("j", "right"), ("i", "right"), ("2i/d_model", "right"),
                          ("function", "left"), ("angle", "right"), ("value", "right")):
        table.add_column(name, justify=justify, overflow="fold")  # type: ignore[arg-type]

    dims = pe.dims
    max_rows = max(2, max_rows)
    if len(dims) > max_rows:
        head, tail = dims[: max_rows // 2], dims[len(dims) - max_rows // 2 :]
        hidden = len(dims) - len(head) - len(tail)
    else:
        head, tail, hidden = dims, [], 0

    def add(d) -> None:
        angle = _small(d.angle)
        table.add_row(str(d.j), str(d.i), f"{2 * d.i}/{pe.d_model}", f"{d.function}({angle})",
                      angle, _small(d.value))

    for d in head:
        add(d)
    if hidden:
        table.add_row("…", "", "", f"({hidden} more coordinates)", "", "")
        for d in tail:
            add(d)

    parts: list[RenderableType] = [header, formula]
    parts.append(Text(f"angle = {pe.pos} / 10000^(2i/{pe.d_model}); even j use sin, odd j use cos"))
    if pe.d_model % 2:
        parts.append(Text(f"d_model is odd: the last coordinate j = {pe.d_model - 1} is a sine with no cosine partner"))
    parts.append(table)
    return Group(*parts)
