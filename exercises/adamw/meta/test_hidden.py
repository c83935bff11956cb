"""Hidden suite for `AdamW(params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01)`.

The worker builds a small regression MLP (quizforge/challenges/models.py) from seeded
weights and data and trains it with the submission's optimizer (Submission.train); here, in
the judge, the same loop runs with `torch.optim.AdamW`, which the submission cannot reach, and
the parameters are compared. On a mismatch the judge replays the classic mistakes with its own
optimizer below (coupled decay, no bias correction, ...) and names the one that matches.
"""

from __future__ import annotations

import functools
import math

import pytest
import torch

from quizforge.challenges import checks, models

NAME = "AdamW"
DEFAULTS = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}


def mlp(stream, *, d_in=4, hidden=8, d_out=2, batches=4, batch=8, frozen=False, biases=True):
    gen = checks.seeded(stream)
    state = {"fc1.weight": checks.randn(gen, hidden, d_in, scale=d_in ** -0.5),
             "fc1.bias": checks.randn(gen, hidden, scale=0.1),
             "fc2.weight": checks.randn(gen, d_out, hidden, scale=hidden ** -0.5),
             "fc2.bias": checks.randn(gen, d_out, scale=0.1)}
    if not biases:  # two parameters: 1,000 steps stay well inside the per-call time limit
        del state["fc1.bias"], state["fc2.bias"]
    if frozen:
        state["frozen"] = checks.randn(gen, 3)
    x = checks.randn(gen, batches, batch, d_in)
    y = torch.sin(x @ checks.randn(gen, d_in, d_out)) + checks.randn(gen, batches, batch, d_out, scale=0.1)
    return {"kind": "mlp", "state": state, "x": x, "y": y}


class MistakenAdamW(torch.optim.Optimizer):
    """AdamW with one thing changed, to recognise a wrong submission (the judge's side only)."""

    def __init__(self, params, mistake, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        self.mistake = mistake

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            options = self.defaults if self.mistake == "defaults" else group
            lr, (b1, b2), eps, wd = options["lr"], options["betas"], options["eps"], options["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    if self.mistake == "decay_without_grad":
                        p.mul_(1 - lr * wd)
                    continue
                state = self.state[p]
                if not state:
                    state.update(t=0, m=torch.zeros_like(p), v=torch.zeros_like(p))
                state["t"] += 1
                t, m, v, g = state["t"], state["m"], state["v"], p.grad
                if self.mistake == "coupled":
                    g = g + wd * p
                elif self.mistake == "decay_without_lr":
                    p.mul_(1 - wd)
                elif self.mistake != "decay_after":
                    p.mul_(1 - lr * wd)
                m.mul_(b1).add_(g, alpha=1 - b1)
                v.mul_(b2).addcmul_(g, g, value=1 - b2)
                if self.mistake == "no_bias_correction":
                    m_hat, v_hat = m, v
                else:
                    m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
                denominator = (v_hat + eps).sqrt() if self.mistake == "eps_inside" else v_hat.sqrt() + eps
                update = lr * m_hat / denominator
                if self.mistake == "decay_after":
                    p.sub_(update)
                    p.mul_(1 - lr * wd)
                else:
                    p.sub_(update)
        return loss


MISTAKES = {
    "coupled": "the weight decay is added to the gradient (Adam with L2, coupled): AdamW decays the parameter "
               "directly, p ← p − lr·λ·p, apart from m and v",
    "no_bias_correction": "there is no bias correction: divide m by (1 − β₁ᵗ) and v by (1 − β₂ᵗ)",
    "decay_without_lr": "the weight decay is not multiplied by lr: p ← p − lr·λ·p",
    "eps_inside": "eps is added inside the square root: the denominator is √v̂ + eps",
    "decay_after": "the weight decay is applied after the Adam update, to the updated parameter: decay first, "
                   "p ← p − lr·λ·p, then the Adam step",
    "defaults": "every param group is updated with the constructor's hyperparameters: read lr, betas, eps "
                "and weight_decay from each group in self.param_groups",
    "decay_without_grad": "a parameter without a gradient was decayed: skip parameters whose .grad is None "
                          "entirely",
}


REPLAYED_STEPS = 100
ROUNDING_MARGIN = 4   # a long run may differ from torch's by this many times torch's fused-vs-plain gap
LONG_RUN_HINT = "a small difference in each step adds up over a long run; the shorter tests say more"


def flat(params, names):
    return torch.cat([params[n].double().flatten() for n in names])


def reference(spec, steps, optimizer_class, *, groups=None, closure=False, **options):
    return models.train(models.build(spec), optimizer_class, steps, groups, options, closure)


def train(submission, spec, steps, *, groups=None, closure=False, atol=1e-5, rtol=1e-4, **options):
    """Train with the submission's AdamW and with torch's; compare every parameter, naming a mistake."""
    shown = (f"training for {steps} steps with {NAME}(params{', param groups' if groups else ''}"
             f"{''.join(f', {k}=…' for k in options)}){' using step(closure)' if closure else ''}")
    got = checks.attempt(shown, submission.train, NAME, spec, steps, groups=groups, closure=closure, **options)
    assert isinstance(got, dict) and isinstance(got.get("params"), dict)
    expected = reference(spec, steps, functools.partial(torch.optim.AdamW, foreach=False), groups=groups,
                         closure=closure, **options)
    names = sorted(expected["params"])
    for name in names:
        checks.expect_tensor(got["params"].get(name), f"the parameter {name} after training",
                             shape=expected["params"][name].shape, dtype=torch.float32)
    # Replayed only if the parameters disagree (a generator, read by assert_values on a failure), and
    # only for short runs: replaying 1,000 steps per mistake would cost seconds, and the short tests
    # already name the mistake.
    mistakes = ((description, flat(reference(spec, steps, functools.partial(MistakenAdamW, mistake=mistake),
                                             groups=groups, closure=closure, **options)["params"], names))
                for mistake, description in MISTAKES.items()) if steps <= REPLAYED_STEPS else ()
    if steps > REPLAYED_STEPS:
        # Some inputs make a long run chaotic (a gradient near zero flips an update's sign), so
        # that rounding alone moves the result: allow what separates torch's own two AdamWs.
        fused = reference(spec, steps, functools.partial(torch.optim.AdamW, fused=True), groups=groups,
                          closure=closure, **options)["params"]
        atol = max(atol, ROUNDING_MARGIN * float((flat(fused, names) - flat(expected["params"], names)).abs().max()))
    checks.assert_values(flat(got["params"], names), flat(expected["params"], names),
                         what=f"the parameters after {steps} step{'s' * (steps != 1)}", atol=atol, rtol=rtol,
                         mistakes=mistakes, hint="" if steps <= REPLAYED_STEPS else LONG_RUN_HINT)
    return got, expected


def hyperparameters(stream):
    gen = checks.seeded(stream)
    uniform = lambda low, high: low + (high - low) * float(torch.rand((), generator=gen))  # noqa: E731
    return {"lr": uniform(3e-3, 2e-2), "weight_decay": uniform(0.05, 0.3)}


def test_defaults(submission):
    optimizer = checks.construct(submission, NAME, [torch.zeros(2)])
    groups = checks.attempt(f"{NAME}([tensor]).param_groups", optimizer.attribute, "param_groups",
                            hint="AdamW must be a torch.optim.Optimizer: call super().__init__(params, defaults)")
    assert isinstance(groups, list) and len(groups) == 1 and isinstance(groups[0], dict), (
        "param_groups should hold one group for a list of tensors")
    wrong = {k: groups[0].get(k) for k, v in DEFAULTS.items()
             if not (isinstance(groups[0].get(k), (int, float, tuple, list)) and
                     torch.allclose(torch.tensor(groups[0].get(k), dtype=torch.float64),
                                    torch.tensor(v, dtype=torch.float64)))}
    assert not wrong, f"{NAME}'s defaults differ from the signature's {DEFAULTS}: {wrong}"


def test_one_step(submission):
    train(submission, mlp(1), 1, **hyperparameters(2))


def test_ten_steps(submission):
    train(submission, mlp(3), 10, **hyperparameters(4))


def test_thousand_steps_against_pytorch(submission):
    train(submission, mlp(5, biases=False), 1000, atol=1e-4, rtol=1e-3, **hyperparameters(6))


def test_hundred_steps_with_the_defaults(submission):
    train(submission, mlp(7), 100)


def test_betas_and_eps(submission):
    gen = checks.seeded(8)
    betas = (0.5 + 0.4 * float(torch.rand((), generator=gen)), 0.9 + 0.09 * float(torch.rand((), generator=gen)))
    train(submission, mlp(9), 30, betas=betas, eps=0.01 + 0.05 * float(torch.rand((), generator=gen)),
          **hyperparameters(10))


def test_param_groups(submission):
    groups = [{"names": ["fc1.weight", "fc2.weight"], "weight_decay": 0.2},
              {"names": ["fc1.bias", "fc2.bias"], "weight_decay": 0.0, "lr": 0.03}]
    train(submission, mlp(11), 30, groups=groups, lr=0.01)


def test_a_parameter_without_gradient_is_left_alone(submission):
    got, expected = train(submission, mlp(12, frozen=True), 20, **hyperparameters(13))
    checks.assert_values(got["params"]["frozen"], expected["params"]["frozen"], atol=0, rtol=0,
                         what="a parameter without a gradient", hint=MISTAKES["decay_without_grad"])


def test_step_with_a_closure(submission):
    got, expected = train(submission, mlp(14), 5, closure=True, **hyperparameters(15))
    returned = got.get("returns")
    assert isinstance(returned, list) and all(isinstance(r, torch.Tensor) and r.dim() == 0 for r in returned), (
        "step(closure) should return the loss the closure computed (a 0-d tensor)")
    checks.assert_values(torch.stack(returned), torch.stack(expected["returns"]).detach(), atol=1e-6, rtol=1e-5,
                         what="the losses step(closure) returned")


@pytest.mark.parametrize("size", ["wide", "deep_output"])
def test_other_shapes(submission, size):
    spec = mlp(16, hidden=32, d_in=6) if size == "wide" else mlp(17, hidden=4, d_out=5)
    train(submission, spec, 40, **hyperparameters(18))
