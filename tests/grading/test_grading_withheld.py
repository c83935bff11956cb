"""Every layer refuses on its own (issues #20 and #30): each attack through the real `quiz grade`
path, and again with the static check and the capability compile bypassed so the worker's
guards (the second layer) are tested on their own; and every solution and other correct style
at full marks through the same sandbox."""

from __future__ import annotations

import ast
from dataclasses import replace
from pathlib import Path

import pytest

from grading_support import FIXTURES, grade_unchecked, namespaces_available, zygote  # noqa: F401 - zygote is a fixture
from quizforge.challenges import challenge_ids, load_challenge
from quizforge.grading.grade import grade
from quizforge.grading.intake.forbidden import check_source
from quizforge.grading.sandbox_inside.guards import withheld

REPO = Path(__file__).resolve().parents[2]
ATTACKS = FIXTURES / "allowlist"
# The honest "zeros with the right shapes" floor of each attacked challenge.
FLOOR = {"softmax": 0, "layer_norm": 2, "scaled_dot_product_attention": 3}

# attack file -> (challenge, what the static check names, what the worker's guards name)
CASES = {
    "masked_softmax": ("softmax", "`T._masked_softmax`: names starting with `_` are not allowed",
                       "torch._masked_softmax is not allowed in a submission"),
    "sparse_softmax": ("softmax", "torch.ops.aten._sparse_softmax.default reaches into",
                       "`aten::_sparse_softmax` is not allowed in `softmax`"),
    "sdpa_math": ("scaled_dot_product_attention", "`torch._scaled_dot_product_attention_math`",
                  "torch._scaled_dot_product_attention_math is not allowed in a submission"),
    # torch._refs.softmax decomposes into prims that no kernel list names: only what the
    # submission can name (the capability compile) stops it.
    "refs_softmax": ("softmax", "`pkgutil` cannot be imported", None),
    "pydoc_locate": ("softmax", "`pydoc` cannot be imported", "torch._masked_softmax is not allowed in a submission"),
    # On the list since issue #30 (the measured one-call loopholes); the dispatch layer alone is below.
    "group_norm": ("layer_norm", "F.group_norm (torch.nn.functional.group_norm) is forbidden",
                   "torch.nn.functional.group_norm is forbidden in this challenge"),
    "lifted_for_one_call": ("softmax", "`from torch.utils._python_dispatch import ...`",
                            "lifting the forbidden-API guards is forbidden in this challenge"),
    # The kernel behind torch.softmax: the dispatch guard names the API it implements.
    "tuple_torch_c": ("softmax", "`T._C._VariableFunctions._softmax`", "torch.softmax is forbidden in this challenge"),
}

needs_namespaces = pytest.mark.skipif(not namespaces_available(), reason="the sandbox needs namespaces")


def refusals(result) -> list[str]:
    return [t.message for t in result.tests if t.status != "passed"]


# --- the static check on its own ------------------------------------------------------------

@pytest.mark.parametrize("attack", sorted(CASES))
def test_the_static_check_refuses_each_attack_by_line_and_name(attack):
    challenge_id, static, _ = CASES[attack]
    source = (ATTACKS / f"{attack}.py").read_text()
    found = [v.describe() for v in check_source(ast.parse(source), load_challenge(challenge_id).forbidden)]
    assert found and found[0].startswith("line ") and static in found[0], found
    assert "not allowed in a submission" in found[0] or found[0].endswith("is forbidden in this challenge")


@pytest.mark.parametrize("attack", sorted(CASES))
def test_through_quiz_grade_each_attack_scores_at_most_the_floor(attack, zygote):
    challenge_id = CASES[attack][0]
    if zygote is None:
        pytest.skip("the sandbox needs namespaces")
    result = grade(ATTACKS / f"{attack}.py", challenge_id, zygote=zygote)
    assert result.tests and result.score <= FLOOR[challenge_id], refusals(result)
    assert any("not allowed" in m or "forbidden" in m for m in refusals(result)), refusals(result)


# --- the worker's guards on their own (the static check bypassed) ---------------------------

@pytest.mark.parametrize("attack", sorted(CASES))
def test_the_capability_compile_alone_refuses_each_attack(attack, zygote):
    challenge_id = CASES[attack][0]
    if zygote is None:
        pytest.skip("the sandbox needs namespaces")
    result = grade_unchecked(ATTACKS / f"{attack}.py", load_challenge(challenge_id), zygote=zygote, capability=True)
    messages = refusals(result)
    assert result.tests and result.score <= FLOOR[challenge_id], messages
    assert all("not allowed" in m or "not available" in m or "forbidden" in m for m in messages), messages


@pytest.mark.parametrize("attack", sorted(a for a, case in CASES.items() if case[2] is not None))
def test_the_worker_guards_alone_refuse_each_attack(attack, zygote):
    challenge_id, _, runtime = CASES[attack]
    if zygote is None:
        pytest.skip("the sandbox needs namespaces")
    result = grade_unchecked(ATTACKS / f"{attack}.py", load_challenge(challenge_id), zygote=zygote, capability=False)
    messages = refusals(result)
    assert result.tests and result.score <= FLOOR[challenge_id], messages
    assert any(runtime in m for m in messages), messages


@needs_namespaces
def test_the_dispatch_layer_alone_refuses_a_public_api_off_the_forbidden_list(zygote):
    """group_norm as layer_norm, under layer_norm's list before group_norm was on it: the names let
    it through, the dispatch layer, which withholds every norm kernel there, does not."""
    earlier = replace(load_challenge("layer_norm"), forbidden=(
        "torch.nn.functional.layer_norm", "torch.layer_norm", "torch.native_layer_norm", "torch.nn.LayerNorm"))
    assert check_source(ast.parse((ATTACKS / "group_norm.py").read_text()), earlier.forbidden) == []
    result = grade_unchecked(ATTACKS / "group_norm.py", earlier, zygote=zygote)
    messages = refusals(result)
    assert result.tests and result.score <= FLOOR["layer_norm"], messages
    assert any("`aten::native_group_norm` is not allowed in `layer_norm`" in m for m in messages), messages


@needs_namespaces
def test_a_lifted_guard_is_refused_at_the_call_even_if_swallowed(tmp_path, zygote):
    path = tmp_path / "swallowed.py"
    path.write_text(
        "import torch\n"
        "from torch.utils._python_dispatch import _disable_current_modes\n\n"
        "def softmax(x, dim=-1):\n"
        "    try:\n"
        "        with _disable_current_modes():\n"
        "            pass\n"
        "    except Exception:\n"
        "        pass\n"
        "    e = (x - x.amax(dim, keepdim=True)).exp()\n"
        "    return e / e.sum(dim, keepdim=True)\n")
    result = grade_unchecked(path, load_challenge("softmax"), zygote=zygote, capability=False)
    assert result.score == 0
    assert all(m.endswith("lifting the forbidden-API guards is forbidden in this challenge (line 6)")
               for m in refusals(result)), refusals(result)


# --- honest code keeps full marks -------------------------------------------------------------

# (challenge, variant): None stands for the reference solution, solutions/<id>.py
HONEST = [pytest.param(c, v, id=f"{c}/{v.name if v else c}")
          for c in challenge_ids() for v in (None, *load_challenge(c).variants("ok"))]


@pytest.mark.parametrize(("challenge_id", "variant"), HONEST)
def test_every_solution_and_correct_style_scores_full_marks_in_the_sandbox(challenge_id, variant, zygote, tmp_path):
    if zygote is None:
        pytest.skip("the sandbox needs namespaces")
    path = REPO / "solutions" / f"{challenge_id}.py" if variant is None else variant.write_to(tmp_path)
    result = grade(path, challenge_id, zygote=zygote)
    assert result.score == result.max_score > 0, refusals(result)


@pytest.mark.parametrize(("challenge_id", "source"), [
    pytest.param(c, text, id=f"{c}/{name}") for c in challenge_ids()
    for name, text in [*((v.name, v.text) for v in load_challenge(c).variants("bug")),
                       ("starter", (load_challenge(c).folder / "starter.py").read_text())]])
def test_bugs_and_starters_pass_the_static_check(challenge_id, source):
    """A classic bug must lose marks on its values, not on a rule."""
    challenge = load_challenge(challenge_id)
    assert check_source(ast.parse(source), challenge.forbidden, challenge.imports) == []


# --- the lists themselves ---------------------------------------------------------------------

@pytest.mark.parametrize("challenge_id", challenge_ids())
def test_each_challenge_withholds_only_answer_kernels(challenge_id):
    """The dispatch layer refuses what computes the answer, never the ops honest code reaches."""
    kept_back = withheld(load_challenge(challenge_id).forbidden)
    honest = {"aten::add", "aten::mul", "aten::exp", "aten::sum", "aten::bmm", "aten::view", "aten::as_strided",
              "aten::slice", "aten::select", "aten::copy_", "aten::index_put_", "aten::view_as_complex",
              "aten::empty_like", "aten::sigmoid", "aten::amax", "aten::gather"}
    assert not kept_back & honest, kept_back & honest
    assert all(op.startswith("aten::") and "." not in op for op in kept_back), "overload packets, not overloads"


def test_what_each_challenge_withholds():
    softmax = withheld(load_challenge("softmax").forbidden)
    assert {"aten::_softmax", "aten::_masked_softmax", "aten::_sparse_softmax", "aten::_safe_softmax",
            "aten::_log_softmax", "aten::_scaled_dot_product_flash_attention_for_cpu"} <= softmax
    layer_norm = withheld(load_challenge("layer_norm").forbidden)
    assert {"aten::native_layer_norm", "aten::native_group_norm", "aten::native_batch_norm",
            "aten::_fused_rms_norm"} <= layer_norm
    sdpa = withheld(load_challenge("scaled_dot_product_attention").forbidden)
    assert "aten::_softmax" not in sdpa  # the statement allows torch.softmax there
    assert {"aten::_scaled_dot_product_attention_math", "aten::_scaled_dot_product_flash_attention_for_cpu",
            "aten::_native_multi_head_attention"} <= sdpa
    assert "aten::native_layer_norm" not in withheld(load_challenge("transformer_block").forbidden)
    assert {"aten::native_layer_norm", "aten::_fused_rms_norm", "aten::rms_norm"} <= \
        withheld(load_challenge("rms_norm").forbidden)
    swiglu = withheld(load_challenge("swiglu").forbidden)
    assert {"aten::silu", "aten::silu_", "aten::silu_backward"} <= swiglu
    assert not {"aten::sigmoid", "aten::gelu", "aten::logsumexp"} & swiglu
    cross_entropy = withheld(load_challenge("cross_entropy").forbidden)
    assert {"aten::nll_loss_forward", "aten::nll_loss_backward", "aten::logsumexp", "aten::_log_softmax",
            "aten::_softmax", "aten::cross_entropy_loss"} <= cross_entropy
    assert not {"aten::gather", "aten::amax", "aten::log", "aten::silu"} & cross_entropy
