"""What every medium needs to know about a matrix the bank shows (a Step's rows of strings, with
optional labels): its entries as numbers, whether it is a matrix of attention weights, which
papers and the browser draw as a heatmap, and its TeX. Each medium draws it beside its other
renderers: `typst.typst_matrix`, `html.matrix_html`, and for the terminal `render.matrix`."""

from __future__ import annotations

from fractions import Fraction


def entry_value(cell: str) -> float | None:
    """An entry as a number ('0.25', '−1', '1/3'), or None for one that is not ('−∞', 'q1')."""
    try:
        return float(Fraction(cell.replace("−", "-").strip()))
    except (ValueError, ZeroDivisionError):
        return None


def is_attention_weights(step) -> bool:
    """A matrix of weights whose rows are numbers in [0, 1] summing to 1 (a softmax's output),
    drawn as a heatmap. The title must say so: a one-hot matrix of inputs is no heatmap.
    STEP is a bank Step (its title and matrix of strings)."""
    if not any(word in step.title.lower() for word in ("weight", "softmax")):
        return False
    rows = [[entry_value(cell) for cell in row] for row in step.matrix or ()]
    if not rows or any(v is None or not 0 <= v <= 1 for row in rows for v in row):
        return False
    return all(abs(sum(row) - 1) <= 0.02 * len(row) for row in rows)


def tex_matrix(step, label: str = "") -> str:
    """A bank Step's matrix as displayed TeX ($$LABEL\\begin{bmatrix}…$$): the Markdown export's and
    the LMS's spelling, which MathJax and KaTeX set."""
    rows = " \\\\ ".join(" & ".join(row) for row in step.matrix or ())
    return f"$${label}\\begin{{bmatrix}} {rows} \\end{{bmatrix}}$$"
