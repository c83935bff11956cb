"""The worker requests behind the training challenges (`call_with_parameters` for
gradient_clipping, `train` for adamw) and the loopback submission's per-call time limit
(what fails a too-slow bpe_tokenizer outside the sandbox too)."""

from __future__ import annotations

import time

import pytest
import torch

from grading_support import write_submission
from quizforge.challenges import load_challenge, models
from quizforge.grading.judge.loopback_submission import LoopbackSubmission
from quizforge.grading.judge.request_submission import SubmissionError


@pytest.fixture
def submission(tmp_path):
    path = write_submission(tmp_path, """
        import torch

        def halve_grads(parameters, offset=0.0):
            seen = 0
            for p in parameters:
                if p.grad is not None:
                    p.grad.mul_(0.5)
                    seen += 1
            return seen + offset

        class SGD(torch.optim.Optimizer):
            def __init__(self, params, lr=0.1):
                super().__init__(params, {"lr": lr})

            @torch.no_grad()
            def step(self, closure=None):
                loss = None
                if closure is not None:
                    with torch.enable_grad():
                        loss = closure()
                for group in self.param_groups:
                    for p in group["params"]:
                        if p.grad is not None:
                            p.sub_(group["lr"] * p.grad)
                return loss

        def spin():
            while True:
                pass
    """)
    loaded = LoopbackSubmission(path)
    yield loaded
    loaded.close()


def regression(frozen=False):
    gen = torch.Generator().manual_seed(0)
    state = {"fc1.weight": torch.randn(3, 2, generator=gen), "fc2.weight": torch.randn(1, 3, generator=gen)}
    if frozen:
        state["frozen"] = torch.ones(2)
    return {"kind": "mlp", "state": state, "x": torch.randn(2, 4, 2, generator=gen),
            "y": torch.randn(2, 4, 1, generator=gen)}


def test_a_function_gets_parameters_with_their_grads(submission):
    grads = [torch.tensor([2.0, 4.0]), None, torch.tensor([[6.0]])]
    result = submission.call_with_parameters("halve_grads", [torch.zeros(2), torch.zeros(3), torch.zeros(1, 1)],
                                             grads, offset=0.5)
    assert result["value"] == 2.5
    assert torch.equal(result["grads"][0], torch.tensor([1.0, 2.0])) and result["grads"][1] is None
    assert torch.equal(result["grads"][2], torch.tensor([[3.0]]))


@pytest.mark.parametrize("closure", [False, True])
def test_training_in_the_worker_matches_the_same_loop_with_torch_sgd(submission, closure):
    got = submission.train("SGD", regression(frozen=True), 7, closure=closure, lr=0.05)
    expected = models.train(models.build(regression(frozen=True)), torch.optim.SGD, 7, None, {"lr": 0.05}, closure)
    assert set(got["params"]) == {"fc1.weight", "fc2.weight", "frozen"}
    for name, value in expected["params"].items():
        assert torch.allclose(got["params"][name], value, atol=1e-6), name
    assert torch.equal(got["params"]["frozen"], torch.ones(2))  # the loss never uses it: no grad, no step
    assert not torch.equal(got["params"]["fc1.weight"], regression()["state"]["fc1.weight"])
    assert len(got["returns"]) == (7 if closure else 0)
    if closure:
        assert torch.allclose(torch.stack(got["returns"]), torch.stack(expected["returns"]).detach())


def test_param_groups_reach_the_optimizer_by_parameter_name(submission):
    groups = [{"names": ["fc1.weight"], "lr": 0.0}, {"names": ["fc2.weight"]}]
    got = submission.train("SGD", regression(), 3, groups=groups, lr=0.1)
    assert torch.equal(got["params"]["fc1.weight"], regression()["state"]["fc1.weight"])
    assert not torch.equal(got["params"]["fc2.weight"], regression()["state"]["fc2.weight"])


def test_an_unknown_model_description_is_refused(submission):
    with pytest.raises(SubmissionError, match="unknown model description"):
        submission.train("SGD", {"kind": "pickle"}, 1)


def test_a_request_past_the_call_limit_times_out_and_the_next_one_runs(submission):
    submission.limit_calls(0.3)
    started = time.monotonic()
    with pytest.raises(SubmissionError) as info:
        submission.call("spin")
    assert info.value.kind == "timeout" and "0.3 s limit" in str(info.value)
    assert time.monotonic() - started < 5
    assert submission.call_with_parameters("halve_grads", [torch.zeros(1)], [torch.ones(1)])["value"] == 1


def test_the_readme_s_bpe_time_limit_is_the_challenge_s():
    # README: "fast enough for 200 KB in 8 s".
    assert load_challenge("bpe_tokenizer").call_timeout == 8.0
