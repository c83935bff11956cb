"""Measure the one-call loopholes each challenge's rules leave open, as a submission sees them.

    python -m quizforge.maintainer.measure_loopholes              # every challenge
    python -m quizforge.maintainer.measure_loopholes swiglu ...   # only these challenges

Run from a source checkout: each challenge's answers come from solutions/<id>.py. For every
challenge a probe (PROBES below) draws seeded random inputs in the shapes the challenge uses and
computes, with the reference solution, the answer or the core of it a student must write
(`silu(a)·b` for swiglu, the attention of every attention challenge, the pieces of the
cross-entropy its README forbids). Then every public callable a submission could name is called
on them, with a handful of argument patterns each (the solution's arguments, the variants a
trick needs: `-x` for a softmin, `[a·b, a]` for a GLU, the transpose for a batch norm): the
functions of every module in the capability compile's MODULES, the Tensor methods, and the
nn.Module classes (built from a few constructor patterns, as built, with identity projections
and with the reference's parameters, then the module and one submodule of each type called),
plus the challenge's own forbidden names, which may sit outside every list. Where every answer
is a tensor, numpy's and the standard library's functions are skipped but for numpy's ufuncs:
the others return an ndarray or a Python value, never the answer. A candidate whose output
equals the answer (allclose) on one call is a loophole: one call does what the exercise asks
the student to write.

Each hit says whether a submission may name it, asked of `Capabilities(forbidden)` views and
its attribute hook, so the measurement sees exactly what a submission sees: "refused" is closed
already, "allowed" must go on the challenge's `forbidden` list. The exit status is 1 while any
allowed hit remains.

Safety: calls run on small inputs, one thread, under a per-call timer, with warnings, output
and the working folder kept away from the caller, and the random states put back; names that
change process-wide state (seeds, threads, print options) or allocate from their input's shape
are never called (UNSAFE), and a module built with over a million parameters is dropped.
All challenges take about 40 s of CPU.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import io
import math
import os
import signal
import sys
import tempfile
import threading
import time
import types
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

CHECKOUT = Path(__file__).resolve().parent.parent.parent
CALL_CAP = 2.0        # seconds one call may take (wall time, on a busy machine) before it is abandoned
RTOL, ATOL = 1e-4, 1e-5

# Names never called: they change what the rest of the process relies on (seeds, threads, print
# options, numpy's error state), run code of their own (numpy's test suite, torch.fork) or read
# TorchScript. A leaf starting with "set_" is skipped too.
UNSAFE = frozenset({
    "torch.manual_seed", "torch.seed", "torch.use_deterministic_algorithms", "torch.init_num_threads",
    "torch.fork", "torch.wait", "torch.autocast_increment_nesting", "torch.autocast_decrement_nesting",
    "torch.clear_autocast_cache", "torch.import_ir_module", "torch.import_ir_module_from_buffer", "torch.parse_ir",
    "numpy.test", "numpy.seterr", "numpy.seterrcall", "numpy.setbufsize", "numpy.printoptions",
    "numpy.random.seed", "torch.Tensor.share_memory_", "torch.Tensor.pin_memory", "torch.Tensor.record_stream",
    # bins along each of the input's columns: 10^d of them, in one uninterruptible allocation
    "numpy.histogramdd", "numpy.histogram2d",
})


# --- probes --------------------------------------------------------------------------------

def _fresh(value):
    """A copy a call may change in place: tensors cloned (parameters keep their gradient),
    containers copied; modules, generators and everything else as they are."""
    import torch

    kind = type(value)
    if kind is torch.Tensor:
        return value.clone()
    if kind is tuple or kind is list:
        return kind(_fresh(v) for v in value)
    if kind is torch.nn.Parameter:
        copy = torch.nn.Parameter(value.detach().clone(), requires_grad=value.requires_grad)
        if value.grad is not None:
            copy.grad = value.grad.clone()
        return copy
    if kind is dict:
        return {k: _fresh(v) for k, v in value.items()}
    return value


@dataclass
class Pattern:
    """One way to call a candidate: `make()` gives fresh (args, kwargs); `post(out, args, kwargs)`
    brings its output into the answer's layout (or reads what the call changed in place)."""
    label: str
    make: Callable[[], tuple[tuple, dict]]
    post: Callable | None = None
    on_tensor: bool = False  # the first argument is a tensor: the pattern suits a Tensor method too


def call(label: str, *args, post: Callable | None = None, **kwargs) -> Pattern:
    import torch

    return Pattern(label, lambda: (_fresh(args), _fresh(kwargs)), post,
                   bool(args) and isinstance(args[0], torch.Tensor))


@dataclass
class Case:
    """One input and its answer. `calls`: patterns for functions and Tensor methods (a method's
    object is the first argument); `ctors` and `forwards`: how an nn.Module class is built and
    then called (forwards default to calls); `state`: the reference's parameters, loaded into a
    built module when names and shapes fit; `use(cls)`: a class use of its own (optimizers),
    yielding (label, output)."""
    label: str
    answer: object
    calls: list[Pattern]
    ctors: list[Pattern] = field(default_factory=lambda: [call("()")])
    forwards: list[Pattern] | None = None
    state: dict | None = None
    use: Callable[[type], Iterator[tuple[str, object]]] | None = None


def _solution(challenge_id: str) -> types.ModuleType:
    path = CHECKOUT / "solutions" / f"{challenge_id}.py"
    spec = importlib.util.spec_from_file_location(f"quizforge_solution_{challenge_id}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _randn(*shape, seed: int, scale: float = 1.0):
    import torch

    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=torch.float32) * scale


def _softmax_cases(label: str, x, dim: int, answer) -> Case:
    """A softmax of x along dim: by name, as a softmin of -x, as Softmax2d (dim -3), and as
    attention whose keys and values are the identity (scores x, weights softmax(x))."""
    import torch

    calls = [call("(x, dim)", x, dim), call("(x, dim=dim)", x, dim=dim), call("(x)", x),
             call("(-x, dim)", -x, dim), call("(-x, dim=dim)", -x, dim=dim)]
    forwards = [call("(x)", x), call("(-x)", -x)]
    ctors = [call("()"), call("(dim)", dim), call("(dim=dim)", dim=dim)]
    if dim in (-1, x.dim() - 1) and x.dim() == 3:
        B, L, E = x.shape
        eye = torch.eye(E).expand(B, E, E).contiguous()
        calls.append(call("(x, I, I, scale=1.0)", x, eye, eye, scale=1.0))
        # multi_head_attention_forward: (L, B, E) layout, identity projections, one head
        three = torch.eye(E).repeat(3, 1) * torch.tensor([math.sqrt(E)] * E + [1.0] * 2 * E)[:, None]
        calls.append(call("(xᵀ, Iᵀ, Iᵀ, E, 1, [√E·I; I; I], ..., I)", x.transpose(0, 1), eye.transpose(0, 1),
                          eye.transpose(0, 1), E, 1, three, None, None, None, False, 0.0, torch.eye(E), None,
                          need_weights=False, post=lambda out, a, k: out[0].transpose(0, 1)))
        ctors += [call("(E, 1, bias=False, batch_first=True)", E, 1, bias=False, batch_first=True),
                  call("(E, 1, dropout=0.0, batch_first=True)", E, 1, dropout=0.0, batch_first=True)]
        forwards += [call("(x·√E, I, I)", x * math.sqrt(E), eye, eye),
                     call("(x·√E, I, I, need_weights=False)", x * math.sqrt(E), eye, eye, need_weights=False)]
    return Case(label, answer, calls, ctors, forwards)


def probe_softmax(sol) -> list[Case]:
    x, x4 = _randn(2, 3, 5, seed=1, scale=3), _randn(2, 3, 4, 5, seed=2, scale=3)
    return [_softmax_cases("softmax over the last dim", x, -1, sol.softmax(x.clone(), -1)),
            _softmax_cases("softmax over dim 1 of a 4-D input", x4, 1, sol.softmax(x4.clone(), 1))]


def probe_cross_entropy(sol) -> list[Case]:
    """The loss itself, and the pieces it is built from that the README forbids: the log-softmax,
    the log-normaliser (logsumexp) and the softmax. Each piece comes from the solution too:
    log softmax(logits)[i, j] is -cross_entropy(logits[i], j)."""
    import torch

    V = 7
    logits, targets = _randn(4, V, seed=3, scale=3), torch.tensor([0, 3, 6, 2])
    logits3 = _randn(2, 3, V, seed=4, scale=3)
    targets3 = torch.tensor([[1, 0, 6], [5, 2, 2]])
    eye = torch.eye(V)
    # (V, V, [V - 1]): an adaptive softmax whose head is all but one class, and a one-class tail
    loss_ctors = [call("()"), call("(V, V)", V, V), call("(V, V, bias=False)", V, V, bias=False),
                  call("(V, V, [V - 1])", V, V, [V - 1])]
    cases = [
        Case("the loss, (N, V) logits", sol.cross_entropy(logits, targets),
             [call("(logits, targets)", logits, targets), call("(logits, I, targets)", logits, eye, targets)],
             loss_ctors, [call("(logits, targets)", logits, targets)]),
        Case("the loss, (B, T, V) logits", sol.cross_entropy(logits3, targets3),
             [call("(logits, targets)", logits3, targets3),
              call("(logits.permute(0, 2, 1), targets)", logits3.permute(0, 2, 1), targets3),
              call("(logits, I, targets)", logits3, eye, targets3)],
             loss_ctors, [call("(logits.permute(0, 2, 1), targets)", logits3.permute(0, 2, 1), targets3),
                          call("(logits.reshape(-1, V), targets.reshape(-1))", logits3.reshape(-1, V),
                               targets3.reshape(-1))]),
    ]
    log_softmax = -torch.stack([torch.stack([sol.cross_entropy(row, torch.tensor(j)) for j in range(V)])
                                for row in logits])
    log_normaliser = log_softmax.neg()[:, 0] + logits[:, 0]
    cases.append(Case("its log-softmax", log_softmax,
                      [call("(logits, -1)", logits, -1), call("(logits, dim=-1)", logits, dim=-1),
                       call("(logits)", logits)],
                      [call("()"), call("(-1)", -1), call("(dim=-1)", dim=-1)], [call("(logits)", logits)]))
    cases.append(Case("its log-normaliser", log_normaliser,
                      [call("(logits, -1)", logits, -1), call("(logits, dim=-1)", logits, dim=-1),
                       call("(logits, (-1,))", logits, (-1,))]))
    cases.append(_softmax_cases("its softmax", logits[None], -1, log_softmax.exp()[None]))
    return cases


def _norm_cases(label: str, x, weight, bias, eps: float, answer, state: dict, centre: bool,
                weighted: bool = False) -> Case:
    """Normalisations other than the challenge's own that compute it: on x; on x as (rows, d)
    (group norm, one group); on its transpose (batch norm, each row a channel); as
    (1, rows, d[, 1[, 1]]) (instance and batch norm of each rank: each row a channel); on x less
    its mean (RMS norm, for layer norm); on [x, -x], whose mean is 0 and whose variance is
    mean(x²) (layer norm and the rest, for RMS norm). Modules are also built with (d, 1), so the
    transformer layers' LayerNorms are reached. `weighted`: only the calls that take a weight
    per feature (a case with random parameters; the norms themselves are found with weight 1)."""
    import torch

    d, shape = x.shape[-1], x.shape
    bias = torch.zeros(d) if bias is None else bias
    if centre:
        source, width, w, b, half = x, d, weight, bias, (lambda o: o)
    else:
        source = torch.cat([x, -x], -1)
        width, w, b, half = 2 * d, torch.cat([weight, weight]), torch.zeros(2 * d), (lambda o: o[..., :d])
    flat = source.reshape(-1, width)
    rows = flat.shape[0]

    def back(transform):
        return lambda out, args, kwargs: half(transform(out)).reshape(shape)

    # (kind, name, input, output -> the answer's layout, width, weight, bias)
    variants = [("plain", "x", x, None, d, weight, bias)]
    if centre:
        variants.append(("plain", "x - mean", x - x.mean(-1, keepdim=True), None, d, weight, bias))
    else:
        variants.append(("plain", "[x, -x]", source, back(lambda o: o), width, w, b))
    variants += [("group", "(rows, d)", flat, back(lambda o: o), width, w, b),
                 ("batch", "(rows, d)ᵀ", flat.T, back(lambda o: o.T), width, w, b),
                 ("channels", "(1, rows, d)", flat[None], back(lambda o: o[0]), width, w, b),
                 ("channels", "(1, rows, d, 1)", flat[None, :, :, None], back(lambda o: o[0, :, :, 0]), width, w, b),
                 ("channels", "(1, rows, d, 1, 1)", flat[None, :, :, None, None], back(lambda o: o[0, :, :, 0, 0]),
                  width, w, b)]
    calls, forwards = [], []
    for kind, name, v, post, n, w, b in variants:
        forwards.append(call(f"({name})", v, post=post))
        if kind == "batch":  # (input, running_mean, running_var, ...); torch's own ends with cudnn_enabled
            calls += [call(f"({name}, None, None, training=True, eps=eps)", v, None, None, training=True, eps=eps,
                           post=post),
                      call(f"({name}, None, None, None, None, True, 0.1, eps)", v, None, None, None, None, True,
                           0.1, eps, post=post),
                      call(f"({name}, None, None, None, None, True, 0.1, eps, False)", v, None, None, None, None,
                           True, 0.1, eps, False, post=post)]
        elif kind == "channels" and v.dim() == 3:  # instance norm's: rows as channels, no affine; the
            # functions take any rank, the higher ranks are for the modules (InstanceNorm2d, ...)
            calls += [call(f"({name}, eps=eps)", v, eps=eps, post=post), call(f"({name})", v, post=post),
                      call(f"({name}, None, None, None, None, True, 0.1, eps, False)", v, None, None, None, None,
                           True, 0.1, eps, False, post=post)]
        elif kind == "group":  # (input, groups, weight, bias, eps); torch.native_group_norm's (..., N, C, HxW, ...)
            calls += [call(f"({name}, 1, w, b, eps)", v, 1, w, b, eps, post=post),
                      call(f"({name}, 1, eps=eps)", v, 1, eps=eps, post=post),
                      call(f"({name}, w, b, rows, d, 1, 1, eps)", v, w, b, rows, n, 1, 1, eps, post=post)]
        elif kind == "plain":  # layer and RMS norm's: (input, normalized_shape, ...), and whatever takes a dim
            calls += [call(f"({name})", v, post=post), call(f"({name}, (d,))", v, (n,), post=post),
                      call(f"({name}, (d,), w, b, eps)", v, (n,), w, b, eps, post=post),
                      call(f"({name}, (d,), w, eps)", v, (n,), w, eps, post=post),
                      call(f"({name}, (d,), eps=eps)", v, (n,), eps=eps, post=post),
                      call(f"({name}, eps=eps)", v, eps=eps, post=post),
                      call(f"({name}, dim=-1)", v, dim=-1, post=post)]
    if weighted:
        calls = [c for c in calls if " w," in c.label]
        forwards = forwards[:2]
    ctors = [call("()"), call("(eps=eps)", eps=eps), call("(rows, eps)", rows, eps)]
    for n in sorted({d, width}):
        ctors += [call(f"({n})", n), call(f"({n}, eps)", n, eps), call(f"(({n},), eps)", (n,), eps),
                  call(f"(1, {n}, eps)", 1, n, eps), call(f"({n}, eps, bias=False)", n, eps, bias=False),
                  call(f"({n}, 1)", n, 1)]
    return Case(label, answer, calls, ctors, forwards, state)


def probe_layer_norm(sol) -> list[Case]:
    import torch

    d, eps = 8, 1e-5
    x, x2 = _randn(2, 3, d, seed=5, scale=2) + 1, _randn(6, d, seed=6, scale=3) - 2
    fresh = sol.LayerNorm(d, eps)
    trained = sol.LayerNorm(d, eps)
    state = {"weight": _randn(d, seed=7), "bias": _randn(d, seed=8)}
    trained.load_state_dict(state)
    with torch.no_grad():
        return [_norm_cases("as built (weight 1, bias 0)", x, torch.ones(d), torch.zeros(d), eps, fresh(x),
                            {"weight": torch.ones(d), "bias": torch.zeros(d)}, centre=True),
                _norm_cases("random weight and bias", x2, state["weight"], state["bias"], eps, trained(x2), state,
                            centre=True, weighted=True)]


def probe_rms_norm(sol) -> list[Case]:
    import torch

    d, eps = 8, 1e-5
    x, x2 = _randn(2, 3, d, seed=9, scale=2) + 1, _randn(6, d, seed=10, scale=3) - 2
    fresh = sol.RMSNorm(d, eps)
    trained = sol.RMSNorm(d, eps)
    state = {"weight": _randn(d, seed=11)}
    trained.load_state_dict(state)
    with torch.no_grad():
        return [_norm_cases("as built (weight 1)", x, torch.ones(d), None, eps, fresh(x),
                            {"weight": torch.ones(d)}, centre=False),
                _norm_cases("random weight", x2, state["weight"], None, eps, trained(x2), state, centre=False,
                            weighted=True)]


def probe_swiglu(sol) -> list[Case]:
    """The gated activation the student writes: silu(a)·b and silu(a), from the solution's module
    with w1 = [I 0], w3 = [0 I] and w2 = [I; 0] on x = [a, b] (b = 1 for silu(a) alone)."""
    import torch

    d = 6
    a, b = _randn(2, 3, d, seed=12, scale=3), _randn(2, 3, d, seed=13)
    module = sol.SwiGLU(2 * d, d)
    eye, zero = torch.eye(d), torch.zeros(d, d)
    module.load_state_dict({"w1.weight": torch.cat([eye, zero], 1), "w3.weight": torch.cat([zero, eye], 1),
                            "w2.weight": torch.cat([eye, zero], 0)})
    with torch.no_grad():
        gated = module(torch.cat([a, b], -1))[..., :d]
        silu = module(torch.cat([a, torch.ones_like(a)], -1))[..., :d]
    ctors = [call("()"), call("(-1)", -1), call("(dim=-1)", dim=-1)]
    ab, aa = torch.cat([a * b, a], -1), torch.cat([a, a], -1)
    return [
        Case("silu(a)·b", gated, [call("(a, b)", a, b), call("([a·b, a])", ab), call("([a·b, a], -1)", ab, -1),
                                  call("([a, b])", torch.cat([a, b], -1))],
             ctors, [call("([a·b, a])", ab)]),
        Case("silu(a)", silu, [call("(a)", a), call("([a, a])", aa), call("([a, a], -1)", aa, -1),
                               call("(a, a)", a, a)],
             ctors, [call("(a)", a), call("([a, a])", aa)]),
    ]


# attention: every attention challenge's core

def _heads(t, H):
    B, L, E = t.shape
    return t.view(B, L, H, E // H).transpose(1, 2)


def _merge(out, args, kwargs):
    B, H, L, d = out.shape
    return out.transpose(1, 2).reshape(B, L, H * d)


def _attention_case(label: str, q, k, v, H: int, answer, mask=None, causal: bool = False,
                    kv_heads: int | None = None) -> Case:
    """Attention of q over k, v (B, L, E), H heads, mask True = may attend; `answer` (B, L, E).
    Per head, by scaled_dot_product_attention; merged, by multi_head_attention_forward and by
    the attention modules with identity projections (and the modules that hold one)."""
    import torch

    E = q.shape[-1]
    Q, K, V = _heads(q, H), _heads(k, kv_heads or H), _heads(v, kv_heads or H)
    calls = [call("(Q, K, V)", Q, K, V, post=_merge), call("(Q, K, V, enable_gqa=True)", Q, K, V, enable_gqa=True,
                                                          post=_merge)]
    if mask is not None:
        calls += [call("(Q, K, V, mask)", Q, K, V, mask, post=_merge),
                  call("(Q, K, V, attn_mask=mask, enable_gqa=True)", Q, K, V, attn_mask=mask, enable_gqa=True,
                       post=_merge)]
    if causal:
        calls += [call("(Q, K, V, is_causal=True)", Q, K, V, is_causal=True, post=_merge),
                  call("(Q, K, V, is_causal=True, enable_gqa=True)", Q, K, V, is_causal=True, enable_gqa=True,
                       post=_merge)]
    if kv_heads is None:
        three, eye = torch.eye(E).repeat(3, 1), torch.eye(E)
        refused = None if mask is None else ~mask
        calls.append(call("(qᵀ, kᵀ, vᵀ, E, H, [I; I; I], ..., I, attn_mask=~mask)", q.transpose(0, 1),
                          k.transpose(0, 1), v.transpose(0, 1), E, H, three, None, None, None, False, 0.0, eye, None,
                          need_weights=False, attn_mask=refused, post=lambda out, a, kw: out[0].transpose(0, 1)))
    ctors = [call("(E, H, batch_first=True)", E, H, batch_first=True),
             call("(E, H, bias=False, batch_first=True)", E, H, bias=False, batch_first=True),
             call("(E, H, dropout=0.0, batch_first=True)", E, H, dropout=0.0, batch_first=True)]
    if kv_heads is None and mask is None:
        forwards = [call("(q, k, v)", q, k, v), call("(q, k, v, need_weights=False)", q, k, v, need_weights=False)]
    elif kv_heads is None:
        forwards = [call("(q, k, v, attn_mask=~mask)", q, k, v, attn_mask=~mask),
                    call("(q, k, v, attn_mask=~mask, need_weights=False)", q, k, v, attn_mask=~mask,
                         need_weights=False)]
        if causal:
            forwards.append(call("(q, k, v, attn_mask=~mask, is_causal=True)", q, k, v, attn_mask=~mask,
                                 is_causal=True, need_weights=False))
    else:  # no module takes fewer key heads than query heads
        forwards = []
    return Case(label, answer, calls, ctors if forwards else [], forwards)


def _identity(module) -> bool:
    """Every matrix of `module` the identity (stacked, for a fused [q; k; v] projection, or
    [I 0]: the first rows), every bias 0 and every other vector 1 (a norm's weight). False when
    it has no matrix (nothing an identity would change)."""
    import torch

    matrices = False
    with torch.no_grad():
        for name, p in module.named_parameters():
            rows, cols = p.shape if p.dim() == 2 else (0, 0)
            if p.dim() == 2 and rows > cols and rows % cols == 0:
                p.copy_(torch.eye(cols).repeat(rows // cols, 1))
            elif p.dim() == 2:
                p.copy_(torch.eye(rows, cols))
            elif "bias" in name.rsplit(".", 1)[-1]:
                p.zero_()
            else:
                p.fill_(1.0)
            matrices |= p.dim() == 2
    return matrices


def _causal(T: int, past: int = 0):
    import torch

    return torch.ones(T, past + T, dtype=torch.bool).tril(past)


def _sdpa_cases(attend: Callable) -> list[Case]:
    """`attend(Q, K, V, mask)` per head (B, H, L, d) -> the reference's output."""
    B, L, S, E, H = 2, 4, 5, 8, 2
    q, k, v = _randn(B, L, E, seed=20), _randn(B, S, E, seed=21), _randn(B, S, E, seed=22)
    x = _randn(B, L, E, seed=23)
    mask = _causal(L)
    cases = [_attention_case("cross-attention", q, k, v, H, _merge(attend(_heads(q, H), _heads(k, H), _heads(v, H),
                                                                            None), None, None))]
    causal = attend(_heads(x, H), _heads(x, H), _heads(x, H), mask)
    if causal is not None:
        cases.append(_attention_case("causal self-attention", x, x, x, H, _merge(causal, None, None), mask, True))
    return cases


def probe_scaled_dot_product_attention(sol) -> list[Case]:
    return _sdpa_cases(lambda Q, K, V, mask: sol.scaled_dot_product_attention(Q, K, V, mask)[0])


def probe_fix_broken_attention(sol) -> list[Case]:
    return _sdpa_cases(lambda Q, K, V, mask: sol.attention(Q, K, V) if mask is None else None)


def _module_attention_cases(attend: Callable, E: int = 8, H: int = 2) -> list[Case]:
    """`attend(q, k, v, mask)` merged (B, L, E) through the solution's module with identity
    projections -> the reference's output; mask None or the causal mask."""
    import torch

    B, L, S = 2, 4, 5
    q, k, v = _randn(B, L, E, seed=30), _randn(B, S, E, seed=31), _randn(B, S, E, seed=32)
    x = _randn(B, L, E, seed=33)
    mask = _causal(L)
    cases = []
    with torch.no_grad():
        cross = attend(q, k, v, None)
        if cross is not None:
            cases.append(_attention_case("cross-attention", q, k, v, H, cross))
        cases.append(_attention_case("self-attention", x, x, x, H, attend(x, x, x, None)))
        cases.append(_attention_case("causal self-attention", x, x, x, H, attend(x, x, x, mask), mask, True))
    return cases


def probe_multi_head_attention(sol) -> list[Case]:
    module = sol.MultiHeadAttention(8, 2, bias=False)
    _identity(module)
    return _module_attention_cases(lambda q, k, v, mask: module(q, k, v, mask))


def _self_attention(module):
    _identity(module)
    return lambda q, k, v, mask: module(q, mask) if q is k is v else None


def probe_transformer_block(sol) -> list[Case]:
    return _module_attention_cases(_self_attention(sol.TransformerBlock(8, 2, 16).attn))


def probe_transformer_lm(sol) -> list[Case]:
    return _module_attention_cases(_self_attention(sol.TransformerLM(11, 6, 8, 1, 2, 16).blocks[0].attn))


def probe_grouped_query_attention(sol) -> list[Case]:
    """GQA with W_q = I and W_k = W_v = [I 0] (the first n_kv_heads heads of x), and with
    n_kv_heads = n_heads (plain multi-head self-attention)."""
    import torch

    E, H, H_kv, B, T = 8, 4, 2, 2, 5
    x = _randn(B, T, E, seed=40)
    module = sol.GroupedQueryAttention(E, H, H_kv)
    _identity(module)
    mask = _causal(T)
    head = E // H
    kv = x[..., :H_kv * head]
    with torch.no_grad():
        grouped = [_attention_case("grouped self-attention", x, kv, kv, H, module(x), kv_heads=H_kv),
                   _attention_case("grouped causal self-attention", x, kv, kv, H, module(x, mask), mask, True,
                                   kv_heads=H_kv)]
    plain = sol.GroupedQueryAttention(8, 2, 2)
    return grouped + _module_attention_cases(_self_attention(plain))


def probe_kv_cache(sol) -> list[Case]:
    """A chunk of T tokens after P cached ones: attention over all P + T keys, causal with the
    offset; and a first chunk (plain causal self-attention)."""
    import torch

    E, H, B, P, T = 8, 2, 2, 3, 4
    module = sol.CachedCausalSelfAttention(E, H)
    _identity(module)
    past, new = _randn(B, P, E, seed=50), _randn(B, T, E, seed=51)
    with torch.no_grad():
        _, cache = module(past)
        out, _ = module(new, cache)
        first, _ = module(new)
    keys = torch.cat([past, new], 1)
    return [_attention_case("a chunk after a cache", new, keys, keys, H, out, _causal(T, P)),
            _attention_case("a first chunk", new, new, new, H, first, _causal(T), True)]


# the rest: whole answers

def probe_causal_mask(sol) -> list[Case]:
    import torch

    n = 6
    return [Case("n = 6", sol.causal_mask(n),
                 [call("(n)", n), call("(n, n)", n, n), call("((n, n))", (n, n)), call("(n, device='cpu')", n,
                                                                                        device="cpu"),
                  call("(n, n, dtype=bool)", n, n, dtype=torch.bool), call("((n, n), dtype=bool)", (n, n),
                                                                            dtype=torch.bool)])]


def probe_sinusoidal_positional_encoding(sol) -> list[Case]:
    import torch

    return [Case("10 positions, d_model 8", sol.sinusoidal_positional_encoding(10, 8),
                 [call("(max_len, d_model)", 10, 8), call("(max_len, d_model, dtype=float32)", 10, 8,
                                                          dtype=torch.float32),
                  call("((max_len, d_model))", (10, 8))])]


def probe_rope(sol) -> list[Case]:
    import torch

    x, positions = _randn(2, 5, 8, seed=60), torch.tensor([3, 0, 7, 1, 2])
    return [Case("interleaved pairs", sol.apply_rope(x, positions),
                 [call("(x, positions)", x, positions), call("(x, positions, base)", x, positions, 10000.0),
                  call("(x, positions, base=base)", x, positions, base=10000.0)])]


def probe_cosine_schedule(sol) -> list[Case]:
    cases = []
    for t in (3, 40):
        args = (t, 1e-2, 1e-3, 10, 110)
        cases.append(Case(f"t = {t}", sol.cosine_lr(*args),
                          [call("(t, lr_max, lr_min, warmup, cycle)", *args),
                           call("(t, lr_max=, lr_min=, warmup_steps=, cycle_steps=)", t, lr_max=1e-2, lr_min=1e-3,
                                warmup_steps=10, cycle_steps=110)]))
    return cases


def probe_gradient_clipping(sol) -> list[Case]:
    import torch

    def parameters():
        made = []
        for i, shape in enumerate([(3, 4), (4,), (2,)]):
            p = torch.nn.Parameter(_randn(*shape, seed=70 + i))
            if i < 2:  # the last one has no gradient
                p.grad = _randn(*shape, seed=80 + i, scale=2)
            made.append(p)
        return made

    params = parameters()
    max_norm = 1.5
    norm = sol.clip_grad_norm(params, max_norm)
    answer = (norm, [p.grad for p in params if p.grad is not None])

    def read(out, args, kwargs):
        return (out, [p.grad for p in args[0] if p.grad is not None])

    return [Case("clipped", answer, [call("(params, max_norm)", parameters(), max_norm, post=read),
                                     call("(params, max_norm, 2.0)", parameters(), max_norm, 2.0, post=read),
                                     call("(params, max_norm, eps)", parameters(), max_norm, 1e-6, post=read)])]


def probe_adamw(sol) -> list[Case]:
    """One step (for the functional and fused forms: lists of params, grads and states) and
    three steps of an optimizer class built like torch.optim.AdamW."""
    import torch

    lr, betas, eps, wd = 0.1, (0.8, 0.9), 1e-6, 0.3
    p0 = _randn(5, seed=90)
    grads = [_randn(5, seed=91 + i) for i in range(3)]

    def run(cls, steps, **extra):
        p = torch.nn.Parameter(p0.clone())
        opt = cls([p], lr=lr, betas=betas, eps=eps, weight_decay=wd, **extra)
        for g in grads[:steps]:
            p.grad = g.clone()
            opt.step()
        return p.detach().clone()

    def optimizers(cls) -> Iterator[tuple[str, object]]:
        if isinstance(cls, type) and issubclass(cls, torch.optim.Optimizer):
            yield "([p], lr, betas, eps, weight_decay), 3 steps", run(cls, 3)
            yield "(..., decoupled_weight_decay=True), 3 steps", run(cls, 3, decoupled_weight_decay=True)

    def functional(step: float, **kwargs) -> Pattern:
        def make():
            return (([p0.clone()], [grads[0].clone()], [torch.zeros(5)], [torch.zeros(5)], [],
                     [torch.tensor(step)]), dict(kwargs))
        return Pattern(f"([p], [g], [m], [v], [], [step={step:g}], ...)", make,
                       lambda out, args, kw: args[0][0])

    common = dict(lr=lr, beta1=betas[0], beta2=betas[1], weight_decay=wd, eps=eps, amsgrad=False, maximize=False)
    return [Case("one step", run(sol.AdamW, 1), [functional(0.0, **common), functional(1.0, **common)], ctors=[],
                 forwards=[]),
            Case("three steps", run(sol.AdamW, 3), [], ctors=[], forwards=[], use=optimizers)]


def probe_generate(sol) -> list[Case]:
    import torch

    class Bigram(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.table = torch.nn.Parameter(_randn(9, 9, seed=100, scale=2))

        def forward(self, idx):
            return self.table[idx]

    model = Bigram()
    idx = torch.tensor([[1, 4], [7, 0]])

    def answer():
        return sol.generate(model, idx, 5, 0.8, 3, torch.Generator().manual_seed(7))

    def seeded(label, *args, **kwargs):
        def make():
            return ((model, idx.clone(), *args), {k: torch.Generator().manual_seed(7) if k == "generator" else v
                                                  for k, v in kwargs.items()})
        return Pattern(label, make)

    return [Case("top-3 at temperature 0.8", answer(),
                 [seeded("(model, idx, 5, 0.8, 3, generator)", 5, 0.8, 3, generator=None),
                  seeded("(model, idx, 5, temperature=0.8, top_k=3, generator=)", 5, temperature=0.8, top_k=3,
                         generator=None)])]


def probe_bpe_tokenizer(sol) -> list[Case]:
    text = "low low lower lowest newest widest<|e|>low new wide"
    specials = ["<|e|>"]
    vocab, merges = sol.train_bpe(text, 268, specials)
    ids = sol.encode("lowest new<|e|>low", vocab, merges)
    return [Case("train_bpe", (vocab, merges), [call("(text, vocab_size, specials)", text, 268, specials),
                                                call("(text, vocab_size)", text, 268)]),
            Case("encode", ids, [call("(text, vocab, merges)", "lowest new<|e|>low", vocab, merges)]),
            Case("decode", sol.decode(ids, vocab), [call("(ids, vocab)", ids, vocab)])]


PROBES: dict[str, Callable[[types.ModuleType], list[Case]]] = {
    name[len("probe_"):]: value for name, value in dict(globals()).items() if name.startswith("probe_")}


# --- candidates ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Candidate:
    name: str        # dotted, as a submission would write it: torch.nn.functional.glu, torch.Tensor.softmax
    value: object    # the object itself (reached around the capability layer)
    refused: str     # "" if a submission may name it, else the capability layer's message
    method: bool = False


def _unsafe(name: str) -> bool:
    return name in UNSAFE or name.rsplit(".", 1)[-1].startswith("set_")


def candidates(capabilities, modules: Iterable[str] | None = None, extra: Iterable[str] = (),
               methods: bool = True) -> list[Candidate]:
    """Every public callable of `modules` (default: all of MODULES) and, with `methods`, every
    Tensor method, each with what `capabilities` says of it; plus `extra` dotted names (a
    challenge's forbidden list)."""
    import torch

    from quizforge.grading.sandbox_inside.capability import MODULES, ModuleView, NotNameable

    found: dict[str, Candidate] = {}
    for module_name in (MODULES if modules is None else modules):
        view = capabilities.view(module_name)
        module = importlib.import_module(module_name)
        for attr in sorted(capabilities.lists[module_name]):
            name = f"{module_name}.{attr}"
            if _unsafe(name):
                continue
            try:
                value, refused = getattr(view, attr), ""
            except NotNameable as exc:
                value, refused = getattr(module, attr, None), str(exc)
            except AttributeError:
                continue
            if callable(value) and not isinstance(value, (ModuleView, types.ModuleType)):
                found[name] = Candidate(name, value, refused)
    probe = torch.zeros(1)
    for attr in dir(torch.Tensor) if methods else ():
        name = f"torch.Tensor.{attr}"
        if attr.startswith("_") or _unsafe(name):
            continue
        value = getattr(torch.Tensor, attr, None)
        if not callable(value) or isinstance(value, type):
            continue
        try:
            capabilities.hook(probe, attr)
            refused = ""
        except NotNameable as exc:
            refused = str(exc)
        except AttributeError:
            continue
        found[name] = Candidate(name, value, refused, method=True)
    for dotted in extra:
        if dotted in found or _unsafe(dotted):
            continue
        value = _resolve(dotted)
        if callable(value) and not isinstance(value, types.ModuleType):
            found[dotted] = Candidate(dotted, value, reach(capabilities, dotted))
    return list(found.values())


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        try:
            for attr in parts[cut:]:
                value = getattr(value, attr)
        except AttributeError:
            return None
        return value
    return None


def reach(capabilities, dotted: str) -> str:
    """'' if a submission can write `dotted` (import its module, then the attributes), else the
    capability layer's refusal."""
    from quizforge.grading.sandbox_inside.capability import MODULES, NotNameable

    parts = dotted.split(".")
    cut = max((i for i in range(1, len(parts) + 1) if ".".join(parts[:i]) in MODULES), default=0)
    if not cut:
        return f"`{parts[0]}` cannot be imported in a submission"
    try:
        value = capabilities.view(".".join(parts[:cut]))
        for attr in parts[cut:]:
            value = capabilities.hook(value, attr)
    except NotNameable as exc:
        return str(exc)
    except AttributeError as exc:
        return str(exc)
    return ""


# --- calling ---------------------------------------------------------------------------------

class _Late(Exception):
    """A call ran past CALL_CAP."""


def _alarm(signum, frame):
    raise _Late()


@contextlib.contextmanager
def _cap(seconds: float):
    """Abandon the enclosed call after `seconds` (main thread only; elsewhere, no cap)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


FAILED = object()  # what _attempt returns for a call that raised or ran late (None is an output)


def _attempt(fn, args, kwargs):
    """fn's output, or FAILED. Grad mode and the default dtype are put back if the call changed them."""
    import torch

    try:
        with _cap(CALL_CAP):
            return fn(*args, **kwargs)
    except (Exception, _Late):  # noqa: BLE001 - a candidate may raise anything
        return FAILED
    finally:
        if not torch.is_grad_enabled():
            torch.set_grad_enabled(True)
        if torch.get_default_dtype() is not torch.float32:
            torch.set_default_dtype(torch.float32)


def _outputs(out, pattern: Pattern, args, kwargs) -> list:
    """A call's output in the answer's layout: `post` applied to it, and to each tensor of a
    tuple it returns (torch.native_batch_norm returns (output, mean, rstd))."""
    import torch

    if out is FAILED:
        return []
    if pattern.post is None:
        return [out]
    found = [_attempt(pattern.post, (out, args, kwargs), {})]
    if isinstance(out, (tuple, list)):
        found += [_attempt(pattern.post, (o, args, kwargs), {}) for o in out if isinstance(o, torch.Tensor)]
    return [o for o in found if o is not FAILED]


def same(out, answer) -> bool:
    """Whether `out` is the answer: a tensor of its shape and values (or a tuple holding one, as
    attention modules return (output, weights)), a number close to it, or an equal container."""
    import torch

    try:
        if isinstance(answer, torch.Tensor):
            if isinstance(out, (tuple, list)):
                return any(same(o, answer) for o in out if isinstance(o, torch.Tensor))
            if not isinstance(out, torch.Tensor) or out.layout != torch.strided or out.is_complex() \
                    or out.shape != answer.shape or out.device.type != "cpu":
                return False
            if answer.dtype == torch.bool:
                return bool(torch.equal(out.detach().double(), answer.double()))
            return bool(torch.allclose(out.detach().double(), answer.detach().double(), RTOL, ATOL, equal_nan=True))
        if isinstance(answer, float):
            if isinstance(out, torch.Tensor) and out.dim() == 0 and not out.is_complex():
                out = out.item()
            return isinstance(out, (int, float)) and not isinstance(out, bool) and \
                math.isclose(out, answer, rel_tol=1e-6, abs_tol=1e-9)
        if isinstance(answer, (tuple, list)) and any(isinstance(a, (torch.Tensor, float)) for a in answer):
            return isinstance(out, (tuple, list)) and len(out) == len(answer) and all(
                same(o, a) for o, a in zip(out, answer))
        return type(out) is type(answer) and bool(out == answer)
    except Exception:  # noqa: BLE001 - a strange output is not the answer
        return False


def _called(fn, pattern: Pattern, answer) -> bool:
    args, kwargs = pattern.make()
    return any(same(o, answer) for o in _outputs(_attempt(fn, args, kwargs), pattern, args, kwargs))


def _hits_function(fn, case: Case, method: bool) -> str | None:
    for pattern in case.calls:
        if method and not pattern.on_tensor:
            continue
        if _called(fn, pattern, case.answer):
            return f"{pattern.label}"
    return None


def _prepared(module, case: Case) -> Iterator[str]:
    """The module as built, then with identity projections, then with the reference's
    parameters loaded into it or a submodule (where names and shapes fit): how, for each."""
    import torch

    yield ""
    try:
        matrices = _identity(module)
    except Exception:  # noqa: BLE001 - parameters that are not plain tensors: as built only
        return
    if matrices:
        yield " with identity weights"
    if case.state is not None:
        for sub in module.modules():
            try:
                with torch.no_grad():
                    sub.load_state_dict(case.state, strict=True)
            except Exception:  # noqa: BLE001 - names or shapes do not fit
                continue
            yield " with the reference's parameters"
            break


# Modules built too big to be a probe's answer (nn.Transformer() is 44M parameters), by class
# and constructor arguments: built once in a process, then skipped.
MAX_PARAMETERS = 1_000_000
_TOO_BIG: set[tuple[type, str]] = set()


def _hits_module(cls, case: Case) -> str | None:
    """Built from each constructor pattern, prepared each way, the module and each of its
    submodules called with each forward pattern. A lazy module takes its shapes from its first
    call: built afresh for each."""
    from torch.nn.modules.lazy import LazyModuleMixin

    forwards = case.calls if case.forwards is None else case.forwards
    for ctor in case.ctors if forwards else ():
        args, kwargs = ctor.make()
        size_key = (cls, repr((args, kwargs)))
        if size_key in _TOO_BIG:
            continue
        if issubclass(cls, LazyModuleMixin):
            for pattern in forwards:
                module = _attempt(cls, *ctor.make())
                if module is not FAILED and _called(module, pattern, case.answer):
                    return f"{ctor.label}{pattern.label}"
            continue
        module = _attempt(cls, args, kwargs)
        if module is FAILED:
            continue
        if sum(p.numel() for p in module.parameters()) > MAX_PARAMETERS:
            _TOO_BIG.add(size_key)
            continue
        # One submodule of each type: a transformer's six layers are copies of one another.
        subs: dict[type, tuple[str, object]] = {}
        for path, sub in module.named_modules():
            subs.setdefault(type(sub), (f".{path}" if path else "", sub))
        for how in _prepared(module, case):
            for path, sub in subs.values():
                for pattern in forwards:
                    if _called(sub, pattern, case.answer):
                        return f"{ctor.label}{path}{pattern.label}{how}"
    return None


def _hits_class_use(cls, case: Case) -> str | None:
    try:
        with _cap(CALL_CAP * 5):
            for label, out in case.use(cls):
                if same(out, case.answer):
                    return f"{label}"
    except (Exception, _Late):  # noqa: BLE001 - a candidate may raise anything
        return None
    return None


def hits(candidate: Candidate, case: Case) -> str | None:
    """How `candidate` is called to compute the case's answer (its arguments, for a module also
    its constructor's and the submodule's path), if it does."""
    import torch

    value = candidate.value
    if isinstance(value, type):
        if case.use is not None:
            return _hits_class_use(value, case)
        if issubclass(value, torch.nn.Module):
            return _hits_module(value, case)
    return _hits_function(value, case, candidate.method)


# --- measuring -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Hit:
    challenge: str
    candidate: str
    case: str
    call: str
    refused: str     # "" while a submission may name the candidate

    @property
    def allowed(self) -> bool:
        return not self.refused


@contextlib.contextmanager
def quiet_sandbox():
    """Calls that cannot disturb the caller: one thread, no warnings or output, a scratch working
    folder, and the global random states put back afterwards."""
    import numpy
    import torch

    from quizforge.threads import single_thread

    torch_state, numpy_state = torch.get_rng_state(), numpy.random.get_state()
    # Bindings that refuse their arguments print them in the message: a tensor's repr costs
    # milliseconds, thousands of times over. The measurement never shows a tensor.
    tensor_repr = torch.Tensor.__repr__
    torch.Tensor.__repr__ = lambda self, *args, **kwargs: f"tensor(shape={tuple(self.shape)})"
    previous = signal.signal(signal.SIGALRM, _alarm) if threading.current_thread() is threading.main_thread() \
        else None
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as scratch, warnings.catch_warnings(), single_thread(), \
            contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        os.chdir(scratch)
        try:
            torch.manual_seed(0)
            yield
        finally:
            torch.Tensor.__repr__ = tensor_repr
            os.chdir(here)
            torch.set_rng_state(torch_state)
            numpy.random.set_state(numpy_state)
            if previous is not None:
                signal.signal(signal.SIGALRM, previous)


def measure(challenge_id: str, modules: Iterable[str] | None = None, methods: bool = True,
            forbidden: Iterable[str] | None = None) -> list[Hit]:
    """Every candidate a submission to `challenge_id` could name (of `modules`, default all of
    MODULES, and the Tensor methods unless `methods` is False), or that the challenge forbids,
    that computes one of its probe's answers in one call. `forbidden`: the list to judge by,
    default the challenge's own."""
    import numpy
    import torch

    from quizforge.challenges import load_challenge
    from quizforge.grading.sandbox_inside.capability import Capabilities

    challenge = load_challenge(challenge_id)
    forbidden = tuple(challenge.forbidden if forbidden is None else forbidden)
    with quiet_sandbox():
        cases = PROBES[challenge_id](_solution(challenge_id))
        capabilities = Capabilities(forbidden, imports=challenge.imports)
        # Where every answer is a tensor, what is not torch's returns an ndarray or a Python value,
        # never the answer, but for numpy's ufuncs, which hand a tensor back: only those are called.
        tensors = all(isinstance(case.answer, torch.Tensor) for case in cases)
        found: list[Hit] = []
        verdicts: dict[int, tuple[str, str] | None] = {}  # id(value) -> (case, call) or None: aliases once
        for candidate in candidates(capabilities, modules, forbidden, methods):
            if tensors and candidate.name.split(".")[0] != "torch" and not isinstance(candidate.value, numpy.ufunc):
                continue
            key = id(candidate.value) * 2 + candidate.method
            if key not in verdicts:
                verdicts[key] = None
                for case in cases:
                    label = hits(candidate, case)
                    if label is not None:
                        verdicts[key] = (case.label, label)
                        break
            if verdicts[key] is not None:
                found.append(Hit(challenge_id, candidate.name, *verdicts[key], candidate.refused))
    return found


def table(challenge_id: str, found: list[Hit], seconds: float) -> str:
    allowed = sum(h.allowed for h in found)
    lines = [f"{challenge_id}: {allowed} allowed, {len(found) - allowed} refused ({seconds:.1f} s)"]
    width = max((len(h.candidate + h.call) for h in found), default=0)
    for h in sorted(found, key=lambda h: (h.refused != "", h.candidate)):
        status = "ALLOWED" if h.allowed else "refused"
        lines.append(f"  {status}  {h.candidate + h.call:<{width}}  {h.case}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    from quizforge.challenges import challenge_ids

    parser = argparse.ArgumentParser(prog="python -m quizforge.maintainer.measure_loopholes",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("challenges", nargs="*", help="challenge ids (default: all)")
    args = parser.parse_args(argv)
    if not (CHECKOUT / "solutions").is_dir():
        print(f"needs a source checkout: {CHECKOUT / 'solutions'} is not there", file=sys.stderr)
        return 2
    unknown = [c for c in args.challenges if c not in PROBES]
    if unknown:
        print(f"no probe for {', '.join(unknown)}; probes: {', '.join(sorted(PROBES))}", file=sys.stderr)
        return 2
    total = 0
    for challenge_id in args.challenges or challenge_ids():
        start = time.perf_counter()
        found = measure(challenge_id)
        total += sum(h.allowed for h in found)
        print(table(challenge_id, found, time.perf_counter() - start), flush=True)
    print(f"{total} allowed one-call loophole{'s' * (total != 1)}")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
