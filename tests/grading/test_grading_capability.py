"""What a submission can name (issue #30): each way round the rules that torch's own attributes
opened, through the real `quiz grade` path and again with the judge's static check bypassed (the
capability compile in the worker on its own); and honest idioms at full marks."""

from __future__ import annotations

import ast
import inspect
import re
import textwrap
from pathlib import Path

import pytest

from grading_support import grade_unchecked, namespaces_available, write_submission, zygote  # noqa: F401 - zygote is a fixture
from quizforge.challenges import challenge_ids, load_challenge
from quizforge.grading.grade import grade
from quizforge.grading.judge.limits import Limits
from quizforge.grading.sandbox_inside import capability
from quizforge.grading.sandbox_inside.guards import withheld
from quizforge.maintainer import measure_ops

REPO = Path(__file__).resolve().parents[2]
# The honest "zeros with the right shapes" floor of each attacked challenge.
FLOOR = {"softmax": 0, "cosine_schedule": 3, "gradient_clipping": 2, "adamw": 1, "layer_norm": 2}

SOFTMAX = "import torch\n\ndef softmax(x, dim=-1):\n{body}\n"
# attack -> (challenge, source): each would score full marks if the route it takes were open.
ATTACKS = {
    # the standard library, reached as an attribute of an allowed module
    "torch.sys": ("softmax", SOFTMAX.format(body='    return torch.sys.modules["torch.nn.functional"].softmax(x, dim)')),
    "torch.os": ("softmax", SOFTMAX.format(body='    return torch.os.sys.modules["torch"].softmax(x, dim)')),
    "torch.builtins": ("softmax", SOFTMAX.format(body='    return torch.builtins.getattr(torch, "soft" + "max")(x, dim)')),
    "torch.importlib": ("softmax", SOFTMAX.format(
        body='    return torch.importlib.import_module("torch.nn.functional").softmax(x, dim)')),
    "torch.inspect": ("softmax", SOFTMAX.format(body='    return dict(torch.inspect.getmembers(torch))["softmax"](x, dim)')),
    "torch.ctypes": ("softmax", SOFTMAX.format(body='    torch.ctypes.pythonapi\n    return x')),
    "torch.functools": ("softmax", SOFTMAX.format(
        body='    f = torch.functools.reduce(torch.builtins.getattr, ["nn", "functional", "softmax"], torch)\n'
             '    return f(x, dim)')),
    "torch.threading": ("softmax", SOFTMAX.format(body='    return torch.threading.sys.modules["torch"].softmax(x, dim)')),
    "torch.functional.operator": ("softmax", SOFTMAX.format(
        body='    return torch.functional.operator.attrgetter("nn.functional.softmax")(torch)(x, dim)')),
    # the same, held in a variable, a container, a default argument or a return value
    "variable": ("softmax", SOFTMAX.format(body='    t = torch\n    s = t.sys\n    return s.modules["torch"].softmax(x, dim)')),
    "container": ("softmax", SOFTMAX.format(body='    mods = [torch, {"m": torch}]\n'
                                            '    return mods[1]["m"].sys.modules["torch"].softmax(x, dim)')),
    "default_argument": ("softmax", "import torch\n\ndef softmax(x, dim=-1, t=torch):\n"
                                    "    return t.inspect.getmodule(t).softmax(x, dim)\n"),
    "return_value": ("softmax", "import torch\n\ndef handle():\n    return torch\n\ndef softmax(x, dim=-1):\n"
                                "    return handle().importlib.import_module('torch').softmax(x, dim)\n"),
    # an attribute named by a string built at run time
    "computed_getattr": ("softmax", SOFTMAX.format(body='    return getattr(torch, "soft" + "max")(x, dim)')),
    "format_field": ("softmax", SOFTMAX.format(body='    ("{0." + "sys}").format(torch)\n    return x')),
    # a frame reached from a generator, and the guard's closure through introspection
    "generator_frame": ("softmax", "import torch\n\ndef gen():\n    yield 1\n\ndef softmax(x, dim=-1):\n"
                                   "    g = gen()\n    frame = g.gi_frame.f_back\n"
                                   "    return frame.f_globals['torch'].softmax(x, dim)\n"),
    "guard_closure": ("softmax", SOFTMAX.format(
        body='    cells = torch.inspect.getclosurevars(torch.softmax).nonlocals\n    return x')),
    # a guard class patched through a helper that sets attributes from data
    "update_wrapper": ("softmax", "import functools\nimport torch\n\ndef softmax(x, dim=-1):\n"
                                  "    functools.update_wrapper(softmax, torch.nn.functional.relu, assigned=('softmax',))\n"
                                  "    return x\n"),
    "three_argument_type": ("softmax", SOFTMAX.format(
        body='    T = type("T", (torch.Tensor,), {})\n    return x')),
    # the defining submodule of a name the challenge forbids, and a module reloaded
    "lr_scheduler_module": ("cosine_schedule", "import math\nimport torch\n\n"
                                               "def cosine_lr(step, lr_max, lr_min, warmup, total):\n"
                                               "    sched = torch.optim.lr_scheduler.CosineAnnealingLR\n"
                                               "    return lr_min\n"),
    "clip_grad_module": ("gradient_clipping", "import torch\n\ndef clip_grad_norm(parameters, max_norm, eps=1e-6):\n"
                                              "    return float(torch.nn.utils.clip_grad.clip_grad_norm_(parameters, "
                                              "max_norm))\n"),
    "adam_reloaded": ("adamw", "import torch\n\nadam = torch.importlib.reload(torch.sys.modules['torch.optim.adam'])\n"
                               "AdamW = adam.Adam\n"),
    "optim_adamw": ("adamw", "import torch\n\nAdamW = torch.optim.AdamW\n"),
    "tensor_method": ("softmax", SOFTMAX.format(body='    return x.softmax(dim)')),
    "super_method": ("softmax", SOFTMAX.format(body='    return super(torch.Tensor, x).softmax(dim)')),
    "mro_class": ("softmax", SOFTMAX.format(body='    return type(x).mro()[1].softmax(x, dim)')),
    "special_spelling": ("softmax", SOFTMAX.format(body='    return torch.special.softmax(x, dim)')),
}

needs_namespaces = pytest.mark.skipif(not namespaces_available(), reason="the sandbox needs namespaces")


def refusals(result) -> list[str]:
    return [t.message for t in result.tests if t.status != "passed"]


REFUSED_WORDS = ("not allowed", "not available", "forbidden", "cannot be imported", "cannot use")


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_through_quiz_grade_each_route_scores_at_most_the_floor(attack, zygote, tmp_path):
    challenge_id, source = ATTACKS[attack]
    if zygote is None:
        pytest.skip("the sandbox needs namespaces")
    result = grade(write_submission(tmp_path, source), challenge_id, zygote=zygote)
    messages = refusals(result)
    assert result.tests and result.score <= FLOOR[challenge_id], messages
    assert any(word in m for m in messages for word in REFUSED_WORDS), messages


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_capability_compile_alone_refuses_each_route(attack, zygote, tmp_path):
    """The judge's static check bypassed: what holds is what the worker's compile lets it name."""
    challenge_id, source = ATTACKS[attack]
    if zygote is None:
        pytest.skip("the sandbox needs namespaces")
    result = grade_unchecked(write_submission(tmp_path, source), load_challenge(challenge_id), zygote=zygote,
                             capability=True)
    messages = refusals(result)
    assert result.tests and result.score <= FLOOR[challenge_id], messages
    assert any(word in m for m in messages for word in REFUSED_WORDS), messages


def test_a_refusal_the_submission_swallows_still_counts(zygote, tmp_path):
    if zygote is None:
        pytest.skip("the sandbox needs namespaces")
    source = SOFTMAX.format(body="    try:\n        torch.sys\n    except Exception:\n        pass\n"
                                 "    e = (x - x.amax(dim, keepdim=True)).exp()\n    return e / e.sum(dim, keepdim=True)")
    result = grade_unchecked(write_submission(tmp_path, source), load_challenge("softmax"), zygote=zygote, capability=True)
    assert result.score == 0
    assert all("`torch.sys` is not available in a submission" in m for m in refusals(result)), refusals(result)


# --- the static check is bounded ------------------------------------------------------------

def test_a_deep_attribute_chain_is_one_line_not_a_traceback(tmp_path):
    path = write_submission(tmp_path, "import torch\n\ndef softmax(x, dim=-1):\n    return x" + ".T" * 1500 + "\n")
    result = grade(path, "softmax")
    assert result.score == 0
    assert {t.message for t in result.tests} == {f"the submission is nested too deeply: more than "
                                                 f"{capability.MAX_DEPTH} levels (line 4)"}
    assert result.sandbox == {}  # refused before any worker started


def test_a_megabyte_of_deep_chains_is_refused_within_seconds(tmp_path):
    import time

    line = "x = a" + ".b" * 900 + "\n"
    path = tmp_path / "big.py"
    path.write_text(line * ((1 << 20) // len(line)))
    started = time.monotonic()
    result = grade(path, "softmax")
    assert time.monotonic() - started < 30
    assert result.score == 0 and "nested too deeply" in result.tests[0].message


def test_too_many_nodes_is_refused_by_count(tmp_path):
    path = write_submission(tmp_path, "x = [" + "1," * (capability.MAX_NODES + 10) + "]\n")
    result = grade(path, "softmax")
    assert {t.message for t in result.tests} == {
        f"the submission is too large: more than {capability.MAX_NODES:,} syntax nodes"}


def test_the_static_check_and_the_compile_agree_on_imports():
    from quizforge.grading.intake import forbidden

    for module in capability.MODULES:
        assert capability.allowed_import(module, capability.allowed_modules(capability.OPT_IN))
        assert capability.allowed_import(module) == (module not in capability.OPT_IN)
    for refused in ("sys", "os", "importlib", "inspect", "ctypes", "operator", "torch.utils", "torch.jit",
                    "numpy.lib", "torch.optim.lr_scheduler", "quizforge"):
        assert not capability.allowed_import(refused)
        import ast

        assert forbidden.check_source(ast.parse(f"import {refused}\n"), []), refused


def test_a_module_a_challenge_opts_into_is_refused_everywhere_else():
    """`re` and `heapq` are bpe_tokenizer's, in its challenge.toml: a softmax may import neither,
    by the static check or by the compile; the challenge's own files pass both."""
    from quizforge.grading.intake import forbidden

    assert set(load_challenge("bpe_tokenizer").imports) == {"re", "heapq"}
    for challenge_id in challenge_ids():
        assert set(load_challenge(challenge_id).imports) <= capability.OPT_IN, challenge_id
    source = "import re\nfrom heapq import heappush\n"
    refused = [v.describe() for v in forbidden.check_source(ast.parse(source), [])]
    assert [line.split(":")[0] for line in refused] == ["line 1", "line 2"]
    assert "`re` cannot be imported" in refused[0] and ", re," not in refused[0]
    assert forbidden.check_source(ast.parse(source), [], ["re", "heapq"]) == []
    with pytest.raises(capability.Refused, match="`re` cannot be imported"):
        capability.rewrite(source, "submission.py")
    capability.rewrite(source, "submission.py", capability.allowed_modules(["re", "heapq"]))


def test_the_worker_refuses_a_module_its_challenge_did_not_opt_into(tmp_path, zygote):
    """The compile inside the worker on its own (no static check): `heapq` in a softmax."""
    if zygote is None:
        pytest.skip("the sandbox needs namespaces")
    path = write_submission(tmp_path, """
        import heapq

        def softmax(x, dim=-1):
            e = (x - x.amax(dim=dim, keepdim=True)).exp()
            return e / e.sum(dim=dim, keepdim=True)
    """)
    result = grade_unchecked(path, load_challenge("softmax"), zygote=zygote, capability=True)
    assert result.score == 0 and "`heapq` cannot be imported" in result.tests[0].message


def test_the_readme_lists_the_modules_the_compile_allows():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"[Aa] submission may import only these modules: (.*?)\.\n", readme, re.S)
    assert found, "the README names the importable modules"
    listed = [m.strip(" `\n") for m in found.group(1).replace("\n", " ").split(",")]
    assert listed == capability.import_roots()
    narrowed = re.search(r"`functools` hands out only (.*?);", readme, re.S)
    assert narrowed and sorted(m.strip(" `\n") for m in narrowed.group(1).replace(" and ", ", ").split(",")) == \
        sorted(capability.MODULES["functools"].only)


# --- honest code ---------------------------------------------------------------------------

ROPE_STRIDED = """
import torch

def apply_rope(x, positions, base=10000.0):
    d = x.shape[-1]
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.float32) / d))
    angles = positions.to(torch.float32)[:, None] * inv[None, :]
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x_even, x_odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x_even * cos - x_odd * sin
    out[..., 1::2] = x_even * sin + x_odd * cos
    return out
"""


@needs_namespaces
def test_rope_filled_through_strided_slices_scores_full_marks(zygote, tmp_path):
    result = grade(write_submission(tmp_path, ROPE_STRIDED), "rope", zygote=zygote)
    assert result.score == result.max_score > 0, refusals(result)


def _strided_idioms(torch):
    """Writes through slices, views and indices, complex views and einsum, forward and backward."""
    x = torch.randn(2, 3, 8, requires_grad=True)
    out = torch.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * 2 - x[..., 1::2]
    out[..., 1::2] = x[..., 1::2].clone()
    pairs = torch.view_as_complex(x.float().reshape(2, 3, 4, 2).contiguous())
    turned = torch.view_as_real(pairs * torch.polar(torch.ones(4), torch.arange(4.0))).flatten(-2)
    y = x.new_zeros(2, 3, 8)
    y[:, 0] = x[:, 0]
    y[:, 1:, :4] += x[:, 1:, 4:]
    y[torch.tensor([0, 1]), 2] = x[:, 2]
    scores = torch.einsum("bqd,bkd->bqk", x, x) / 8 ** 0.5
    masked = scores.masked_fill(torch.ones(3, 3, dtype=torch.bool).triu(1), float("-inf"))
    (out.sum() + turned.sum() + y.sum() + masked.exp().nan_to_num().sum() + x.unfold(-1, 2, 2).sum()).backward()


def _idiom_submission(families) -> str:
    body = "".join(textwrap.dedent(inspect.getsource(f)) + "\n\n" for f in families)
    calls = "".join(f"    {f.__name__}(torch)\n" for f in families)
    return f"import torch\n\n{body}def run():\n{calls}    return {len(families)}\n"


def _names_forbidden(function, forbidden) -> bool:
    """Whether an idiom family spells one of the challenge's forbidden APIs (so is not honest there)."""
    words = {w.replace("_", "").lower() for w in re.findall(r"[A-Za-z_]+", inspect.getsource(function))}
    return any(api.rsplit(".", 1)[-1].replace("_", "").lower() in words for api in forbidden)


@needs_namespaces
@pytest.mark.parametrize("challenge_id", challenge_ids())
def test_every_honest_idiom_runs_forward_and_backward_in_every_challenge(challenge_id, zygote):
    """measure_ops's vocabulary and the strided idioms, through the capability compile and the
    guards of each challenge: a family is left out only where it spells a forbidden API."""
    from quizforge.grading.judge.rules import GuardRules
    from quizforge.grading.sandbox_host.isolated_submission import IsolatedSubmission

    challenge = load_challenge(challenge_id)
    kept_back = withheld(challenge.forbidden)
    families = [f for name, f in measure_ops.IDIOMS.items()
                if not (measure_ops.vocabulary([name]) & kept_back) and not _names_forbidden(f, challenge.forbidden)]
    families.append(_strided_idioms)
    submission = IsolatedSubmission(_idiom_submission(families).encode(), Limits(),
                                    GuardRules.for_challenge(challenge), zygote=zygote)
    try:
        submission.start()
        assert submission.call("run") == len(families)
    finally:
        submission.close()
