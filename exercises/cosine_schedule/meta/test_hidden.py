"""Hidden suite for `cosine_lr(t, lr_max, lr_min, warmup_steps, cycle_steps) -> float`.

Every rate is compared with `schedule` below in float64. That reference has switches, each
reproducing one classic mistake, so that a failure can name it. Schedules and steps are drawn
from the grading's secret seed.
"""

from __future__ import annotations

import math

import torch

from quizforge.challenges import checks

NAME = "cosine_lr"
ATOL, RTOL = 1e-9, 1e-6  # rates of 1e-4 to 1e-2; float32 arithmetic is still well inside
FORMULA = ("t < w: t / w * lr_max; w <= t <= c: lr_min + 1/2 (1 + cos(pi (t - w) / (c - w))) (lr_max - lr_min); "
           "t > c: lr_min")


def rate(t, lr_max, lr_min, w, c, *, warmup="linear", progress="from_warmup", floor="lr_min", period="half",
         after="lr_min"):
    """One rate. warmup: "linear", "floor" (t // w) or "plus_one" ((t + 1) / w); progress: "from_warmup"
    ((t - w) / (c - w)), "from_zero" (t / c) or "over_cycle" ((t - w) / c); floor: the rate the cosine
    ends at, "lr_min" or "zero"; period: "half" (cos(pi p)) or "full" (cos(2 pi p)); after: what comes
    past c, "lr_min", "cosine" (the formula goes on) or "zero"."""
    if t < w:
        steps = {"linear": t / w, "floor": t // w, "plus_one": (t + 1) / w}[warmup]
        return steps * lr_max
    if t > c and after != "cosine":
        return 0.0 if after == "zero" else lr_min
    p = {"from_warmup": (t - w) / (c - w), "from_zero": t / c, "over_cycle": (t - w) / c}[progress]
    low = lr_min if floor == "lr_min" else 0.0
    return low + 0.5 * (1 + math.cos((math.pi if period == "half" else 2 * math.pi) * p)) * (lr_max - low)


def schedule(ts, config, **switches) -> torch.Tensor:
    return torch.tensor([rate(t, *config, **switches) for t in ts], dtype=torch.float64)


def known_mistakes(ts, config) -> list[checks.Mistake]:
    variants = [
        ("the warm-up uses integer division, t // warmup_steps, which is 0 until the warm-up ends: "
         "use t / warmup_steps", dict(warmup="floor")),
        ("the warm-up is one step ahead, (t + 1) / warmup_steps: it is t / warmup_steps * lr_max, 0 at t = 0",
         dict(warmup="plus_one")),
        ("the cosine's progress is measured from step 0 (t / cycle_steps): measure it from the end of the "
         "warm-up, (t - warmup_steps) / (cycle_steps - warmup_steps)", dict(progress="from_zero")),
        ("the cosine's progress is divided by cycle_steps: divide by the length of the decay, "
         "cycle_steps - warmup_steps", dict(progress="over_cycle")),
        ("the cosine decays to 0 instead of lr_min: lr_min + 1/2 (1 + cos(pi p)) (lr_max - lr_min)",
         dict(floor="zero")),
        ("the cosine runs a whole period, cos(2 pi p), and comes back up: it is half a period, cos(pi p), "
         "falling from lr_max to lr_min once", dict(period="full")),
        ("after cycle_steps the rate keeps following the cosine and rises again: past the cycle it stays "
         "at lr_min", dict(after="cosine")),
        ("after cycle_steps the rate is 0: past the cycle it stays at lr_min", dict(after="zero")),
    ]
    return [(text, schedule(ts, config, **switches)) for text, switches in variants]


def random_config(gen, *, warmup=True):
    """(lr_max, lr_min, warmup_steps, cycle_steps) from the seed."""
    lr_max = 10 ** (-4 + 2 * float(torch.rand((), generator=gen, dtype=torch.float64)))
    lr_min = lr_max * (0.01 + 0.3 * float(torch.rand((), generator=gen, dtype=torch.float64)))
    w = checks.integer(gen, 5, 200) if warmup else 0
    c = w + checks.integer(gen, 50, 2000)
    return lr_max, lr_min, w, c


def rates(submission, ts, config) -> list:
    """The submission's rate at each step of ts, each checked to be a Python float."""
    found = []
    for t in ts:
        out = checks.call(submission, NAME, t, *config)
        kind = type(out).__name__
        assert type(out) is float, (
            f"{checks.describe_call(NAME, t, *config)} returned {'an' if kind[0] in 'aeiou' else 'a'} {kind}: "
            "return a Python float "
            "(float(...), or .item() of a one-element tensor)")
        found.append(out)
    return found


def check(submission, ts, config, *, what, hint=FORMULA):
    got = torch.tensor(rates(submission, ts, config), dtype=torch.float64)
    checks.assert_values(got, schedule(ts, config), what=what, atol=ATOL, rtol=RTOL,
                         mistakes=known_mistakes(ts, config), hint=hint)


def steps(gen, low, high, n):
    """n steps from low to high inclusive, ends included, the rest drawn from the seed."""
    drawn = [checks.integer(gen, low, high) for _ in range(max(n - 2, 0))]
    return sorted({low, high, *drawn})


def test_returns_a_python_float(submission):
    gen = checks.seeded(1)
    lr_max, lr_min, w, c = random_config(gen)
    for t in (w // 2, (w + c) // 2, c + 1):
        rates(submission, [t], (lr_max, lr_min, w, c))


def test_warmup(submission):
    gen = checks.seeded(10)
    config = random_config(gen)
    w = config[2]
    check(submission, steps(gen, 0, w - 1, 12), config, what="your rates during the warm-up (t < warmup_steps)",
          hint="the warm-up is linear: t / warmup_steps * lr_max")


def test_starts_at_zero(submission):
    config = random_config(checks.seeded(20))
    check(submission, [0], config, what="your rate at t = 0", hint="the warm-up starts from 0: 0 / warmup_steps")


def test_peak_at_the_end_of_the_warmup(submission):
    config = random_config(checks.seeded(30))
    check(submission, [config[2]], config, what="your rate at t = warmup_steps",
          hint="the decay starts at lr_max when t = warmup_steps")


def test_cosine_decay(submission):
    gen = checks.seeded(40)
    config = random_config(gen)
    _, _, w, c = config
    check(submission, steps(gen, w, c, 16), config, what="your rates during the decay (warmup_steps <= t <= cycle_steps)")


def test_halfway_through_the_decay(submission):
    gen = checks.seeded(50)
    lr_max, lr_min, w, c = random_config(gen)
    c += (c - w) % 2  # an even decay, so that its midpoint is a whole step
    check(submission, [w + (c - w) // 2], (lr_max, lr_min, w, c), what="your rate halfway through the decay",
          hint="halfway, cos(pi / 2) = 0, so the rate is (lr_max + lr_min) / 2")


def test_end_of_the_cycle(submission):
    config = random_config(checks.seeded(60))
    check(submission, [config[3]], config, what="your rate at t = cycle_steps",
          hint="the decay ends at lr_min when t = cycle_steps")


def test_after_the_cycle(submission):
    gen = checks.seeded(70)
    config = random_config(gen)
    c = config[3]
    ts = [c + 1, c + checks.integer(gen, 2, c), 10 * c + checks.integer(gen, 0, 100)]
    check(submission, ts, config, what="your rates after the cycle (t > cycle_steps)",
          hint="past cycle_steps the rate stays at lr_min")


def test_no_warmup(submission):
    gen = checks.seeded(80)
    config = random_config(gen, warmup=False)
    check(submission, steps(gen, 0, config[3], 8), config, what="your rates with warmup_steps = 0",
          hint="with no warm-up the decay starts at lr_max at t = 0")


def test_integer_learning_rates(submission):
    gen = checks.seeded(90)
    _, _, w, c = random_config(gen)
    config = (checks.integer(gen, 1, 9), 0, w, c)
    check(submission, [0, w // 2, w, (w + c) // 2, c, c + 1, 2 * c], config,
          what="your rates for integer lr_max and lr_min = 0",
          hint="lr_max and lr_min may be ints; every rate is still a float")


def test_a_whole_schedule(submission):
    # Every step of a short schedule, a few steps past its end included.
    gen = checks.seeded(100)
    lr_max, lr_min, _, _ = random_config(gen)
    w = checks.integer(gen, 3, 12)
    c = w + checks.integer(gen, 20, 60)
    check(submission, list(range(c + 6)), (lr_max, lr_min, w, c), what="your rates over a whole schedule")
