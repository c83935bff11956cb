"""Hidden suite for `SwiGLU(d_model, d_ff)`: y = w2(silu(w1 x) ⊙ w3 x), every Linear without bias.

Seeded weights are loaded into the submission's w1, w2 and w3, and its output is compared
with `swiglu` below in float64. That reference has switches, each reproducing one classic
mistake (the gate on the wrong projection, another activation, no gate, a SiLU that
overflows), so that a failure can name it.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from quizforge.challenges import checks

NAME = "SwiGLU"
ATOL, RTOL = 1e-5, 1e-4
FORMULA = "y = w2(silu(w1 x) * w3 x), silu(z) = z * sigmoid(z)"


def expected_shapes(d_model, d_ff):
    return {"w1.weight": [d_ff, d_model], "w2.weight": [d_model, d_ff], "w3.weight": [d_ff, d_model]}


def random_state(gen, d_model, d_ff, gate_scale=1.0):
    """Weights of std 1/√fan_in, w1's times gate_scale (to push the gate's input far out)."""
    return {name: checks.randn(gen, *shape, scale=(gate_scale if name == "w1.weight" else 1.0) * shape[1] ** -0.5)
            for name, shape in expected_shapes(d_model, d_ff).items()}


def swiglu(state, x, *, gate="w1", act="silu", where="gate", gated=True):
    """The reference in float64. gate: the projection that goes through the activation ("w1", or
    "w3" by mistake); act: "silu", "sigmoid", "gelu", "relu" or "overflowing" (z·e^z / (1 + e^z)
    in float32, which is NaN once e^z is inf); where: "gate" (the activation on the gate) or
    "product" (on the gated product); gated: False leaves out the w3 x factor."""
    other = "w3" if gate == "w1" else "w1"
    value = x.double() @ state[f"{other}.weight"].double().T
    if act == "overflowing":
        z = x.float() @ state[f"{gate}.weight"].float().T
        hidden = (z * z.exp() / (1 + z.exp())).double() * value
    else:
        activate = {"silu": lambda z: z * torch.sigmoid(z), "sigmoid": torch.sigmoid, "gelu": F.gelu,
                    "relu": F.relu}[act]
        z = x.double() @ state[f"{gate}.weight"].double().T
        if where == "product":
            hidden = activate(z * value)
        else:
            hidden = activate(z) * value if gated else activate(z)
    return hidden @ state["w2.weight"].double().T


def known_mistakes(state, x) -> list[checks.Mistake]:
    variants = [
        ("the SiLU is applied to w3 x instead of w1 x: w1 is the gate, silu(w1 x), and w3 x is what it "
         "multiplies", dict(gate="w3")),
        ("the gate is sigmoid(w1 x), as in GLU: SwiGLU's gate is silu(z) = z * sigmoid(z)", dict(act="sigmoid")),
        ("the gate uses GELU: SwiGLU's gate is silu(z) = z * sigmoid(z)", dict(act="gelu")),
        ("the gate uses ReLU: SwiGLU's gate is silu(z) = z * sigmoid(z)", dict(act="relu")),
        ("the SiLU is applied to the product: it is silu(w1 x) * w3 x, not silu(w1 x * w3 x)",
         dict(where="product")),
        ("there is no gate: w3 x is never multiplied in; y = w2(silu(w1 x) * w3 x)", dict(gated=False)),
        ("the SiLU overflows: e^z is inf in float32 once z > 88, and inf / inf is NaN; write it as "
         "z * torch.sigmoid(z), which saturates", dict(act="overflowing")),
    ]
    return [(text, swiglu(state, x, **switches)) for text, switches in variants]


def build(submission, d_model, d_ff, state):
    module = checks.construct(submission, NAME, d_model, d_ff)
    checks.load_parameters(module, NAME, state)
    return module


def check(submission, d_model, d_ff, x, *, stream, gate_scale=1.0, atol=ATOL, rtol=RTOL, hint=FORMULA):
    state = random_state(checks.seeded(stream), d_model, d_ff, gate_scale)
    module = build(submission, d_model, d_ff, state)
    out = checks.forward(module, NAME, x)
    out = checks.expect_tensor(out, "your output", shape=x.shape, dtype=x.dtype)
    checks.assert_values(out, swiglu(state, x), what="your output", atol=atol, rtol=rtol,
                         mistakes=known_mistakes(state, x), hint=hint)
    return module, state


def test_parameters(submission):
    module = checks.construct(submission, NAME, 4, 6)
    got = checks.attempt(f"{NAME}(4, 6).named_parameters()", module.parameter_shapes)
    got = {name: list(shape) for name, shape in got.items()}
    expected = expected_shapes(4, 6)
    missing, extra = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
    wrong = sorted(name for name in set(got) & set(expected) if got[name] != expected[name])
    biases = " (the three layers take bias=False)" if any(name.endswith(".bias") for name in extra) else ""
    assert not (missing or extra or wrong), (
        f"{NAME}(4, 6) parameters: missing {missing or 'none'}, unexpected {extra or 'none'}{biases}, "
        f"wrong shape {wrong or 'none'}: expected w1.weight [6, 4], w2.weight [4, 6], w3.weight [6, 4]")


def test_submodules(submission):
    module = checks.construct(submission, NAME, 4, 6)
    types = checks.attempt(f"{NAME}(4, 6).named_modules()", module.submodule_types)
    wrong = {name: types.get(name) for name in ("w1", "w2", "w3")
             if types.get(name) != "torch.nn.modules.linear.Linear"}
    assert not wrong, f"w1, w2 and w3 must be nn.Linear submodules; these are not: {wrong}"


def test_forward(submission):
    x = checks.randn(checks.seeded(1), 2, 5, 8)
    check(submission, 8, 16, x, stream=2)


SIZES = {"wide": (4, 10), "narrow": (12, 6), "square": (6, 6)}


@pytest.mark.parametrize("d_model, d_ff", SIZES.values(), ids=SIZES.keys())
def test_sizes(submission, d_model, d_ff):
    x = checks.randn(checks.seeded(10 + d_ff), 3, d_model, scale=1.5)
    check(submission, d_model, d_ff, x, stream=20 + d_ff, hint="w1, w3: d_model -> d_ff; w2: d_ff -> d_model")


SHAPES = {"vector": (6,), "rows": (4, 6), "batched": (2, 3, 6), "4d": (2, 2, 3, 6)}


@pytest.mark.parametrize("shape", SHAPES.values(), ids=SHAPES.keys())
def test_input_ranks(submission, shape):
    x = checks.randn(checks.seeded(30 + len(shape)), *shape, scale=2.0)
    check(submission, 6, 9, x, stream=40 + len(shape), hint="the layer acts on the last dim, whatever comes before")


def test_large_pre_activations(submission):
    # w1 scaled so that w1 x has a spread of about 100: e^z overflows float32 past 88.
    x = checks.randn(checks.seeded(50), 4, 8)
    check(submission, 8, 12, x, stream=51, gate_scale=100.0, atol=1e-3, rtol=1e-4,
          hint="silu must stay finite for large |z|: silu(z) -> z as z -> +inf and -> 0 as z -> -inf")


def test_gradients(submission):
    x = checks.randn(checks.seeded(60), 2, 3, 6)
    module, state = check(submission, 6, 10, x, stream=61)  # the forward pass alone must be right first
    grad_output = checks.randn(checks.seeded(62), 2, 3, 6)
    leaf = x.double().requires_grad_(True)
    params = {name: tensor.double().requires_grad_(True) for name, tensor in state.items()}
    swiglu(params, leaf).backward(grad_output.double())
    result = checks.attempt(f"backpropagating through {NAME}.forward(float32[2, 3, 6])", module.backward,
                            [x], grad_output,
                            hint="the forward pass works, so make sure autograd can follow it (torch operations only)")
    checks.assert_gradient(result["inputs"][0], leaf.grad, wrt="x", dtype=torch.float32, atol=1e-4, rtol=1e-3)
    for name, param in params.items():
        checks.assert_gradient(result["params"].get(name), param.grad, wrt=name, dtype=torch.float32,
                               atol=1e-4, rtol=1e-3)
