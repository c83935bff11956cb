"""The lesson's problems added in bank v2, pinned to hand-checked values.

Every number below was worked by hand from the question's text (see the comments);
the 1,000-seed stress test in test_bank.py covers the templates' ranges and options.
"""

from __future__ import annotations

import pytest

from quizforge.bank import registry
from quizforge.answers.check import check_answer
from quizforge.answers.question_keys import numeric_key

PINNED = {
    # 6·(3,152,384) + 6·(4,204,032) + 37,000·512 = 63,082,496 → 63.082 M (the paper rounds to 65M)
    "params.transformer_paper-0004": 63.082,
    "params.transformer_paper-000f": 214.245,     # big: 214,245,376 (the paper: 213M)
    "params.transformer_paper-0002": 18.914,      # base encoder stack: 6 · 3,152,384
    "params.transformer_paper-0001": 25.224,      # base decoder stack: 6 · 4,204,032
    "params.gpt3_layer-000b": 1_812_099_072,      # 175B: 12·12288² + 13·12288
    # L = 7, d = 192, V = 256, n_ctx = 128, tied: 7·444,864 + 49,152 + 24,576 + 384
    "params.small_gpt-0007": 3_188_160,
    "flops.rnn_attention_counts-0007": 524_800,   # RNN parameters, d = 512: 2·512² + 512
    "sampling.temperature-0007": 0.192,           # e^(2/3) / Σ e^(z/3) over (2, 1, −2, 5, 0) = 0.19187
    "sampling.top_k-0007": 0.417,                 # top-2 of (−3, 5, 2, 0, 4) at T = 3: e^(4/3)/(e^(5/3)+e^(4/3))
    "norms.layernorm-0007": 1.0,                  # mean of (7, −4, 3, −3, 2)
    "positional.wavelength-0007": 6752.0,         # 2π · 10000^(194/256)
    "positional.relative_shift-0007": 0.970,      # cos a cos b − sin a sin b, b = 5·10000^(−6/128)
}


@pytest.mark.parametrize("qid, value", PINNED.items())
def test_pinned_keys_are_the_hand_worked_values(qid, value):
    q = registry.question(qid)
    assert q.answer == pytest.approx(value, abs=1e-9), qid
    assert check_answer(q, str(value)).correct


def test_the_lesson_templates_are_registered_under_their_topics():
    by_topic = {t.id: t.topic for t in registry.all_templates()}
    assert len(by_topic) >= 55
    assert by_topic["norms.layernorm"] == "norms" and by_topic["sampling.top_k_set"] == "sampling"
    assert {"positional.why_needed", "positional.wavelength", "positional.relative_shift",
            "concepts.efficient_attention", "concepts.wo_ffn_role", "attention.softmax_axis_bug",
            "params.transformer_paper", "params.small_gpt", "params.gpt3_layer",
            "flops.rnn_attention_counts", "sampling.temperature", "sampling.top_k"} <= set(by_topic)


def test_top_k_keeps_the_largest_logits_whatever_the_temperature():
    q = registry.question("sampling.top_k_set-0004")   # logits (−2, 4, 0, 3, −1, −3, 2), k = 2
    assert "Only tokens 2, 4 can be sampled" in q.answer_md


def test_softmax_axis_bug_names_the_axis_and_the_fix():
    q = registry.question("attention.softmax_axis_bug-0004")   # dim=1 on (B, h, n, n)
    assert "dim=1" in q.prompt and "over the heads" in q.answer_md and "dim=-1" in q.answer_md


def test_coinciding_mistakes_are_all_named():
    q = registry.question("flops.rnn_attention_counts-03da")   # RNN FLOPs; 2nd² is two different mistakes
    verdict = check_answer(q, str(q.answer // 2))
    assert not verdict.correct
    assert "counted multiply-adds" in verdict.feedback and "left out the recurrent product" in verdict.feedback


def test_transformer_feedback_for_an_untied_output_projection():
    q = registry.question("params.transformer_paper-0004")      # 63.082 + 18.944 for a separate output matrix
    verdict = check_answer(q, "82.026")
    assert verdict.misconception is not None and verdict.misconception.tag == "untied-head"


@pytest.mark.parametrize("tid", ["positional.wavelength", "positional.relative_shift", "norms.layernorm",
                                 "sampling.temperature", "sampling.top_k"])
def test_accepted_range_never_holds_zero(tid):
    t = registry.get_template(tid)
    for seed in range(1000):
        q = t.question(seed)
        assert not numeric_key(q).accepts(0), q.id
