"""The "small things" of issue 14, each as the learner met it, through the `quiz` command."""

from __future__ import annotations

import pytest

from quizforge.suggest import close_names


@pytest.mark.parametrize("args, suggestion", [
    (("calc", "params", "llama7b"), "did you mean llama-7b?"),
    (("calc", "kv-cache", "LLAMA2_70B", "--seq-len", "8"), "did you mean llama2-70b?"),
    (("ask", "atention"), "did you mean attention?"),
    (("ask", "dims.dk"), "did you mean dims.d_k?"),
    (("explain", "dims.dk-0001"), "did you mean dims.d_k?"),
    (("bank", "list", "--topic", "param"), "did you mean params?"),
    (("challenges", "start", "softmx"), "did you mean softmax?"),
    (("grade", "x.py", "--challenge", "layernorm"), "did you mean layer_norm?"),
])
def test_a_misspelt_name_gets_a_suggestion(run_quiz, args, suggestion):
    code, _, err = run_quiz(*args)
    assert code == 2
    assert err.startswith("error: unknown ") and err.count("\n") == 1
    assert suggestion in err


def test_nothing_close_suggests_nothing():
    assert close_names("nosuch", ["dims", "params", "attention"]) == []
    assert close_names("llama7b", ["llama-7b", "llama2-70b"]) == ["llama-7b"]


TOPIC_ERROR = ("error: unknown topic or template 'nosuch'; topics: dims, params, flops, memory, attention, "
               "softmax, positional, concepts")


def test_an_unknown_topic_says_topic_or_template_and_lists_the_topics(run_quiz):
    code, _, err = run_quiz("ask", "nosuch")
    assert code == 2 and err.startswith(TOPIC_ERROR) and "did you mean" not in err


def test_practice_with_an_unknown_topic_says_topic_or_template(tmp_path):
    from practice_helpers import run_quiz as run_piped

    done = run_piped(tmp_path, "practice", "--topic", "nosuch", input="")
    assert done.returncode == 2 and done.stderr.startswith(TOPIC_ERROR), done.stderr
