"""Hidden suite for `MultiHeadAttention(d_model, n_heads, bias=True)`.

The submission's W_q, W_k, W_v, W_o are loaded with seeded random weights and
compared with the reference module (`quizforge.reference.mha`, through
quizforge.challenges.reference) in float64.
forward may return the output alone or a tuple whose first element is the output.
"""

from __future__ import annotations

import pytest
import torch

from quizforge.challenges import checks, mistakes
from quizforge.challenges.reference import MultiHeadAttention as Reference, causal_mask

NAME = "MultiHeadAttention"
ATOL, RTOL = 1e-5, 1e-4  # float32 outputs of size ~1
PROJECTIONS = ("W_q", "W_k", "W_v", "W_o")
LINEAR = "torch.nn.modules.linear.Linear"
MASK_HINT = "True in the mask means the query may attend to the key; fill masked scores with -inf before the softmax"


def random_state(gen, d_model, bias=True):
    """Weights of scale 1/√d_model, so every projection stays of size ~1."""
    state = {}
    for name in PROJECTIONS:
        state[f"{name}.weight"] = checks.randn(gen, d_model, d_model, scale=d_model ** -0.5)
        if bias:
            state[f"{name}.bias"] = checks.randn(gen, d_model, scale=0.1)
    return state


def reference(state, n_heads, bias=True):
    d_model = state["W_q.weight"].shape[0]
    module = Reference(d_model, n_heads, bias=bias)
    module.load_state_dict(state)
    return module.double().eval()


def known_mistakes(state, n_heads, query, key, value, mask=None) -> list[checks.Mistake]:
    variants = [
        ("the heads are split by viewing (B, n, d_model) directly as (B, n_heads, n, d_head): "
         "view it as (B, n, n_heads, d_head), then transpose(1, 2)", dict(split_transpose=False)),
        ("the heads are merged by reshaping (B, n_heads, n, d_head) directly to (B, n, d_model): "
         "transpose(1, 2) back to (B, n, n_heads, d_head) before the reshape", dict(merge_transpose=False)),
        ("the heads are split and merged without the transposes: split to (B, n, n_heads, d_head) then "
         "transpose(1, 2), and transpose back before merging", dict(split_transpose=False, merge_transpose=False)),
        ("the output projection is missing: the merged heads must go through W_o", dict(output_projection=False)),
        ("the scores are divided by √d_model: each head divides by √d_head, with d_head = d_model / n_heads",
         dict(scale="d_model")),
        ("the scores are not scaled: each head divides by √d_head", dict(scale="none")),
        ("key and value are ignored: W_k and W_v project the query, so this is self-attention; "
         "project key with W_k and value with W_v", dict(key_from="query", value_from="query")),
        ("the values come from key: W_v must project the value input", dict(value_from="key")),
        ("the keys come from value: W_k must project the key input", dict(key_from="value")),
        ("key and value are swapped: W_k projects key and W_v projects value",
         dict(key_from="value", value_from="key")),
    ]
    if mask is not None:
        variants += [
            ("the mask is ignored: set the masked scores to -inf before the softmax", dict(mask_mode="ignored")),
            ("the mask is inverted: True means the query may attend to the key", dict(mask_mode="inverted")),
            ("the mask is applied after the softmax: fill masked scores with -inf before it",
             dict(mask_mode="after_softmax")),
        ]
    state64 = {name: t.double() for name, t in state.items()}
    args = (state64, query.double(), key.double(), value.double(), n_heads, mask)
    found = []
    for text, switches in variants:
        try:
            found.append((text, mistakes.multi_head_attention(*args, **switches)))
        except RuntimeError:
            pass  # this mistake cannot even run on these shapes (e.g. keys from a shorter query)
    return found


def build(submission, d_model, n_heads, state, bias=True):
    module = checks.construct(submission, NAME, d_model, n_heads, bias=bias)
    checks.load_parameters(module, NAME, state)
    return module


def run(module, query, key, value, mask=None):
    kwargs = {} if mask is None else {"mask": mask}
    out = checks.first_output(checks.forward(module, NAME, query, key, value, **kwargs))
    return checks.expect_tensor(out, "your output", shape=query.shape, dtype=query.dtype)


def check(submission, d_model, n_heads, query, key, value, mask=None, *, seed, bias=True, hint=""):
    """Build the submission's module with seeded weights and compare its output; return (module, state)."""
    state = random_state(checks.seeded(seed), d_model, bias)
    module = build(submission, d_model, n_heads, state, bias)
    out = run(module, query, key, value, mask)
    expected, _ = reference(state, n_heads, bias)(query.double(), key.double(), value.double(), mask)
    checks.assert_values(out, expected, what="your output", atol=ATOL, rtol=RTOL, hint=hint,
                         mistakes=known_mistakes(state, n_heads, query, key, value, mask))
    return module, state


def cross_inputs(seed, batch, n_q, n_k, d_model):
    gen = checks.seeded(seed)
    return (checks.randn(gen, batch, n_q, d_model), checks.randn(gen, batch, n_k, d_model),
            checks.randn(gen, batch, n_k, d_model))


@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_parameters(submission, bias):
    module = checks.construct(submission, NAME, 8, 2, bias=bias)
    shapes = checks.attempt(f"{NAME}(8, 2, bias={bias}).named_parameters()", module.parameter_shapes)
    expected = {f"{name}.{kind}": ([8, 8] if kind == "weight" else [8])
                for name in PROJECTIONS for kind in (("weight", "bias") if bias else ("weight",))}
    missing = sorted(set(expected) - set(shapes))
    extra = sorted(set(shapes) - set(expected))
    wrong = sorted(name for name in set(expected) & set(shapes) if list(shapes[name]) != expected[name])
    assert not (missing or extra or wrong), (
        f"{NAME}(8, 2, bias={bias}) should have the parameters of four nn.Linear(8, 8, bias={bias}) "
        f"named {', '.join(PROJECTIONS)}; missing: {missing or 'none'}, unexpected: {extra or 'none'}, "
        f"wrong shape: {wrong or 'none'}")
    types = checks.attempt(f"{NAME}(8, 2).named_modules()", module.submodule_types)
    not_linear = [name for name in PROJECTIONS if types.get(name) != LINEAR]
    assert not not_linear, f"{', '.join(not_linear)} should be nn.Linear submodules"


def test_self_attention(submission):
    x = checks.randn(checks.seeded(10), 2, 4, 8)
    check(submission, 8, 2, x, x, x, seed=11)


def test_cross_attention(submission):
    # query, key and value all differ, and n_q ≠ n_k.
    check(submission, 8, 2, *cross_inputs(20, 2, 3, 5, 8), seed=21,
          hint="project query with W_q, key with W_k and value with W_v")


HEADS = {"d8-h1": (8, 1), "d8-h4": (8, 4), "d12-h3": (12, 3), "d8-h8": (8, 8)}


@pytest.mark.parametrize("d_model, n_heads", HEADS.values(), ids=HEADS.keys())
def test_heads(submission, d_model, n_heads):
    check(submission, d_model, n_heads, *cross_inputs(30 + n_heads, 2, 3, 4, d_model), seed=31,
          hint="each head attends on its own d_head = d_model / n_heads slice of the features")


def test_causal_mask(submission):
    x = checks.randn(checks.seeded(40), 2, 5, 8)
    check(submission, 8, 2, x, x, x, causal_mask(5), seed=41, hint=MASK_HINT)


def test_padding_mask(submission):
    # (B, 1, 1, n_k): padded keys of each sequence, broadcast over heads and queries.
    lengths = torch.tensor([5, 3])
    mask = (torch.arange(5)[None, :] < lengths[:, None])[:, None, None, :]
    check(submission, 8, 2, *cross_inputs(50, 2, 4, 5, 8), mask, seed=51, hint=MASK_HINT)


def test_per_head_mask(submission):
    mask = checks.random_mask(checks.seeded(60), 2, 2, 3, 5)
    check(submission, 8, 2, *cross_inputs(61, 2, 3, 5, 8), mask, seed=62, hint=MASK_HINT)


def test_without_bias(submission):
    check(submission, 8, 2, *cross_inputs(70, 2, 3, 4, 8), seed=71, bias=False,
          hint="with bias=False, no nn.Linear has a bias")


def test_gradients(submission):
    query, key, value = cross_inputs(80, 2, 3, 4, 8)
    mask = checks.random_mask(checks.seeded(81), 2, 1, 3, 4)
    grad_output = checks.randn(checks.seeded(82), 2, 3, 8)
    # The forward pass alone must be right first.
    module, state = check(submission, 8, 2, query, key, value, mask, seed=83, hint=MASK_HINT)
    ref = reference(state, 2)
    leaves = [t.double().requires_grad_(True) for t in (query, key, value)]
    ref(*leaves, mask)[0].backward(grad_output.double())
    action = f"backpropagating through {checks.describe_call(NAME + '.forward', query, key, value, mask=mask)}"
    result = checks.attempt(action, module.backward, [query, key, value], grad_output, {"mask": mask},
                            hint="the forward pass works, so make sure autograd can follow it (torch operations only)")
    for name, actual, leaf in zip(("query", "key", "value"), result["inputs"], leaves):
        checks.assert_gradient(actual, leaf.grad, wrt=name, dtype=torch.float32, atol=1e-5, rtol=1e-4)
    ref_params = dict(ref.named_parameters())
    for name in state:
        checks.assert_gradient(result["params"].get(name), ref_params[name].grad, wrt=name, dtype=torch.float32,
                               atol=1e-5, rtol=1e-4)
