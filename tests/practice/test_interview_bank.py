"""The interview bank: structure of the chains and correctness of the code sketches."""

import ast
import json
import math
import re
import subprocess
import sys

import pytest

from quizforge.errors import InputError
from quizforge.practice import interview_bank as ib

TOPICS = {"dims", "params", "flops", "memory", "attention", "softmax", "positional", "norms", "sampling", "concepts",
          "matrices"}   # the bank's topics, as interview chains are filed under them
_ID = re.compile(r"[a-z0-9_]+\.[a-z0-9_]+")
_PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)


def _texts(p):
    return [p.question, p.model_answer, *p.key_points, *p.pitfalls]


def _python_blocks(text):
    return _PYTHON_BLOCK.findall(text)


def _sketch_namespace(prompt_id):
    (code,) = _python_blocks(ib.prompt(prompt_id).model_answer)
    namespace = {}
    exec(compile(code, f"<{prompt_id}>", "exec"), namespace)
    return namespace


def test_size_of_the_bank():
    assert len(ib.CHAINS) >= 8
    assert len(ib.all_prompts()) >= 30
    for c in ib.CHAINS:
        assert 3 <= len(c.prompts) <= 5, c.id


def test_ids_are_unique_and_prefixed_by_their_chain():
    chain_ids = [c.id for c in ib.CHAINS]
    assert len(chain_ids) == len(set(chain_ids))
    prompt_ids = [p.id for p in ib.all_prompts()]
    assert len(prompt_ids) == len(set(prompt_ids))
    for c in ib.CHAINS:
        assert re.fullmatch(r"[a-z0-9_]+", c.id), c.id
        for p in c.prompts:
            assert _ID.fullmatch(p.id), p.id
            assert p.id.split(".")[0] == c.id, p.id


def test_all_prompts_is_every_chain_in_order():
    assert ib.all_prompts() == [p for c in ib.CHAINS for p in c.prompts]


def test_attention_chain_runs_implement_mask_complexity_kv_cache():
    assert ib.CHAINS[0].id == "attention"
    prompts = ib.chain("attention").prompts
    expected = [
        ("attention.implement", "implement"),
        ("attention.mask", "causal"),
        ("attention.complexity", "complexity"),
        ("attention.kv_cache", "kv cache"),
    ]
    assert [p.id for p in prompts] == [pid for pid, _ in expected]
    for p, (_, keyword) in zip(prompts, expected):
        assert keyword in p.question.lower(), (p.id, keyword)


def test_required_chains_exist():
    ids = {c.id for c in ib.CHAINS}
    assert {"attention", "scaling", "multihead", "positional", "normalization",
            "architectures", "efficiency", "ffn"} <= ids


def test_every_prompt_has_an_answer_and_enough_key_points():
    for p in ib.all_prompts():
        assert p.question.strip(), p.id
        assert p.model_answer.strip(), p.id
        assert 3 <= len(p.key_points) <= 5, p.id
        assert all(k.strip() for k in p.key_points), p.id
        assert len(p.pitfalls) <= 3, p.id
        assert isinstance(p.key_points, tuple) and isinstance(p.pitfalls, tuple), p.id


def test_no_latex_anywhere():
    for c in ib.CHAINS:
        assert "$" not in c.title, c.id
        for p in c.prompts:
            for text in _texts(p):
                assert "$" not in text, p.id
                assert "\\frac" not in text and "\\sqrt" not in text, p.id


def test_chain_topics_are_known():
    for c in ib.CHAINS:
        assert c.topic in TOPICS, (c.id, c.topic)
    assert set(ib.TOPICS) == TOPICS


def test_records_are_frozen():
    p = ib.prompt("attention.mask")
    with pytest.raises(AttributeError):
        p.question = "changed"  # type: ignore[misc]


def test_lookup_by_id():
    assert ib.chain("scaling") is ib.CHAINS[[c.id for c in ib.CHAINS].index("scaling")]
    assert ib.prompt("attention.mask") is ib.chain("attention").prompts[1]


def test_unknown_chain_names_the_bad_id_and_the_valid_ones():
    with pytest.raises(InputError) as exc:
        ib.chain("nope")
    message = str(exc.value)
    assert "'nope'" in message
    assert "attention" in message and "ffn" in message


@pytest.mark.parametrize("bad", ["nope.x", "attention.nope", "attention"])
def test_unknown_prompt_names_the_bad_id(bad):
    with pytest.raises(InputError) as exc:
        ib.prompt(bad)
    message = str(exc.value)
    assert repr(bad) in message
    assert "attention" in message


def test_unknown_prompt_in_a_known_chain_lists_that_chains_prompts():
    with pytest.raises(InputError) as exc:
        ib.prompt("attention.nope")
    assert "attention.kv_cache" in str(exc.value)


def test_python_blocks_parse():
    blocks = [(p.id, b) for p in ib.all_prompts() for b in _python_blocks(p.model_answer)]
    assert any(pid == "attention.implement" for pid, _ in blocks)
    for pid, code in blocks:
        ast.parse(code, filename=pid)


def test_code_fences_are_balanced():
    for p in ib.all_prompts():
        assert p.model_answer.count("```") % 2 == 0, p.id


def test_attention_sketch_matches_torch_sdpa():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    assert "`attention`" in ib.prompt("attention.implement").model_answer  # the name the test relies on
    attention = _sketch_namespace("attention.implement")["attention"]
    gen = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 4, generator=gen) for _ in range(3))

    torch.testing.assert_close(attention(q, k, v), F.scaled_dot_product_attention(q, k, v), rtol=0, atol=1e-6)

    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    torch.testing.assert_close(
        attention(q, k, v, causal), F.scaled_dot_product_attention(q, k, v, is_causal=True), rtol=0, atol=1e-6
    )


def test_softmax_sketches_are_right():
    torch = pytest.importorskip("torch")
    softmax = _sketch_namespace("softmax.stable")["softmax"]
    z = torch.tensor([[1000.0, 999.0, -5.0], [-1000.0, -1001.0, -1002.0]])
    torch.testing.assert_close(softmax(z), torch.softmax(z, dim=-1))

    stats = _sketch_namespace("softmax.online")["online_softmax_stats"]
    xs = [0.5, -2.0, 3.0, 1.0, 3.5, -7.0]
    m, s = stats(xs)
    assert m == max(xs)
    assert math.isclose(s, sum(math.exp(x - m) for x in xs), rel_tol=1e-12)


def test_rms_norm_and_swiglu_sketches_are_right():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    gen = torch.Generator().manual_seed(1)
    x = torch.randn(3, 8, generator=gen)
    w = torch.randn(8, generator=gen)
    ns = {"torch": torch}
    exec(_python_blocks(ib.prompt("normalization.rmsnorm").model_answer)[0], ns)
    expected = x / torch.sqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    torch.testing.assert_close(ns["rms_norm"](x, w), expected)

    ns = {"F": F}
    exec(_python_blocks(ib.prompt("ffn.swiglu").model_answer)[0], ns)
    w1, w3, w2 = torch.randn(8, 12, generator=gen), torch.randn(8, 12, generator=gen), torch.randn(12, 8, generator=gen)
    h = x @ w1
    torch.testing.assert_close(ns["swiglu_ffn"](x, w1, w3, w2), (h * torch.sigmoid(h) * (x @ w3)) @ w2)


def test_mha_sketch_matches_torch_multihead_attention():
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    ns = {"attention": F.scaled_dot_product_attention}
    exec(_python_blocks(ib.prompt("multihead.split").model_answer)[0], ns)
    d_model, h = 8, 2
    mha = torch.nn.MultiheadAttention(d_model, h, bias=False, batch_first=True)
    w_q, w_k, w_v = mha.in_proj_weight.detach().chunk(3)
    x = torch.randn(2, 5, d_model, generator=torch.Generator().manual_seed(2))
    expected, _ = mha(x, x, x, need_weights=False)
    got = ns["mha_forward"](x, w_q.T, w_k.T, w_v.T, mha.out_proj.weight.detach().T, h)
    torch.testing.assert_close(got, expected.detach(), rtol=1e-5, atol=1e-6)


def test_numbers_quoted_in_answers():
    # The worked numbers shown to learners, recomputed.
    assert 4 * 768**2 + 4 * 768 == 2_362_368
    assert "2,362,368" in ib.prompt("multihead.params").model_answer
    assert 8 * 768**2 + 5 * 768 == 4_722_432
    assert "4,722,432" in ib.prompt("ffn.role").model_answer
    assert 2 * 32 * 32 * 128 * 2 == 512 * 1024  # Llama-2-7B KV cache bytes per token, fp16
    assert 2 * 32 * 32 * 128 * 2 * 4096 == 2 * 1024**3
    assert 8192**2 * 32 * 2 == 4 * 1024**3
    assert math.ceil(8 / 3 * 4096 / 256) * 256 == 11008
    assert math.isclose(6 * 175e9 * 300e9, 3.15e23)
    assert math.isclose(math.log(65504), 11.09, abs_tol=0.01)
    assert math.isclose(math.log(3.4028235e38), 88.72, abs_tol=0.01)


def test_import_does_not_pull_in_heavy_libraries():
    code = (
        "import json, sys\n"
        "import quizforge.practice.interview_bank\n"
        "print(json.dumps(sorted(m for m in ('torch', 'numpy', 'sympy') if m in sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
