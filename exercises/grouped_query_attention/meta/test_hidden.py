"""Hidden suite for `GroupedQueryAttention(d_model, n_heads, n_kv_heads, bias=False)`.

W_q maps d_model -> d_model; W_k and W_v map d_model -> n_kv_heads·d_head; W_o maps
d_model -> d_model. Query head j attends with key/value head j // (n_heads // n_kv_heads).
The submission's projections are loaded with seeded weights and compared in float64
with the reference below; the classic mistakes are recognised by their output.
"""

from __future__ import annotations

import math

import pytest
import torch

from quizforge.challenges import checks
from quizforge.challenges.reference import causal_mask

NAME = "GroupedQueryAttention"
ATOL, RTOL = 1e-5, 1e-4
PROJECTIONS = ("W_q", "W_k", "W_v", "W_o")
LINEAR = "torch.nn.modules.linear.Linear"


def shapes(d_model, n_heads, n_kv_heads):
    d_kv = n_kv_heads * (d_model // n_heads)
    return {"W_q": (d_model, d_model), "W_k": (d_kv, d_model), "W_v": (d_kv, d_model), "W_o": (d_model, d_model)}


def random_state(seed, d_model, n_heads, n_kv_heads, bias=False):
    gen = checks.seeded(seed)
    state = {}
    for name, (rows, cols) in shapes(d_model, n_heads, n_kv_heads).items():
        state[f"{name}.weight"] = checks.randn(gen, rows, cols, scale=cols ** -0.5)
        if bias:
            state[f"{name}.bias"] = checks.randn(gen, rows, scale=0.1)
    return state


def gqa(state, x, n_heads, n_kv_heads, mask=None, *, mapping="grouped", scale="d_head", output=True):
    s = {k: v.double() for k, v in state.items()}
    x = x.double()
    B, T, d_model = x.shape
    d_head = d_model // n_heads

    def proj(name, inp):
        out = inp @ s[f"{name}.weight"].T
        return out + s[f"{name}.bias"] if f"{name}.bias" in s else out

    q = proj("W_q", x).view(B, T, n_heads, d_head).transpose(1, 2)
    k = proj("W_k", x).view(B, T, n_kv_heads, d_head).transpose(1, 2)
    v = proj("W_v", x).view(B, T, n_kv_heads, d_head).transpose(1, 2)
    group = n_heads // n_kv_heads
    if mapping == "grouped":
        k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
    else:  # head j uses kv head j % n_kv_heads
        k, v = k.repeat(1, group, 1, 1), v.repeat(1, group, 1, 1)
    divisor = {"d_head": math.sqrt(d_head), "d_model": math.sqrt(d_model), "none": 1.0}[scale]
    scores = q @ k.transpose(-2, -1) / divisor
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    heads = torch.softmax(scores, dim=-1) @ v
    merged = heads.transpose(1, 2).reshape(B, T, d_model)
    return proj("W_o", merged) if output else merged


def known_mistakes(state, x, n_heads, n_kv_heads, mask):
    return [
        ("query head j uses key/value head j % n_kv_heads (as torch.repeat gives): it must use head "
         "j // (n_heads // n_kv_heads), as repeat_interleave gives", gqa(state, x, n_heads, n_kv_heads, mask,
                                                                          mapping="modulo")),
        ("the scores are divided by √d_model: divide by √d_head, with d_head = d_model / n_heads",
         gqa(state, x, n_heads, n_kv_heads, mask, scale="d_model")),
        ("the scores are not scaled: divide by √d_head", gqa(state, x, n_heads, n_kv_heads, mask, scale="none")),
        ("the output projection is missing: the merged heads must go through W_o",
         gqa(state, x, n_heads, n_kv_heads, mask, output=False)),
    ]


def check(submission, d_model, n_heads, n_kv_heads, *, seed, mask=None, batch=2, n=5, bias=False, hint=""):
    state = random_state(seed, d_model, n_heads, n_kv_heads, bias)
    module = checks.construct(submission, NAME, d_model, n_heads, n_kv_heads, bias=bias)
    checks.load_parameters(module, NAME, state)
    x = checks.randn(checks.seeded(seed + 1), batch, n, d_model)
    kwargs = {} if mask is None else {"mask": mask}
    out = checks.first_output(checks.forward(module, NAME, x, **kwargs))
    out = checks.expect_tensor(out, "your output", shape=x.shape, dtype=x.dtype)
    checks.assert_values(out, gqa(state, x, n_heads, n_kv_heads, mask), what="your output", atol=ATOL, rtol=RTOL,
                         hint=hint, mistakes=known_mistakes(state, x, n_heads, n_kv_heads, mask))
    return module, state, x


@pytest.mark.parametrize("n_kv_heads", [1, 2, 4], ids=["mqa", "gqa", "mha"])
def test_parameters(submission, n_kv_heads):
    module = checks.construct(submission, NAME, 16, 4, n_kv_heads)
    got = checks.attempt(f"{NAME}(16, 4, {n_kv_heads}).named_parameters()", module.parameter_shapes)
    expected = {f"{name}.weight": list(shape) for name, shape in shapes(16, 4, n_kv_heads).items()}
    assert {k: list(v) for k, v in got.items()} == expected, (
        f"{NAME}(16, 4, {n_kv_heads}) should have exactly the weights {expected} (bias=False by default); "
        f"it has {got}")
    types = checks.attempt(f"{NAME}(16, 4, {n_kv_heads}).named_modules()", module.submodule_types)
    assert all(types.get(name) == LINEAR for name in PROJECTIONS), f"{', '.join(PROJECTIONS)} should be nn.Linear"


def test_grouped_heads(submission):
    check(submission, 16, 4, 2, seed=10, hint="query head j uses key/value head j // (n_heads // n_kv_heads)")


def test_head_mapping(submission):
    check(submission, 24, 6, 2, seed=20, hint="heads 0-2 share key/value head 0, heads 3-5 share head 1")


def test_multi_query(submission):
    check(submission, 16, 4, 1, seed=30, hint="with one key/value head, every query head shares it")


def test_as_many_kv_heads_as_heads(submission):
    check(submission, 16, 4, 4, seed=40, hint="with n_kv_heads = n_heads this is multi-head attention")


def test_causal_mask(submission):
    check(submission, 16, 4, 2, seed=50, mask=causal_mask(5), hint="True in the mask means the query may attend")


def test_padding_mask(submission):
    lengths = torch.tensor([5, 2])
    mask = (torch.arange(5)[None, :] < lengths[:, None])[:, None, None, :]
    check(submission, 16, 4, 2, seed=60, mask=mask, hint="True in the mask means the query may attend")


def test_with_bias(submission):
    check(submission, 16, 4, 2, seed=70, bias=True, hint="bias=True gives every projection a bias")


def test_gradients(submission):
    module, state, x = check(submission, 16, 4, 2, seed=80)
    grad_output = checks.randn(checks.seeded(81), *x.shape)
    leaf = x.double().requires_grad_(True)
    params = {k: v.double().requires_grad_(True) for k, v in state.items()}
    gqa(params, leaf, 4, 2).backward(grad_output.double())
    result = checks.attempt(f"backpropagating through {NAME}.forward", module.backward, [x], grad_output)
    checks.assert_gradient(result["inputs"][0], leaf.grad, wrt="x", dtype=torch.float32, atol=1e-5, rtol=1e-4)
    for name, param in params.items():
        checks.assert_gradient(result["params"].get(name), param.grad, wrt=name, dtype=torch.float32,
                               atol=1e-5, rtol=1e-4)
