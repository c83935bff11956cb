"""The classic wrong implementations, computed in the judge so a suite can recognise them.

Each function has switches that default to the correct behaviour; flipping one
reproduces one mistake. With every switch at its default the result agrees with
`quizforge.reference` (the project's tests check that), so a mistake is always
"the correct computation with one thing changed". Computations stay in the
inputs' dtype, because some mistakes (overflow, underflow) only show in float32.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor


# --- softmax ------------------------------------------------------------------------

def stable_softmax(x: Tensor, dim: int) -> Tensor:
    """torch.softmax's values, from elementwise ops: on CPU torch.softmax may hand even a tiny
    tensor to its thread pool, which costs milliseconds per call on a busy machine."""
    exps = (x - x.amax(dim=dim, keepdim=True)).exp()
    return exps / exps.sum(dim=dim, keepdim=True)


def softmax(x: Tensor, dim: int, *, shift: str = "slice", keepdim: bool = True) -> Tensor | None:
    """exp(x - shift) / sum(exp(x - shift)) along `dim`.

    shift: "slice" (each slice's own maximum: correct), "global" (the whole
    tensor's maximum: slices far below it underflow) or "none" (exp overflows).
    keepdim=False divides by sums that broadcast along the wrong axis; None when
    they do not broadcast at all (the student's code would raise).
    """
    if shift == "slice":
        x = x - x.amax(dim=dim, keepdim=True)
    elif shift == "global":
        x = x - x.max()
    exps = x.exp()
    sums = exps.sum(dim=dim, keepdim=keepdim)
    try:
        return exps / sums
    except RuntimeError:
        return None


# --- scaled dot-product attention -------------------------------------------------------

def attention(q: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None, *,
              divisor: float | None = None, softmax_dim: int = -1, mask_mode: str = "fill",
              stable: bool = True) -> tuple[Tensor, Tensor]:
    """(softmax(Q Kᵀ / divisor) V, weights); divisor defaults to √d_k.

    mask_mode: "fill" (masked scores set to -inf before the softmax: correct),
    "inverted" (True taken to mean "masked"), "ignored", "after_softmax" (weights
    zeroed after the softmax, rows no longer sum to 1) or "multiply" (scores
    multiplied by the mask, so masked keys get score 0, not -inf).
    stable=False: exp(scores) / sum without subtracting the maximum.
    """
    divisor = math.sqrt(q.shape[-1]) if divisor is None else divisor
    scores = q @ k.transpose(-2, -1) / divisor
    if mask is not None:
        if mask_mode == "fill":
            scores = scores.masked_fill(~mask, float("-inf"))
        elif mask_mode == "inverted":
            scores = scores.masked_fill(mask, float("-inf"))
        elif mask_mode == "multiply":
            scores = scores * mask
    if stable:
        weights = stable_softmax(scores, softmax_dim)
    else:
        exps = scores.exp()
        weights = exps / exps.sum(dim=softmax_dim, keepdim=True)
    if mask is not None and mask_mode == "after_softmax":
        weights = weights * mask
    return weights @ v, weights


# --- multi-head attention -------------------------------------------------------------

def multi_head_attention(state: dict[str, Tensor], query: Tensor, key: Tensor, value: Tensor, n_heads: int,
                         mask: Tensor | None = None, *, split_transpose: bool = True,
                         merge_transpose: bool = True, output_projection: bool = True,
                         scale: str = "d_head", key_from: str = "key", value_from: str = "value",
                         mask_mode: str = "fill") -> Tensor:
    """Multi-head attention on (B, n, d_model) inputs with W_q, W_k, W_v, W_o taken from `state`.

    split_transpose=False views (B, n, d_model) straight as (B, h, n, d_head);
    merge_transpose=False reshapes (B, h, n, d_head) straight to (B, n, d_model);
    output_projection=False returns the merged heads without W_o;
    scale: "d_head" (correct), "d_model" or "none";
    key_from / value_from: which input is projected by W_k / W_v ("query", "key", "value");
    mask_mode: as in `attention`.
    """
    inputs = {"query": query, "key": key, "value": value}
    B, n_q, d_model = query.shape
    d_head = d_model // n_heads

    def project(x: Tensor, name: str) -> Tensor:
        return F.linear(x, state[f"{name}.weight"], state.get(f"{name}.bias"))

    def split(x: Tensor) -> Tensor:
        n = x.shape[1]
        if split_transpose:
            return x.reshape(B, n, n_heads, d_head).transpose(1, 2)
        return x.reshape(B, n_heads, n, d_head)

    q = split(project(query, "W_q"))
    k = split(project(inputs[key_from], "W_k"))
    v = split(project(inputs[value_from], "W_v"))
    divisor = {"d_head": math.sqrt(d_head), "d_model": math.sqrt(d_model), "none": 1.0}[scale]
    heads, _ = attention(q, k, v, mask, divisor=divisor, mask_mode=mask_mode)  # (B, h, n_q, d_head)
    merged = (heads.transpose(1, 2) if merge_transpose else heads).reshape(B, n_q, d_model)
    return project(merged, "W_o") if output_projection else merged


# --- sinusoidal positional encoding ---------------------------------------------------------

def sinusoidal(max_len: int, d_model: int, *, layout: str = "interleaved", exponent: str = "2i",
               first_position: int = 0, divide: bool = True) -> Tensor:
    """The (max_len, d_model) table in float64, d_model even.

    layout: "interleaved" (sin in even columns, cos in odd: correct), "swapped"
    (cos in even, sin in odd), "halves" ([sin | cos]) or "halves_swapped" ([cos | sin]).
    exponent of 10000 for column k (pair i = k // 2): "2i" (correct), "i" (the 2 left
    out), "k" (each column its own index) or "2k" (the column index taken as i).
    first_position: the position of row 0. divide=False multiplies by 10000^(...) instead.
    """
    positions = torch.arange(first_position, first_position + max_len, dtype=torch.float64)[:, None]
    column = torch.arange(d_model, dtype=torch.float64)
    pair = torch.div(column, 2, rounding_mode="floor")
    power = {"2i": 2 * pair, "i": pair, "k": column, "2k": 2 * column}[exponent] / d_model
    frequency = 10000.0 ** power
    angles = positions / frequency if divide else positions * frequency  # (max_len, d_model)
    if layout in ("halves", "halves_swapped"):
        first, second = (torch.sin, torch.cos) if layout == "halves" else (torch.cos, torch.sin)
        pair_angles = angles[:, 0::2]
        return torch.cat([first(pair_angles), second(pair_angles)], dim=1)
    even_is_sine = (column % 2 == 0) if layout == "interleaved" else (column % 2 == 1)
    return torch.where(even_is_sine, torch.sin(angles), torch.cos(angles))


# --- layer norm ---------------------------------------------------------------------------

def layer_norm(x: Tensor, weight: Tensor, bias: Tensor, eps: float, *, correction: int = 0,
               eps_placement: str = "inside", over: str = "last", affine: str = "both") -> Tensor:
    """(x - mean) / sqrt(var + eps) * weight + bias, in x's dtype.

    correction=1: the unbiased variance. eps_placement: "inside" the square root
    (correct), "outside" (sqrt(var) + eps) or "none". over: "last" (correct),
    "all" (statistics of the whole tensor) or "first" (over dim 0).
    affine: "both" (correct), "none" or "weight" (the bias left out).
    """
    dims = {"last": (-1,), "all": tuple(range(x.dim())), "first": (0,)}[over]
    var, mean = torch.var_mean(x, dim=dims, keepdim=True, correction=correction)
    if eps_placement == "inside":
        y = (x - mean) / torch.sqrt(var + eps)
    elif eps_placement == "outside":
        y = (x - mean) / (torch.sqrt(var) + eps)
    else:
        y = (x - mean) / torch.sqrt(var)
    if affine == "none":
        return y
    return y * weight if affine == "weight" else y * weight + bias
