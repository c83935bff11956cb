"""Issue 32 item 8: no MCQ gives its key away by its form. Over many seeds of every MCQ template,
the right option is not usually the longest (or the shortest) of the four, and no opening words
mark it (attention.softmax_axis_bug's key was the longest on every paper and always began
"The bug:")."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from quizforge.bank.registry import all_templates, get_template

SEEDS = range(200)
MOST = 0.45   # chance alone makes the key the longest of four options a quarter of the time
MCQ = [t for t in all_templates() if t.kind == "MCQ"]


def opening(md: str) -> str:
    return " ".join(re.sub(r"[$*`]", "", md).split()[:2])


def giveaways(template) -> list[str]:
    longest = shortest = 0
    openings, wrong_openings = Counter(), set()
    for seed in SEEDS:
        q = template.question(seed)
        (right,) = [o for o in q.options if o.correct]
        wrong = [o for o in q.options if not o.correct]
        longest += all(len(right.md) > len(o.md) for o in wrong)
        shortest += all(len(right.md) < len(o.md) for o in wrong)
        openings[opening(right.md)] += 1
        wrong_openings |= {opening(o.md) for o in wrong}
    found = []
    if longest > MOST * len(SEEDS):
        found.append(f"the key is the longest option on {longest} of {len(SEEDS)}")
    if shortest > MOST * len(SEEDS):
        found.append(f"the key is the shortest option on {shortest} of {len(SEEDS)}")
    words, count = openings.most_common(1)[0]
    if count > len(SEEDS) / 2 and words not in wrong_openings:
        found.append(f"{count} of {len(SEEDS)} keys open with {words!r}, which no wrong option does")
    return found


@pytest.mark.parametrize("template", MCQ, ids=lambda t: t.id)
def test_no_mcq_key_stands_out_by_its_length_or_opening(template):
    assert giveaways(template) == []


def test_the_softmax_axis_bug_key_varies_in_wording():
    template = get_template("attention.softmax_axis_bug")
    keys = {opening(next(o.md for o in template.question(seed).options if o.correct)) for seed in SEEDS}
    assert len(keys) >= 3 and "The bug:" not in keys


RAW_SUBSCRIPT = re.compile(r"\b[A-Za-z]+_[A-Za-z{]")


def test_titles_and_options_write_subscripts_as_math_not_raw():
    """'d_k' typed raw in a title or an option reads as code on paper and in the LMS: titles use
    Unicode (dₖ), options $d_k$."""
    for template in all_templates():
        assert not RAW_SUBSCRIPT.search(template.title), template.title
        for seed in range(20):
            for option in template.question(seed).options:
                outside = re.sub(r"\$\$.+?\$\$|\$[^$]+\$|`[^`]+`", "", option.md)
                assert not RAW_SUBSCRIPT.search(outside), (template.id, option.md)
