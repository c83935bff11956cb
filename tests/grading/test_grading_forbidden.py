"""Forbidden APIs: the static check of the source, and the guards in the worker."""

import ast

import pytest
import torch

from grading_support import DOUBLE_TESTS, fixture_challenge, grade_unchecked, outcomes, write_submission
from quizforge.grading.grade import grade
from quizforge.grading.intake.forbidden import check_source, top_level_names
from quizforge.grading.sandbox_inside import capability

FORBIDDEN = ["torch.nn.functional.softmax", "torch.Tensor.softmax", "torch.nn.functional.layer_norm",
             "torch.nn.MultiheadAttention"]


def violations(source: str, forbidden=FORBIDDEN) -> list[str]:
    return [v.describe() for v in check_source(ast.parse(source), forbidden)]


@pytest.mark.parametrize("source, line, shown", [
    ("import torch\ny = torch.nn.functional.softmax(x, -1)", 2, "torch.nn.functional.softmax"),
    ("import torch.nn.functional as F\n\ny = F.softmax(x, -1)", 3, "F.softmax (torch.nn.functional.softmax)"),
    ("from torch.nn import functional\ny = functional.softmax(x)", 2, "functional.softmax"),
    ("from torch import nn\ny = nn.functional.softmax(x)", 2, "nn.functional.softmax"),
    ("from torch.nn.functional import softmax as s", 1, "from torch.nn.functional import softmax"),
    ("import torch\ny = torch.softmax(x, 0)", 2, "torch.softmax (torch.nn.functional.softmax)"),
    ("import torch\ny = torch.special.softmax(x, 0)", 2, "torch.special.softmax"),
    ("def f(x):\n    return x.softmax(-1)", 2, "x.softmax (torch.Tensor.softmax)"),
    ("import torch.nn.functional as F\ng = getattr(F, 'softmax')", 2, "getattr(F, 'softmax')"),
    ("import torch\nG = torch.nn.functional\nH = G\ny = H.softmax(x)", 4, "H.softmax"),
    ("import torch\nm = torch.nn.LayerNorm(4)", 2, "torch.nn.LayerNorm (torch.nn.functional.layer_norm)"),
    ("import torch.nn as nn\nclass A(nn.MultiheadAttention): pass", 2, "nn.MultiheadAttention"),
    ("import torch\nf = getattr(torch.nn.functional, name)", 2, "computed name"),
    ("import torch\nf = getattr(self, name)", 2, "computed name"),
    ("g = getattr\nh = g(x, 'a' + 'b')", 1, "computed name"),
])
def test_static_check_names_the_api_and_line(source, line, shown):
    found = violations(source)
    assert found, source
    assert found[0].startswith(f"line {line}: ") and shown in found[0]


@pytest.mark.parametrize("source, shown", [
    ("x = eval('1 + 1')", "eval"),
    ("exec('import torch')", "exec"),
    ("m = __import__('torch')", "__import__"),
    ("import importlib\nm = importlib.import_module('torch')", "import importlib"),
    ("from importlib import import_module", "from importlib import"),
    ("import sys\nF = sys.modules['torch.nn.functional']", "`sys` cannot be imported"),
    ("import builtins", "import builtins"),
    ("f = globals()['__buil' + 'tins__']['ev' + 'al']", "globals"),
    ("v = vars()", "vars"),
])
def test_dynamic_code_is_rejected_in_every_challenge(source, shown):
    found = violations(source, forbidden=[])
    assert found and shown in found[0] and "not allowed" in found[0]


@pytest.mark.parametrize("source, shown", [
    ("from quizforge.reference.attention import scaled_dot_product_attention",
     "from quizforge.reference.attention import ..."),
    ("import quizforge.reference.norms as norms", "import quizforge.reference.norms"),
    ("import quizforge", "import quizforge"),
])
def test_the_package_itself_is_refused_with_a_clear_message(source, shown):
    found = violations(source, forbidden=[])
    assert found == [f"line 1: {shown}: a submission cannot use quizforge (its reference is the answer key); "
                     "write the code yourself"]


@pytest.mark.parametrize("source", [
    "import torch\ny = torch.ops.aten.__getattr__('_soft' + 'max')(x, 1, False)",
    "import torch\ny = torch.ops.aten._softmax(x, 1, False)",
    "import torch\ny = torch._C._nn.gelu(x)",
    "from torch import _C",
    "import torch._C",
    "from torch.library import Library",
    "import torch\nf = torch.jit.script(g)",
    "import torch\nf = torch.compile(g)",
    "x = ().__class__.__base__.__subclasses__()",
    "def f():\n    pass\ng = f.__globals__",
    "import sys\nframe = sys._getframe(1)",
    "import ctypes",
    "import gc\ngc.get_objects()",
    "import inspect",
    "import operator\nf = operator.attrgetter('soft' + 'max')",
    "x = getattr(y, '__dict__')",
])
def test_internals_and_hidden_lookups_are_rejected_in_every_challenge(source):
    found = violations(source, forbidden=[])
    assert found and "not allowed in a submission" in found[0], source


@pytest.mark.parametrize("source", [
    "import torch\ndef softmax(x, dim=-1):\n    e = torch.exp(x - x.amax(dim, keepdim=True))\n    return e / e.sum(dim, keepdim=True)",
    "import torch\ny = torch.exp(x).sum(-1)",
    "import numpy as np\ny = np.exp(x)",
    "import torch.nn as nn\nlin = nn.Linear(4, 4)",
    "def softmax(x):\n    return x\ny = softmax(3)",
    "import torch\nclass A:\n    def f(self):\n        return getattr(self, 'w', None), self._cache, hasattr(self, 'b')",
    "import math\nimport torch\ny = torch.finfo(torch.float32).min * math.sqrt(2)",
])
def test_honest_code_passes_the_static_check(source):
    assert violations(source) == []


def test_top_level_names_sees_defs_classes_assignments_and_imports():
    tree = ast.parse("import torch\nfrom math import sqrt as root\ndef f(): pass\nclass C: pass\n"
                     "a, (b, c) = 1, (2, 3)\nif True:\n    d = 4\ntry:\n    e = 5\nexcept Exception:\n    g = 6\n"
                     "def h():\n    inner = 1\n")
    assert top_level_names(tree) == {"torch", "root", "f", "C", "a", "b", "c", "d", "e", "g", "h"}
    assert top_level_names(ast.parse("from torch import *")) is None


def test_a_static_violation_scores_zero_without_running_anything(tmp_path):
    path = write_submission(tmp_path, """
        import torch.nn.functional as F
        import os
        os.system("touch should-never-run")

        def double(x):
            return x * 2 + 0 * F.softmax(x, -1)
    """)
    result = grade(path, fixture_challenge("double"))
    assert result.score == 0 and len(result.tests) == len(DOUBLE_TESTS)
    message = ("line 2: `os` cannot be imported: it is not allowed in a submission; allowed: "
               f"{', '.join(capability.import_roots())} (and 1 more)")
    assert all(t.status == "failed" and t.message == message for t in result.tests)
    assert result.output == message
    assert not (tmp_path / "should-never-run").exists()


@pytest.mark.parametrize("call, line", [
    ("getattr(spaces[0], hidden)(x, 0)", 9),                                   # a trapped Python function
    ("getattr(torch.ops.aten, '_soft' + 'max')(x, 0, False)", 9),              # a kernel, by its op name
    ("getattr(torch.ops.aten, 'softmax')(x, 0)", 9),                           # the composite op
    ("getattr(torch._C._VariableFunctions, hidden)(x, 0)", 9),                 # the C binding
])
def test_the_guards_catch_what_the_static_check_cannot_see(tmp_path, call, line):
    # Graded without the static check, which would reject all of these first.
    path = write_submission(tmp_path, f"""
        import torch
        import torch.nn.functional

        spaces = [torch.nn.functional]
        hidden = "soft" + "max"

        def double(x):
            if x.shape == (4,):
                return {call}
            if x.shape == (3, 5):
                try:
                    {call}
                except Exception:
                    pass
                return x * 2
            return x * 2
    """)
    result = outcomes(grade_unchecked(path, fixture_challenge("double")))
    assert result["test_1_vector"][0] == "failed"
    assert result["test_1_vector"][1].startswith("torch.nn.functional.softmax is forbidden in this challenge")
    assert result["test_2_matrix"][0] == "failed"  # swallowed, and still caught
    assert "forbidden in this challenge" in result["test_2_matrix"][1]
    for name in ("test_3_grad", "test_4_square", "test_5_scalar"):
        assert result[name] == ("passed", "")


def test_popping_the_guard_is_refused_at_the_call(tmp_path):
    path = write_submission(tmp_path, """
        import torch

        def double(x):
            if x.shape == (4,):
                torch._C._pop_torch_function_stack()
            return x * 2
    """)
    result = outcomes(grade_unchecked(path, fixture_challenge("double")))
    # Refused at the call itself, not only noticed after the request.
    assert result["test_1_vector"] == ("failed", "lifting the forbidden-API guards is forbidden in this challenge (line 5)")


def test_the_dispatch_guard_sees_the_fused_kernels_behind_attention():
    from quizforge.grading.sandbox_inside.guards import TorchGuards, HITS, ForbiddenCall

    guards = TorchGuards(["torch.nn.functional.scaled_dot_product_attention"], "nowhere.py")
    q = torch.randn(1, 2, 3, 4)
    guards.dispatch_mode.__enter__()  # the kernel layer alone, as if the function guard were bypassed
    try:
        with pytest.raises(ForbiddenCall):
            torch.nn.functional.scaled_dot_product_attention(q, q, q)
    finally:
        guards.dispatch_mode.__exit__(None, None, None)
        HITS.clear()
