"""Hand calculations with every intermediate step: attention on small matrices, one PE vector.

The numbers a student is graded on (attention weights and output, PE values) come
from the reference implementation in float64; the intermediate steps (exact QKᵀ,
scaled scores, exp terms, row sums) are recomputed here so a worked solution can
show them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from numbers import Integral, Rational
from typing import Sequence, Union

from quizforge.errors import InputError
from quizforge.threads import single_thread
from quizforge.answers.matrices import Matrix, check_shape, parse_matrix

MatrixLike = Union[str, Sequence[Sequence[Union[Fraction, int, float]]]]

MAX_PE_POS = 1_000_000
MAX_PE_D_MODEL = 8192


def json_number(x: Fraction | float | int) -> int | float:
    """An int when x is integral, else a float (JSON has no fractions)."""
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, Rational):
        x = Fraction(x)
        return int(x) if x.denominator == 1 else float(x)
    x = float(x)
    if math.isfinite(x) and x.is_integer() and abs(x) < 2**53:
        return int(x)
    return x


def _to_fraction(x: object, name: str, r: int, c: int) -> Fraction:
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction)):
        raise InputError(f"{name}: entry ({r}, {c}) is {type(x).__name__}, not a number")
    if isinstance(x, float) and not math.isfinite(x):
        raise InputError(f"{name}: entry ({r}, {c}) is {x}; entries must be finite numbers")
    return Fraction(x)


def as_matrix(m: MatrixLike, name: str) -> Matrix:
    """Text goes through parse_matrix; nested sequences are checked and converted to Fractions."""
    if isinstance(m, str):
        return parse_matrix(m, name)
    try:
        rows = [list(row) for row in m]
    except TypeError:
        raise InputError(f"{name}: expected a matrix (a list of rows), got {type(m).__name__}") from None
    check_shape(rows, name)
    return [[_to_fraction(x, name, r, c) for c, x in enumerate(row, 1)] for r, row in enumerate(rows, 1)]


def scale_text(d_k: int) -> str:
    """'1/√2'; for perfect squares also the simplified form: '1/√4 = 1/2'."""
    root = math.isqrt(d_k)
    return f"1/√{d_k}" + (f" = 1/{root}" if root * root == d_k and root > 1 else "")


@dataclass
class AttentionSteps:
    """Every step of softmax(QKᵀ/√d_k)·V for one small example. Row i is query i, column j key j."""

    q: Matrix
    k: Matrix
    v: Matrix
    causal: bool
    scores: Matrix                    # QKᵀ, exact
    scale: float                      # 1/√d_k
    scale_text: str                   # "1/√2"
    scaled: list[list[float]]         # QKᵀ · scale, before masking
    masked: list[list[bool]]          # True where key j is hidden from query i
    row_max: list[float]              # max over the unmasked scaled entries of each row
    exps: list[list[float]]           # exp(scaled - row max); 0.0 where masked
    sums: list[float]                 # Σ_j exps[i][j]
    weights: list[list[float]]        # softmax rows, from the reference implementation
    output: list[list[float]]         # weights · V, from the reference implementation

    @property
    def n_q(self) -> int:
        return len(self.q)

    @property
    def n_k(self) -> int:
        return len(self.k)

    @property
    def d_k(self) -> int:
        return len(self.q[0])

    @property
    def d_v(self) -> int:
        return len(self.v[0])

    @property
    def offset(self) -> int:
        """Absolute position of query 0 under the causal mask (n_k - n_q)."""
        return self.n_k - self.n_q

    def to_json(self) -> dict:
        def grid(rows):
            return [[json_number(x) for x in row] for row in rows]

        scaled = [
            [None if hidden else json_number(x) for x, hidden in zip(row, mrow)]
            for row, mrow in zip(self.scaled, self.masked)
        ]
        return {
            "scores": grid(self.scores),
            "scaled": scaled,
            "weights": grid(self.weights),
            "output": grid(self.output),
            "d_k": self.d_k,
            "causal": self.causal,
        }


def check_attention_inputs(Q: MatrixLike, K: MatrixLike, V: MatrixLike,
                           causal: bool = False) -> tuple[Matrix, Matrix, Matrix]:
    """Q, K and V as matrices whose shapes fit together; torch-free, so bad input is refused at once."""
    q, k, v = as_matrix(Q, "--q"), as_matrix(K, "--k"), as_matrix(V, "--v")
    n_q, d_k, n_k = len(q), len(q[0]), len(k)
    if len(k[0]) != d_k:
        raise InputError(f"Q has d_k={d_k} columns but K has {len(k[0])} (QKᵀ needs the same d_k)")
    if len(v) != n_k:
        raise InputError(f"V has {len(v)} rows but K has {n_k} (V needs one row per key)")
    if causal and n_q > n_k:
        raise InputError(
            f"--causal needs at most as many queries as keys: Q has {n_q} rows but K has {n_k}"
        )
    return q, k, v


def attention_steps(Q: MatrixLike, K: MatrixLike, V: MatrixLike, causal: bool = False) -> AttentionSteps:
    """Work through scaled dot-product attention for matrices small enough to do by hand.

    Q: n_q × d_k, K: n_k × d_k, V: n_k × d_v (text is parsed with parse_matrix, named
    --q/--k/--v in messages). With causal=True, queries are the last n_q of the n_k
    positions (reference `causal_mask(n_q, n_k)`), so n_q must not exceed n_k.
    """
    q, k, v = check_attention_inputs(Q, K, V, causal)
    n_q, d_k, n_k = len(q), len(q[0]), len(k)

    import torch

    from quizforge.reference.attention import causal_mask, scaled_dot_product_attention

    scores = [[sum((a * b for a, b in zip(qi, kj)), Fraction(0)) for kj in k] for qi in q]

    def tensor(m: Matrix):
        return torch.tensor([[float(x) for x in row] for row in m], dtype=torch.float64)

    with single_thread():
        mask = causal_mask(n_q, n_k) if causal else None
        out_t, w_t = scaled_dot_product_attention(tensor(q), tensor(k), tensor(v), mask=mask)

    scale = 1.0 / math.sqrt(d_k)
    # Same order of operations as the reference: float64 QKᵀ, then times the scale.
    scaled = [[float(s) * scale for s in row] for row in scores]
    allowed = mask.tolist() if mask is not None else [[True] * n_k for _ in range(n_q)]
    masked = [[not a for a in row] for row in allowed]

    row_max, exps, sums = [], [], []
    for srow, mrow in zip(scaled, masked):
        m = max(s for s, hidden in zip(srow, mrow) if not hidden)  # causal rows keep ≥ 1 key
        e = [0.0 if hidden else math.exp(s - m) for s, hidden in zip(srow, mrow)]
        row_max.append(m)
        exps.append(e)
        sums.append(math.fsum(e))

    return AttentionSteps(
        q=q, k=k, v=v, causal=causal, scores=scores, scale=scale, scale_text=scale_text(d_k),
        scaled=scaled, masked=masked, row_max=row_max, exps=exps, sums=sums,
        weights=w_t.tolist(), output=out_t.tolist(),
    )


@dataclass(frozen=True)
class PEDim:
    """One coordinate j of a sinusoidal position vector."""

    j: int
    i: int                 # pair index j // 2
    exponent: Fraction     # 2i / d_model, exact
    angle: float           # pos / 10000^(2i/d_model)
    function: str          # "sin" for even j, "cos" for odd j
    value: float


@dataclass
class PEVector:
    pos: int
    d_model: int
    dims: list[PEDim] = field(default_factory=list)

    @property
    def values(self) -> list[float]:
        return [d.value for d in self.dims]

    @property
    def angles(self) -> list[float]:
        """One angle per coordinate j (coordinates 2i and 2i+1 share theirs)."""
        return [d.angle for d in self.dims]

    def to_json(self) -> dict:
        return {
            "pos": self.pos,
            "d_model": self.d_model,
            "values": [json_number(x) for x in self.values],
            "angles": [json_number(x) for x in self.angles],
        }


def _check_int(value: object, name: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, Integral):
        raise InputError(f"{name}: expected a whole number, got {value!r}")
    value = int(value)
    if not lo <= value <= hi:
        raise InputError(f"{name}: {value} is out of range (allowed {lo}..{hi:,})")
    return value


def check_pe_inputs(pos: int, d_model: int) -> tuple[int, int]:
    """Torch-free, so bad input is refused at once."""
    return _check_int(pos, "--pos", 0, MAX_PE_POS), _check_int(d_model, "--d-model", 1, MAX_PE_D_MODEL)


def pe_vector(pos: int, d_model: int) -> PEVector:
    """The sinusoidal positional encoding of position `pos` with every angle shown.

    PE(pos, 2i) = sin(pos / 10000^(2i/d_model)), PE(pos, 2i+1) = cos(same angle).
    0 ≤ pos ≤ 1,000,000 and 1 ≤ d_model ≤ 8192.
    """
    pos, d_model = check_pe_inputs(pos, d_model)
    import torch

    from quizforge.reference.positional import sinusoidal_angles, sinusoidal_encoding

    position = torch.tensor([pos])
    with single_thread():
        values = sinusoidal_encoding(position, d_model)[0].tolist()
        angles = sinusoidal_angles(position, d_model)[0].tolist()

    dims = [
        PEDim(
            j=j, i=j // 2, exponent=Fraction(2 * (j // 2), d_model), angle=angles[j // 2],
            function="sin" if j % 2 == 0 else "cos", value=values[j],
        )
        for j in range(d_model)
    ]
    return PEVector(pos=pos, d_model=d_model, dims=dims)
