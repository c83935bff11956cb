"""Closed forms, in sympy, for parameters, FLOPs, KV-cache and attention-score memory.

These are the second, independent computation of every figure (the first is
measured on the reference model) and the algebra of the worked solutions.
FLOPs count matrix products only, 2 per multiply-add, as FlopCounterMode does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import sympy as sp
from sympy.printing.str import StrPrinter

from quizforge.reference.config import ModelConfig


def _sym(name: str) -> sp.Symbol:
    return sp.Symbol(name, positive=True, integer=True)


# One symbol per hyperparameter, named as the worked solutions write them.
d, h, h_kv, d_head, d_ff = _sym("d_model"), _sym("h"), _sym("h_kv"), _sym("d_head"), _sym("d_ff")
L, L_enc, L_dec = _sym("L"), _sym("L_enc"), _sym("L_dec")
V, n_ctx, n_types = _sym("V"), _sym("n_ctx"), _sym("n_types")
B, n, n_src, n_tgt = _sym("B"), _sym("n"), _sym("n_src"), _sym("n_tgt")
bytes_per = _sym("bytes")


@dataclass(frozen=True)
class ClosedForm:
    """Per-component expressions and the values to substitute into them."""

    components: dict[str, sp.Expr]
    values: dict[sp.Symbol, int]

    @property
    def total_expr(self) -> sp.Expr:
        return sp.Add(*self.components.values())

    def evaluate(self, expr: sp.Expr) -> int:
        return evaluate(expr, self.values)

    def numbers(self) -> dict[str, int]:
        return {name: self.evaluate(expr) for name, expr in self.components.items()}

    @property
    def total(self) -> int:
        return self.evaluate(self.total_expr)


def evaluate(expr: sp.Expr, values: dict[sp.Symbol, int]) -> int:
    """The exact integer value of a closed form. A form with integer coefficients only is compiled
    once to Python integer arithmetic (exact, and far faster than substituting into sympy for
    every new size); any other goes through xreplace."""
    expr = sp.sympify(expr)
    compiled = _integer_function(expr)
    if compiled is not None and all(s in values and isinstance(values[s], int) for s in compiled[0]):
        symbols, function = compiled
        return int(function(*(values[s] for s in symbols)))
    return int(expr.xreplace({k: sp.Integer(v) for k, v in values.items()}))


@lru_cache(maxsize=1024)
def _integer_function(expr: sp.Expr):
    """(symbols, function) computing expr from integers with +, * and integer powers only; None
    when a coefficient is not an integer or an exponent not a natural number (a float or a
    division would creep in)."""
    if any(not n.is_Integer for n in expr.atoms(sp.Number)):
        return None
    if any(not (p.exp.is_Integer and p.exp >= 0) for p in expr.atoms(sp.Pow)):
        return None
    symbols = tuple(sorted(expr.free_symbols, key=lambda s: s.name))
    return symbols, sp.lambdify(symbols, expr, modules=[{}])


@dataclass(frozen=True)
class Structure:
    """What a closed form's shape depends on: everything in a config except its sizes.

    Questions draw thousands of configs of a few structures, so the sympy work is
    done once per structure and each question only substitutes its numbers.
    """

    arch: str
    bias: bool
    activation: str
    norm: str
    tied: bool
    positional: str
    norm_first: bool
    pooler: bool
    kv_is_h: bool          # n_kv_heads == n_heads: write h for h_kv
    split_heads: bool      # d_head·h == d_model: write d_model/h for d_head
    equal_stacks: bool     # encoder and decoder stacks equally deep: write L

    @classmethod
    def of(cls, cfg: ModelConfig) -> "Structure":
        return cls(cfg.arch, cfg.bias, cfg.activation, cfg.norm, cfg.tied, cfg.positional,
                   cfg.norm_first, cfg.pooler, cfg.n_kv_heads == cfg.n_heads,
                   cfg.d_head * cfg.n_heads == cfg.d_model, cfg.encoder_layers == cfg.decoder_layers)


def symbol_values(cfg: ModelConfig) -> dict[sp.Symbol, int]:
    return {d: cfg.d_model, h: cfg.n_heads, h_kv: cfg.n_kv_heads, d_head: cfg.d_head,
            d_ff: cfg.d_ff, L: cfg.n_layers, L_enc: cfg.encoder_layers, L_dec: cfg.decoder_layers,
            V: cfg.vocab_size, n_ctx: cfg.max_len, n_types: cfg.n_token_types}


def _simplify_for(cfg: Structure, expr: sp.Expr, keep_d_head: bool = False) -> sp.Expr:
    """Write the textbook form: d_head = d_model/h and h_kv = h when they hold; L for equal stacks."""
    subs: dict[sp.Symbol, sp.Expr] = {}
    if cfg.kv_is_h:
        subs[h_kv] = h
    if cfg.split_heads and not keep_d_head:
        subs[d_head] = d / h
    if cfg.equal_stacks:
        subs[L_enc] = L
        subs[L_dec] = L
    return sp.expand(expr.subs(subs)) if subs else sp.expand(expr)


# --- parameters -------------------------------------------------------------

def attention_params(cfg: Structure | ModelConfig) -> sp.Expr:
    """W_q, W_k, W_v, W_o weights, plus their biases when the model has them."""
    weights = d * h * d_head + 2 * d * h_kv * d_head + h * d_head * d
    biases = h * d_head + 2 * h_kv * d_head + d
    return weights + (biases if cfg.bias else 0)


def ffn_params(cfg: Structure | ModelConfig) -> sp.Expr:
    matrices = 3 if cfg.activation == "swiglu" else 2
    biases = ((matrices - 1) * d_ff + d) if cfg.bias else 0
    return matrices * d * d_ff + biases


def norm_params(cfg: Structure | ModelConfig) -> sp.Expr:
    return d if cfg.norm == "rmsnorm" else 2 * d


def param_closed_form(cfg: ModelConfig) -> ClosedForm:
    return ClosedForm(dict(_param_components(Structure.of(cfg))), symbol_values(cfg))


@lru_cache(maxsize=4096)
def param_total(cfg: ModelConfig) -> int:
    """cfg's parameter count from its closed form; cached, as templates count the same few
    presets (and their variants) over and over."""
    return param_closed_form(cfg).total


@lru_cache(maxsize=256)
def _param_components(cfg: Structure) -> dict[str, sp.Expr]:
    A, F, N = attention_params(cfg), ffn_params(cfg), norm_params(cfg)
    final = 1 if cfg.norm_first else 0
    head = 0 if cfg.tied else V * d
    positions = n_ctx * d if cfg.positional == "learned" else 0  # one table, shared by both stacks
    arch = cfg.arch
    if arch == "mha":
        parts = {"attention": A}
    elif arch == "ffn":
        parts = {"ffn": F}
    elif arch in ("layernorm", "rmsnorm"):
        parts = {"norms": N}
    elif arch == "encoder-layer":
        parts = {"attention": A, "ffn": F, "norms": 2 * N}
    elif arch == "decoder-layer":
        parts = {"attention": 2 * A, "ffn": F, "norms": 3 * N}
    elif arch == "encoder-decoder":
        parts = {"embeddings": V * d + positions, "attention": L_enc * A + L_dec * 2 * A,
                 "ffn": (L_enc + L_dec) * F, "norms": (2 * L_enc + 3 * L_dec + 2 * final) * N,
                 "head": head}
    elif arch == "bert":
        parts = {"embeddings": (V + n_types) * d + positions, "attention": L * A, "ffn": L * F,
                 "norms": (1 + 2 * L + final) * N, "pooler": (d * d + d) if cfg.pooler else 0}
    else:  # gpt, llama
        parts = {"embeddings": V * d + positions, "attention": L * A, "ffn": L * F,
                 "norms": (2 * L + final) * N, "head": head}
    return {k: _simplify_for(cfg, sp.sympify(v)) for k, v in parts.items()}


# --- FLOPs ------------------------------------------------------------------

def _projection_flops(cfg: Structure, q_tokens: sp.Expr, kv_tokens: sp.Expr) -> sp.Expr:
    """2·(tokens)·(in)·(out) for each of W_q, W_k, W_v, W_o."""
    return (2 * q_tokens * d * h * d_head + 2 * 2 * kv_tokens * d * h_kv * d_head
            + 2 * q_tokens * h * d_head * d)


def _score_flops(n_q: sp.Expr, n_k: sp.Expr) -> sp.Expr:
    """QKᵀ and A·V: each 2·B·h·n_q·n_k·d_head."""
    return 2 * (2 * B * h * n_q * n_k * d_head)


def _ffn_flops(cfg: Structure, tokens: sp.Expr) -> sp.Expr:
    matrices = 3 if cfg.activation == "swiglu" else 2
    return matrices * 2 * tokens * d * d_ff


def forward_flop_closed_form(cfg: ModelConfig, batch: int, seq_len: int,
                             tgt_len: int | None = None) -> ClosedForm:
    """Forward FLOPs per component. Encoder–decoder: seq_len source tokens, tgt_len target tokens."""
    values = symbol_values(cfg) | {B: batch, n: seq_len, n_src: seq_len,
                                    n_tgt: tgt_len if tgt_len is not None else seq_len}
    return ClosedForm(dict(_flop_components(Structure.of(cfg), tgt_len in (None, seq_len))), values)


@lru_cache(maxsize=256)
def _flop_components(cfg: Structure, same_lengths: bool) -> dict[str, sp.Expr]:
    arch = cfg.arch
    tokens = B * n
    proj, scores, ffn, head, pooler = 0, 0, 0, 0, 0
    if arch == "encoder-decoder":
        s, t = (n, n) if same_lengths else (n_src, n_tgt)
        proj = L_enc * _projection_flops(cfg, B * s, B * s) + L_dec * (
            _projection_flops(cfg, B * t, B * t) + _projection_flops(cfg, B * t, B * s))
        scores = L_enc * _score_flops(s, s) + L_dec * (_score_flops(t, t) + _score_flops(t, s))
        ffn = L_enc * _ffn_flops(cfg, B * s) + L_dec * _ffn_flops(cfg, B * t)
        head = 2 * B * t * d * V
    elif arch in ("mha", "encoder-layer"):
        proj, scores = _projection_flops(cfg, tokens, tokens), _score_flops(n, n)
        ffn = _ffn_flops(cfg, tokens) if arch == "encoder-layer" else 0
    elif arch == "decoder-layer":  # memory has the same length as the target here
        proj = 2 * _projection_flops(cfg, tokens, tokens)
        scores = 2 * _score_flops(n, n)
        ffn = _ffn_flops(cfg, tokens)
    elif arch == "ffn":
        ffn = _ffn_flops(cfg, tokens)
    elif arch in ("layernorm", "rmsnorm"):
        pass
    else:  # bert, gpt, llama: L identical layers
        proj = L * _projection_flops(cfg, tokens, tokens)
        scores = L * _score_flops(n, n)
        ffn = L * _ffn_flops(cfg, tokens)
        if arch == "bert":
            pooler = 2 * B * d * d if cfg.pooler else 0
        else:
            head = 2 * tokens * d * V
    parts = {"attention_proj": proj, "attention_scores": scores, "ffn": ffn, "head": head,
             "pooler": pooler}
    return {k: _simplify_for(cfg, sp.sympify(v)) for k, v in parts.items()}


def training_flops_expr(forward: sp.Expr) -> sp.Expr:
    """Backward computes a gradient for both operands of every product: twice the forward."""
    return 3 * forward


def six_nd_expr(n_params: sp.Expr, tokens: sp.Expr) -> sp.Expr:
    """Kaplan et al. 2020's approximation: 2N forward + 4N backward per token."""
    return 6 * n_params * tokens


# --- memory -----------------------------------------------------------------

def kv_cache_bytes_expr(cfg: ModelConfig) -> sp.Expr:
    """K and V, for every cached layer, batch element, position and KV head."""
    return _kv_cache_bytes(Structure.of(cfg))


@lru_cache(maxsize=64)
def _kv_cache_bytes(cfg: Structure) -> sp.Expr:
    layers = L_dec if cfg.arch == "encoder-decoder" else (1 if cfg.arch == "decoder-layer" else L)
    return _simplify_for(cfg, 2 * layers * B * n * h_kv * d_head * bytes_per, keep_d_head=True)


def attention_score_entries_expr(cfg: ModelConfig, tgt_len: int | None = None) -> dict[str, sp.Expr]:
    """Entries of the n_q × n_k weight matrices, per layer and summed over every attention module."""
    return dict(_attention_score_entries(Structure.of(cfg), tgt_len is None))


@lru_cache(maxsize=64)
def _attention_score_entries(cfg: Structure, same_lengths: bool) -> dict[str, sp.Expr]:
    per_layer = B * h * n * n
    if cfg.arch == "encoder-decoder":
        s, t = (n, n) if same_lengths else (n_src, n_tgt)
        total = L_enc * B * h * s * s + L_dec * (B * h * t * t + B * h * t * s)
    elif cfg.arch == "decoder-layer":
        total = 2 * per_layer
    elif cfg.arch in ("mha", "encoder-layer"):
        total = per_layer
    elif cfg.arch in ("ffn", "layernorm", "rmsnorm"):
        per_layer = total = sp.Integer(0)
    else:
        total = L * per_layer
    return {"per_layer": _simplify_for(cfg, per_layer), "total": _simplify_for(cfg, total)}


class _NumbersPrinter(StrPrinter):
    """Prints each symbol as its value, keeping the symbolic form's term order."""

    def __init__(self, values: dict[sp.Symbol, int]) -> None:
        super().__init__()
        self._values = values

    def _print_Symbol(self, expr: sp.Symbol) -> str:
        return str(self._values.get(expr, expr.name))


def format_expr(expr: sp.Expr) -> str:
    """Unicode for terminals: 4·d_model² + 4·d_model."""
    return _unicode(sp.sstr(expr))


def format_substituted(expr: sp.Expr, values: dict[sp.Symbol, int]) -> str:
    """The same expression with numbers in place of symbols, unevaluated: 4·12·768² + 4·12·768."""
    return _unicode(_NumbersPrinter(values).doprint(expr))


def _unicode(text: str) -> str:
    superscripts = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
    out, i = [], 0
    while i < len(text):
        if text.startswith("**", i):
            j = i + 2
            while j < len(text) and text[j].isdigit():
                j += 1
            out.append(text[i + 2 : j].translate(superscripts))
            i = j
        elif text[i] == "*":
            out.append("·")
            i += 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)
