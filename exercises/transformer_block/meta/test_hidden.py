"""Hidden suite for `TransformerBlock(d_model, n_heads, d_ff, dropout=0.0)`, pre-norm:

    x = x + attn(ln1(x), mask);  x = x + ffn(ln2(x))

with ln1, ln2 nn.LayerNorm, attn holding W_q, W_k, W_v, W_o (nn.Linear with biases, as in
the multi_head_attention challenge) and ffn = nn.Sequential(Linear, GELU, Linear). The
submission's parameters are loaded with seeded values and compared in float64 with the
reference below; post-norm, a missing residual and the usual attention slips are named.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from quizforge.challenges import checks
from quizforge.challenges.reference import causal_mask

NAME = "TransformerBlock"
ATOL, RTOL = 2e-5, 2e-4
PROJECTIONS = ("W_q", "W_k", "W_v", "W_o")


def expected_shapes(d_model, d_ff):
    shapes = {}
    for ln in ("ln1", "ln2"):
        shapes[f"{ln}.weight"] = [d_model]
        shapes[f"{ln}.bias"] = [d_model]
    for p in PROJECTIONS:
        shapes[f"attn.{p}.weight"] = [d_model, d_model]
        shapes[f"attn.{p}.bias"] = [d_model]
    shapes.update({"ffn.0.weight": [d_ff, d_model], "ffn.0.bias": [d_ff],
                   "ffn.2.weight": [d_model, d_ff], "ffn.2.bias": [d_model]})
    return shapes


def random_state(seed, d_model, d_ff):
    gen = checks.seeded(seed)
    state = {}
    for name, shape in expected_shapes(d_model, d_ff).items():
        if name.startswith("ln") and name.endswith("weight"):
            state[name] = 1 + checks.randn(gen, *shape, scale=0.1)
        elif name.endswith("bias"):
            state[name] = checks.randn(gen, *shape, scale=0.1)
        else:
            state[name] = checks.randn(gen, *shape, scale=shape[1] ** -0.5)
    return state


def block(state, x, n_heads, mask=None, *, norm="pre", residual=("attn", "ffn"), scale="d_head", act="gelu"):
    s = {k: v.double() for k, v in state.items()}
    x = x.double()
    B, T, d = x.shape
    dh = d // n_heads
    lin = lambda name, t: t @ s[f"{name}.weight"].T + s[f"{name}.bias"]  # noqa: E731
    ln = lambda name, t: F.layer_norm(t, (d,), s[f"{name}.weight"], s[f"{name}.bias"], 1e-5)  # noqa: E731

    def attn(t):
        split = lambda u: u.view(B, T, n_heads, dh).transpose(1, 2)  # noqa: E731
        q, k, v = split(lin("attn.W_q", t)), split(lin("attn.W_k", t)), split(lin("attn.W_v", t))
        scores = q @ k.transpose(-2, -1) / math.sqrt(dh if scale == "d_head" else d)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        return lin("attn.W_o", (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(B, T, d))

    def ffn(t):
        hidden = lin("ffn.0", t)
        return lin("ffn.2", F.gelu(hidden) if act == "gelu" else F.relu(hidden))

    if norm == "pre":
        h = attn(ln("ln1", x)) + (x if "attn" in residual else 0)
        return ffn(ln("ln2", h)) + (h if "ffn" in residual else 0)
    h = ln("ln1", x + attn(x))
    return ln("ln2", h + ffn(h))


def known_mistakes(state, x, n_heads, mask):
    return [
        ("this is a post-norm block (LayerNorm after each residual sum): pre-norm normalises the input of each "
         "sub-layer, x = x + attn(ln1(x)), then x = x + ffn(ln2(x))", block(state, x, n_heads, mask, norm="post")),
        ("the attention's residual connection is missing: x = x + attn(ln1(x))",
         block(state, x, n_heads, mask, residual=("ffn",))),
        ("the feed-forward's residual connection is missing: x = x + ffn(ln2(x))",
         block(state, x, n_heads, mask, residual=("attn",))),
        ("the scores are divided by √d_model: each head divides by √d_head",
         block(state, x, n_heads, mask, scale="d_model")),
        ("the feed-forward uses ReLU: it is Linear, GELU, Linear", block(state, x, n_heads, mask, act="relu")),
    ]


def check(submission, d_model, n_heads, d_ff, *, seed, mask=None, batch=2, n=5, hint=""):
    state = random_state(seed, d_model, d_ff)
    module = checks.construct(submission, NAME, d_model, n_heads, d_ff)
    checks.load_parameters(module, NAME, state)
    x = checks.randn(checks.seeded(seed + 1), batch, n, d_model)
    kwargs = {} if mask is None else {"mask": mask}
    out = checks.first_output(checks.forward(module, NAME, x, **kwargs))
    out = checks.expect_tensor(out, "your output", shape=x.shape, dtype=x.dtype)
    checks.assert_values(out, block(state, x, n_heads, mask), what="your output", atol=ATOL, rtol=RTOL, hint=hint,
                         mistakes=known_mistakes(state, x, n_heads, mask))
    return module, state, x


def test_parameters(submission):
    module = checks.construct(submission, NAME, 8, 2, 32)
    got = checks.attempt(f"{NAME}(8, 2, 32).named_parameters()", module.parameter_shapes)
    got = {k: list(v) for k, v in got.items()}
    expected = expected_shapes(8, 32)
    missing, extra = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
    wrong = sorted(k for k in set(got) & set(expected) if got[k] != expected[k])
    assert not (missing or extra or wrong), (
        f"{NAME}(8, 2, 32) parameters: missing {missing or 'none'}, unexpected {extra or 'none'}, "
        f"wrong shape {wrong or 'none'} (see the README for the names)")


def test_submodules(submission):
    module = checks.construct(submission, NAME, 8, 2, 32)
    types = checks.attempt(f"{NAME}(8, 2, 32).named_modules()", module.submodule_types)
    expected = {"ln1": "torch.nn.modules.normalization.LayerNorm", "ln2": "torch.nn.modules.normalization.LayerNorm",
                "ffn": "torch.nn.modules.container.Sequential", "ffn.0": "torch.nn.modules.linear.Linear",
                "ffn.1": "torch.nn.modules.activation.GELU", "ffn.2": "torch.nn.modules.linear.Linear",
                **{f"attn.{p}": "torch.nn.modules.linear.Linear" for p in PROJECTIONS}}
    wrong = {k: types.get(k) for k, v in expected.items() if types.get(k) != v}
    assert not wrong, f"these submodules are not what the README asks for: {wrong}"


def test_forward(submission):
    check(submission, 8, 2, 32, seed=10)


HEADS = {"h1": (8, 1, 16), "h4": (16, 4, 64), "h3": (12, 3, 24)}


@pytest.mark.parametrize("d_model, n_heads, d_ff", HEADS.values(), ids=HEADS.keys())
def test_head_counts(submission, d_model, n_heads, d_ff):
    check(submission, d_model, n_heads, d_ff, seed=20 + n_heads)


def test_causal_mask(submission):
    check(submission, 8, 2, 32, seed=30, mask=causal_mask(5), hint="True in the mask means the query may attend")


def test_padding_mask(submission):
    lengths = torch.tensor([5, 3])
    mask = (torch.arange(5)[None, :] < lengths[:, None])[:, None, None, :]
    check(submission, 8, 2, 32, seed=40, mask=mask, hint="the mask broadcasts to (B, n_heads, T, T)")


def test_future_tokens_change_nothing_under_a_causal_mask(submission):
    module, state, x = check(submission, 8, 2, 32, seed=50, mask=causal_mask(5))
    changed = x.clone()
    changed[:, 3:] += 1.0
    out = checks.expect_tensor(checks.first_output(checks.forward(module, NAME, x, mask=causal_mask(5))),
                               "your output", shape=x.shape, dtype=x.dtype)
    again = checks.expect_tensor(checks.first_output(checks.forward(module, NAME, changed, mask=causal_mask(5))),
                                 "your output", shape=x.shape, dtype=x.dtype)
    checks.assert_values(again[:, :3], out[:, :3], what="the outputs before the changed tokens", atol=ATOL,
                         rtol=RTOL, hint="under a causal mask a token may not see the tokens after it")


def test_gradients(submission):
    module, state, x = check(submission, 8, 2, 16, seed=60)
    grad_output = checks.randn(checks.seeded(61), *x.shape)
    leaf = x.double().requires_grad_(True)
    params = {k: v.double().requires_grad_(True) for k, v in state.items()}
    block(params, leaf, 2).backward(grad_output.double())
    result = checks.attempt(f"backpropagating through {NAME}.forward", module.backward, [x], grad_output)
    checks.assert_gradient(result["inputs"][0], leaf.grad, wrt="x", dtype=torch.float32, atol=1e-4, rtol=1e-3)
    for name, param in params.items():
        checks.assert_gradient(result["params"].get(name), param.grad, wrt=name, dtype=torch.float32,
                               atol=1e-4, rtol=1e-3)
