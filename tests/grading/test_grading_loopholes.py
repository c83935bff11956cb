"""Rules loopholes closed by the same lists (issue #30, item 2): no function, module or Tensor
method a submission can name computes a challenge's answer in one call.

The measurement is quizforge/maintainer/measure_loopholes.py. The full run (every module of the
capability compile's MODULES, the torch namespace and the Tensor methods included) takes about
40 s of CPU, so here every challenge is measured on the namespaces where such answers live:
torch.nn (its modules and what they hold), torch.nn.functional, torch.special, torch.linalg and
torch.fft, plus each challenge's own forbidden names. `python -m quizforge.maintainer.measure_loopholes`
runs the whole of it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from quizforge.challenges import challenge_ids, load_challenge
from quizforge.grading.intake.forbidden import check_source
from quizforge.grading.sandbox_inside import capability
from quizforge.grading.sandbox_inside.capability import Capabilities, NotNameable
from quizforge.maintainer.measure_loopholes import PROBES, measure, table

REPO = Path(__file__).resolve().parents[2]
NAMESPACES = ["torch.nn", "torch.nn.functional", "torch.special", "torch.linalg", "torch.fft"]


def test_every_challenge_has_a_probe():
    assert sorted(PROBES) == challenge_ids()


@pytest.mark.parametrize("challenge_id", challenge_ids())
def test_no_allowed_one_call_loophole(challenge_id):
    found = measure(challenge_id, NAMESPACES, methods=False)
    assert [h.candidate for h in found if h.allowed] == [], table(challenge_id, found, 0)


def test_what_the_measurement_finds_where_the_lists_were_short():
    """The lists before this change: the measurement names each loophole and how it is called."""
    swiglu = measure("swiglu", NAMESPACES, methods=False,
                     forbidden=["torch.nn.functional.silu", "torch.nn.SiLU"])
    assert {h.candidate: (h.allowed, h.call) for h in swiglu} == {
        "torch.nn.functional.glu": (True, "([a·b, a])"),
        "torch.nn.GLU": (True, "()([a·b, a])"),
        "torch.nn.functional.silu": (False, "(a)"),
        "torch.nn.SiLU": (False, "()(a)"),
    }
    softmax = {h.candidate: h for h in measure("softmax", ["torch.nn", "torch.nn.functional"], methods=False,
                                                   forbidden=["torch.softmax", "torch.nn.Softmax"])}
    assert softmax["torch.nn.functional.softmin"].call == "(-x, dim)"
    assert softmax["torch.nn.Softmax2d"].case == "softmax over dim 1 of a 4-D input"
    assert softmax["torch.nn.functional.scaled_dot_product_attention"].call == "(x, I, I, scale=1.0)"
    assert softmax["torch.nn.TransformerEncoderLayer"].call.startswith("(E, 1, dropout=0.0, batch_first=True)"
                                                                       ".self_attn")
    # refused: the forbidden names and, by the leaf "softmax", F.softmax and nn.Softmax
    assert {name for name, h in softmax.items() if not h.allowed} == {
        "torch.softmax", "torch.nn.functional.softmax", "torch.nn.Softmax"}


def test_swiglu_refuses_glu_in_every_view():
    capabilities = Capabilities(load_challenge("swiglu").forbidden)
    for module, name in [("torch.nn.functional", "glu"), ("torch.nn", "GLU"), ("torch.nn.functional", "silu")]:
        view = capabilities.view(module)
        assert name in capabilities.lists[module]  # on the public list, and still refused
        with pytest.raises(NotNameable, match="is forbidden in this challenge"):
            getattr(view, name)
    assert capabilities.view("torch").sigmoid is not None  # what the README allows stays


def test_a_swiglu_submission_that_reaches_glu_is_refused_when_it_runs(tmp_path, monkeypatch):
    path = tmp_path / "submission.py"
    path.write_text("import torch\nimport torch.nn.functional as F\n\n"
                    "def gate(a, b):\n    return F.glu(torch.cat([a * b, a], -1))\n")
    refusals: list[str] = []
    monkeypatch.setitem(sys.modules, capability.SUBMISSION_MODULE, None)  # load() puts it there; put back after
    module = capability.load(str(path), Capabilities(load_challenge("swiglu").forbidden, refusals.append))
    import torch

    with pytest.raises(NotNameable):
        module.gate(torch.ones(2), torch.ones(2))
    assert refusals == ["torch.nn.functional.glu is forbidden in this challenge"]


def test_the_static_check_names_glu_in_swiglu():
    source = "import torch.nn as nn\nimport torch.nn.functional as F\ny = F.glu(x)\nm = nn.GLU()\n"
    found = check_source(ast.parse(source), load_challenge("swiglu").forbidden)
    assert [(v.api, v.lineno) for v in found] == [("torch.nn.functional.glu", 3), ("torch.nn.GLU", 4)]


@pytest.mark.parametrize("challenge_id", challenge_ids())
def test_every_solution_and_correct_style_passes_the_static_check_with_the_new_lists(challenge_id):
    challenge = load_challenge(challenge_id)
    sources = {f"{challenge_id}.py": (REPO / "solutions" / f"{challenge_id}.py").read_text(encoding="utf-8"),
               **{v.source.name: v.text for v in challenge.variants("ok")}}
    for name, source in sources.items():
        assert check_source(ast.parse(source), challenge.forbidden, challenge.imports) == [], name
