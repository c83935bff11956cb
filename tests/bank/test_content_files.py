"""Content files a teacher edits: every shipped file loads, and a malformed entry fails with
the file and the line it is on."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from quizforge.datafiles import ContentError
from quizforge.practice import interview_bank as ib

GOOD = '''id = "demo"
title = "A demo chain"
topic = "attention"

[[prompt]]
id = "demo.first"
question = "What is attention?"
model_answer = "A weighted average of values."
key_points = ["weights from a softmax"]

[[prompt]]
id = "demo.second"
question = "Why scale?"
model_answer = "To keep the softmax out of saturation."
key_points = ["variance d_k"]
pitfalls = ["overflow"]
'''


def _write(tmp_path: Path, text: str, name: str = "01-demo.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_every_shipped_chain_file_loads():
    files = sorted(ib.CHAIN_DIR.glob("*.toml"))
    assert len(files) == 10
    chains = [ib.load_chain(f) for f in files]
    assert [c.id for c in chains] == [c.id for c in ib.CHAINS]
    assert ib.prompt("attention.implement").model_answer.startswith("Attention is softmax(QKᵀ/√d_k)·V.")


def test_a_good_file_loads_into_chains_and_prompts(tmp_path):
    chain = ib.load_chain(_write(tmp_path, GOOD))
    assert chain.id == "demo" and [p.id for p in chain.prompts] == ["demo.first", "demo.second"]
    assert chain.prompts[1].pitfalls == ("overflow",) and chain.prompts[0].pitfalls == ()


@pytest.mark.parametrize("broken, line, words", [
    (GOOD.replace('key_points = ["variance d_k"]\n', ""), 11, "missing 'key_points'"),
    (GOOD.replace('key_points = ["variance d_k"]', 'key_points = "variance d_k"'), 15, "list of non-empty strings"),
    (GOOD.replace('id = "demo.second"', 'id = "other.second"'), 12, "must be demo.<step>"),
    (GOOD.replace('id = "demo.second"', 'id = "demo.first"'), 12, "appears twice"),
    (GOOD.replace('pitfalls = ["overflow"]', 'pitfals = ["overflow"]'), 16, "unknown field 'pitfals'"),
    (GOOD.replace('topic = "attention"', 'topic = "cooking"'), 3, "unknown topic 'cooking'"),
    (GOOD.replace('question = "Why scale?"', 'question = "Why scale?'), 13, "not valid TOML"),
    (GOOD.replace('model_answer = "A weighted average of values."', 'model_answer = "  "'), 8, "non-empty string"),
    (GOOD.split("[[prompt]]")[0], 1, "at least 1 [[prompt]]"),
    # an error tomllib finds only at the end of the document is on the last line, not line 1
    (GOOD + 'notes = """never closed\n\n', len(GOOD.splitlines()) + 2, "Unterminated string"),
])
def test_a_malformed_entry_names_file_and_line(tmp_path, broken, line, words):
    path = _write(tmp_path, broken)
    with pytest.raises(ContentError) as e:
        ib.load_chain(path)
    message = str(e.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert words in message and "\n" not in message


def test_two_files_with_one_chain_id_are_refused(tmp_path):
    _write(tmp_path, GOOD)
    _write(tmp_path, GOOD, "02-again.toml")
    with pytest.raises(ContentError, match="02-again.toml:1: chain id 'demo' is used by another file"):
        ib.load_chains(tmp_path)


def test_loading_the_bank_stays_off_torch_and_sympy():
    code = ("import sys, quizforge.practice.interview_bank as ib; "
            "assert ib.CHAINS; print('torch' in sys.modules, 'sympy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_chain_files_ship_as_package_data():
    pyproject = (Path(__file__).parents[2] / "pyproject.toml").read_text()
    assert '"practice/interviews/*.toml"' in pyproject


# --- statement pools of the conceptual templates ---------------------------------------------

from quizforge.bank import registry  # noqa: E402
from quizforge.bank import statement_pools as pools  # noqa: E402

POOL = '''[[statement]]
true = true
text = 'Attention over $n = {{n}}$ tokens compares every pair'
why = 'n² pairs'

[[statement]]
true = false
text = 'It is linear in n'
why = 'it is quadratic'
tag = "linear"

[[statement]]
true = false
text = 'It needs a recurrence'
why = 'there is none'

[[statement]]
true = false
text = 'It is cubic in n'
why = 'it is quadratic'
'''


def _pool(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "demo.toml"
    path.write_text(text, encoding="utf-8")
    pools.load_pool.cache_clear()
    return path


def test_every_pool_file_loads_and_is_used_by_a_template():
    names = pools.pool_names()
    assert len(names) == 15
    for name in names:
        assert pools.load_pool(pools.POOL_DIR / f"{name}.toml")
    used = {t.id.split(".", 1)[1] for t in registry.all_templates() if t.question(0).options and
            any(o.why for o in t.question(0).options)}
    assert set(names) <= used


def test_a_pool_fills_its_placeholders(tmp_path, monkeypatch):
    monkeypatch.setattr(pools, "POOL_DIR", _pool(tmp_path, POOL).parent)
    statements = pools.statement_pool("demo", n=512)
    assert statements[0].text == "Attention over $n = 512$ tokens compares every pair" and statements[0].true
    assert statements[1].tag == "linear" and not statements[1].true


@pytest.mark.parametrize("broken, line, words", [
    (POOL.replace("true = false\ntext = 'It is linear", "true = 'no'\ntext = 'It is linear"), 7, "'true' must be"),
    (POOL.replace("why = 'there is none'\n", ""), 12, "missing 'why'"),
    (POOL.replace("text = 'It is cubic in n'", "text = 'It is cubic in n.'"), 19, "without a full stop"),
    (POOL.replace("why = 'n² pairs'", "why = 'n² pairs'\ntag = 'oops'"), 5, "true statement has no misconception tag"),
    (POOL.replace("why = 'it is quadratic'\ntag", "wy = 'it is quadratic'\ntag"), 9, "unknown field 'wy'"),
    (POOL.split("[[statement]]\ntrue = false\ntext = 'It is cubic")[0], 1, "at least 4 [[statement]]"),
])
def test_a_malformed_statement_names_file_and_line(tmp_path, broken, line, words):
    path = _pool(tmp_path, broken)
    with pytest.raises(ContentError) as e:
        pools.load_pool(path)
    assert str(e.value).startswith(f"{path}:{line}: ") and words in str(e.value), str(e.value)


def test_an_unknown_placeholder_names_file_and_line(tmp_path, monkeypatch):
    monkeypatch.setattr(pools, "POOL_DIR", _pool(tmp_path, POOL.replace("{{n}}", "{{m}}")).parent)
    with pytest.raises(ContentError, match=r"demo.toml:3: .*unknown placeholder \{\{m\}\} in 'text'; this template provides n"):
        pools.statement_pool("demo", n=512)
