"""Positional encoding: one sinusoidal PE value, and a RoPE rotation angle."""

from __future__ import annotations

import math

from quizforge.bank.question import Misconception, Step
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import decimal, fixed, rounded
from quizforge.bank.template import Draft, template


@template("positional.pe_value", topic="positional", kind="NAT", marks=2, difficulty=2, title="A sinusoidal PE value")
def pe_value(chain: SeedChain) -> Draft:
    from quizforge.handcalc import pe_vector

    s = chain.stream("params")
    d_model = s.choice((4, 8, 16, 32, 64, 128, 512))
    pos = s.integer(1, 60)
    j = s.integer(0, min(d_model, 8) - 1)
    dim = pe_vector(pos, d_model).dims[j]
    while abs(rounded(dim.value, 3)) < 0.002:     # else 0 would fall in the accepted range
        pos = pos % 60 + 1
        dim = pe_vector(pos, d_model).dims[j]
    value = dim.value
    swapped = math.cos(dim.angle) if dim.function == "sin" else math.sin(dim.angle)
    wrong_exponent = pos / 10000 ** (j / d_model)
    fn = math.sin if dim.function == "sin" else math.cos
    wrong = [
        Misconception("pe-sin-cos-swapped", "swapped sin and cos", "even dimensions use sin and odd ones cos", swapped),
        Misconception("pe-index-exponent", "used j, not 2i, in the exponent",
                      "dimensions 2i and 2i+1 share the exponent 2i/d_model", fn(wrong_exponent)) if j % 2 else None,
        Misconception("pe-degrees", "took the angle in degrees", "the angle is in radians", fn(math.radians(dim.angle))),
        Misconception("pe-no-exponent", "forgot the frequency", "the angle is pos / 10000^(2i/d_model), not pos", fn(pos))
        if dim.i > 0 else None,
    ]
    return Draft(
        prompt=(f"With the sinusoidal positional encoding $PE(pos, 2i) = \\sin(pos / 10000^{{2i/d_{{model}}}})$ and "
                f"$PE(pos, 2i+1) = \\cos(pos / 10000^{{2i/d_{{model}}}})$, $d_{{model}} = {d_model}$ and dimensions counted from 0, "
                f"what is $PE({pos}, {j})$? Give it to 3 decimal places."),
        answer=rounded(value, 3), exact=value, decimals=3, fmt=decimal(3), misconceptions=[m for m in wrong if m is not None],
        solution=[Step("Pair index", f"$j = {j}$ is {'even' if j % 2 == 0 else 'odd'}: $2i = {2 * dim.i}$, so it uses "
                                     f"$\\{dim.function}$."),
                  Step("Angle", f"$${pos} / 10000^{{{2 * dim.i}/{d_model}}} = {fixed(dim.angle, 6)}$$ radians"),
                  Step("Value", f"$$\\{dim.function}({fixed(dim.angle, 6)}) \\approx {fixed(value, 6)} \\approx {fixed(value, 3)}$$")],
        hints=["Even dimensions are sines, odd ones cosines of the same angle.", "$\\theta = pos / 10000^{2i/d_{model}}$",
               f"$2i = {2 * dim.i}$, $d_{{model}} = {d_model}$"],
    )


@template("positional.rope_angle", topic="positional", kind="NAT", marks=1, difficulty=2, title="A RoPE rotation angle")
def rope_angle(chain: SeedChain) -> Draft:
    from quizforge.reference.positional import rope_angle as reference_angle

    s = chain.stream("params")
    d_head = s.choice((8, 16, 32, 64, 128))
    m = s.integer(1, 200)
    i = s.integer(1, min(d_head // 2 - 1, 6))
    base = 10000.0
    angle = reference_angle(m, i, d_head, base)
    while rounded(angle, 3) < 0.002:              # else 0 would fall in the accepted range
        m += 1
        angle = reference_angle(m, i, d_head, base)
    wrong = [
        Misconception("rope-i-over-d", "used i/d, not 2i/d", "the frequency is base^(−2i/d)", m * base ** (-i / d_head)),
        Misconception("rope-forgot-position", "forgot the position", "the angle is m·θ_i: it grows with the position",
                      base ** (-2 * i / d_head)),
        Misconception("rope-positive-exponent", "used a positive exponent", "θ_i = base^(−2i/d) shrinks with i",
                      m * base ** (2 * i / d_head)),
    ]
    return Draft(
        prompt=(f"Rotary position embedding (RoPE) rotates pair $i$ (counted from 0) of a query or key at position $m$ by the angle "
                f"$m\\,\\theta_i$ with $\\theta_i = 10000^{{-2i/d}}$. With head dimension $d = {d_head}$, what is the rotation angle, "
                f"in radians, of pair $i = {i}$ at position $m = {m}$? Give it to 3 decimal places."),
        answer=rounded(angle, 3), exact=angle, decimals=3, fmt=decimal(3), misconceptions=wrong,
        solution=[Step("Frequency", f"$$\\theta_{{{i}}} = 10000^{{-{2 * i}/{d_head}}} = {fixed(base ** (-2 * i / d_head), 6)}$$"),
                  Step("Angle", f"$$m\\,\\theta_{{{i}}} = {m} \\cdot {fixed(base ** (-2 * i / d_head), 6)} \\approx {fixed(angle, 6)} \\approx {fixed(angle, 3)}$$"),
                  Step("Why it works", "Rotating $q$ by $m\\theta$ and $k$ by $n\\theta$ makes $q \\cdot k$ depend only on $m - n$.")],
        hints=["Each pair turns at its own frequency; the angle grows linearly with the position.",
               "$m \\cdot 10000^{-2i/d}$", f"$m = {m}$, $2i/d = {2 * i}/{d_head}$"],
    )
