"""Every template's draws over the stress seeds, made once per test run and shared.

The 1,000-seed checks (test_bank's stress test, test_bank_mistake_ranges, test_bank_variety)
each look at the same questions; drawing them once keeps the suite's time to one pass.
"""

from __future__ import annotations

import functools

from quizforge.bank import registry

STRESS_SEEDS = range(1000)


@functools.cache
def draws(template_id: str) -> tuple:
    """(seed, draft, chain, question) for every stress seed, as `Template.question` makes them."""
    template = registry.get_template(template_id)
    out = []
    for seed in STRESS_SEEDS:
        draft, chain = template.draft(seed)
        out.append((seed, draft, chain, template.assemble(seed, draft, chain)))
    return tuple(out)


def questions(template_id: str, n: int = len(STRESS_SEEDS)) -> list:
    return [q for _, _, _, q in draws(template_id)[:n]]
