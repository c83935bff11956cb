"""Positional encoding, the lesson's remaining problems: why it is needed, the wavelengths of
the sinusoids, and the relative-position property (PE(pos + k) is a rotation of PE(pos))."""

from __future__ import annotations

import math

from quizforge.bank.coinciding import merge_coinciding
from quizforge.bank.question import Misconception, Step
from quizforge.answers.rounding import equals, rounded, shown
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import decimal
from quizforge.bank.statement_pools import statement_pool
from quizforge.bank.template import Draft, template


@template("positional.why_needed", topic="positional", kind="MCQ", marks=1, difficulty=1,
          title="Why a Transformer needs positional encoding", light=True)
def why_needed(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    n = s.choice((4, 5, 6, 8))
    lead = s.choice((
        f"A Transformer encoder without any positional encoding reads a sentence of {n} tokens.",
        f"You remove the positional encoding from a Transformer encoder and feed it {n}-token sentences.",
        f"An interviewer asks why the input of a Transformer encoder ({n} tokens here) gets a positional encoding.",
    ))
    statements = statement_pool("why_needed", n=n)
    return Draft(
        prompt=f"{lead} Which ONE of the following statements is CORRECT?",
        statements=statements,
        solution=[Step("Permutation", "Attention computes $\\operatorname{softmax}(QK^\\top/\\sqrt{d_k})V$ from content "
                                      "alone and the FFN acts per token, so permuting the inputs permutes the outputs."),
                  Step("So", "Order must be injected: sinusoidal or learned vectors added to the embeddings, or "
                             "rotations of $q$ and $k$ (RoPE).")],
        hints=["What happens to the output if you shuffle the input tokens?",
               "$\\operatorname{Attn}(PX) = P\\,\\operatorname{Attn}(X)$ for a permutation $P$",
               "There is no recurrence and no convolution in the layer."],
    )


@template("positional.wavelength", topic="positional", kind="NAT", marks=1, difficulty=2,
          title="Wavelength and frequency of a PE sinusoid", light=True)
def wavelength(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d_model = s.choice((64, 128, 256, 512, 1024))
    i = s.integer(1, d_model // 2 - 1)
    ask = s.choice(("wavelength", "wavelength", "ratio"))
    omega = 10000 ** (-2 * i / d_model)
    lam = 2 * math.pi / omega
    if ask == "wavelength":
        exact = lam
        what = (f"the wavelength, in positions, of dimensions $2i = {2 * i}$ and $2i+1 = {2 * i + 1}$ "
                "(the distance after which they repeat)")
        wrong = [
            Misconception("pe-no-2pi", "forgot the 2π", "a sinusoid of angular frequency ω repeats every 2π/ω positions",
                          1 / omega),
            Misconception("pe-i-not-2i", "used i, not 2i, in the exponent", "the exponent is 2i/d_model",
                          2 * math.pi * 10000 ** (i / d_model)),
            Misconception("pe-frequency-for-wavelength", "gave the frequency", "the frequency is 1/wavelength",
                          omega / (2 * math.pi)),
        ]
    else:
        j = s.integer(0, i - 1)
        exact = 10000 ** (2 * (i - j) / d_model)
        what = (f"the ratio of the wavelength of pair $i = {i}$ to that of pair $i = {j}$ "
                f"(pairs are dimensions $2i, 2i+1$)")
        wrong = [
            Misconception("pe-i-not-2i", "used i, not 2i, in the exponent", "the exponent is 2i/d_model",
                          10000 ** ((i - j) / d_model)),
            Misconception("pe-ratio-inverted", "inverted the ratio", "higher pairs have longer wavelengths",
                          10000 ** (-2 * (i - j) / d_model)),
            Misconception("pe-ratio-linear", "assumed wavelengths grow linearly", "they grow geometrically in i",
                          (i + 1) / (j + 1)),
        ]
    key = rounded(exact, 1)
    return Draft(
        prompt=("The sinusoidal encoding uses $PE(pos, 2i) = \\sin(\\omega_i\\, pos)$ and $PE(pos, 2i+1) = "
                f"\\cos(\\omega_i\\, pos)$ with $\\omega_i = 10000^{{-2i/d_{{model}}}}$ and $d_{{model}} = {d_model}$. "
                f"What is {what}? Give it to 1 decimal place."),
        answer=key, exact=exact, decimals=1, fmt=decimal(1), misconceptions=merge_coinciding([m for m in wrong if m.value], decimals=1),
        solution=[Step("Frequency", f"$$\\omega_{{{i}}} = 10000^{{-{2 * i}/{d_model}}} {equals(omega, 6)}$$"),
                  Step("Wavelength", f"$$\\lambda_{{{i}}} = 2\\pi / \\omega_{{{i}}} {equals(lam, 4)}$$"),
                  Step("Asked", f"$${equals(exact, 1)}$$"),
                  Step("Range", "Wavelengths form a geometric progression from $2\\pi$ (pair 0) towards "
                                "$10000 \\cdot 2\\pi$, each pair a factor $10000^{2/d_{model}}$ longer than the last.")],
        hints=["A sinusoid $\\sin(\\omega x)$ repeats every $2\\pi/\\omega$.",
               "$\\lambda_i = 2\\pi \\cdot 10000^{2i/d_{model}}$", f"$2i/d_{{model}} = {2 * i}/{d_model}$"],
    )


@template("positional.relative_shift", topic="positional", kind="NAT", marks=2, difficulty=3,
          title="PE(pos + k) as a rotation of PE(pos)", light=True)
def relative_shift(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    d_model = s.choice((8, 16, 32, 64, 128))
    while True:
        i = s.integer(0, min(d_model // 2 - 1, 3))
        pos, k = s.integer(1, 50), s.integer(1, 12)
        omega = 10000 ** (-2 * i / d_model)
        a, b = omega * pos, omega * k
        sin_a, cos_a = round(math.sin(a), 4), round(math.cos(a), 4)
        which = s.choice(("sin", "cos"))
        # Rotation by k·ω: exact from the printed 4-place values, as a student computes it.
        value = sin_a * math.cos(b) + cos_a * math.sin(b) if which == "sin" else cos_a * math.cos(b) - sin_a * math.sin(b)
        if abs(value) >= 0.02:
            break
    key = rounded(value, 3)
    dim = 2 * i if which == "sin" else 2 * i + 1
    backwards = (sin_a * math.cos(b) - cos_a * math.sin(b) if which == "sin" else cos_a * math.cos(b) + sin_a * math.sin(b))
    no_freq = (sin_a * math.cos(k) + cos_a * math.sin(k) if which == "sin" else cos_a * math.cos(k) - sin_a * math.sin(k))
    wrong = [
        Misconception("pe-rotate-backwards", "rotated the wrong way", "moving forward by k adds kω to the angle",
                      backwards),
        Misconception("pe-shift-no-frequency", "rotated by k, not kω", "pair i turns by ω_i per position",
                      no_freq) if i > 0 else None,
        Misconception("pe-add-encodings", "added PE(k) to PE(pos)", "PE is not linear in the position; the shift is a rotation",
                      (sin_a + math.sin(b)) if which == "sin" else (cos_a + math.cos(b))),
    ]
    return Draft(
        prompt=(f"With the sinusoidal encoding ($d_{{model}} = {d_model}$, $\\omega_i = 10000^{{-2i/d_{{model}}}}$), "
                f"pair $i = {i}$ at some position $pos$ is $(PE(pos, {2 * i}), PE(pos, {2 * i + 1})) = ({sin_a:.4f}, {cos_a:.4f})$. "
                f"Using only that PE(pos + k) is a rotation of PE(pos) by the angle $k\\,\\omega_i$, what is "
                f"$PE(pos + {k}, {dim})$? Give it to 3 decimal places."),
        answer=key, exact=value, decimals=3, fmt=decimal(3), misconceptions=merge_coinciding(wrong, decimals=3),
        solution=[Step("Angle of the shift", f"$$k\\,\\omega_{{{i}}} = {k} \\cdot {shown(omega, 6)} {equals(b, 6)}$$"),
                  Step("Rotation", "$\\sin(a + b) = \\sin a \\cos b + \\cos a \\sin b$, "
                                   "$\\cos(a + b) = \\cos a \\cos b - \\sin a \\sin b$: a fixed 2 × 2 rotation that "
                                   "depends on $k$ only, not on $pos$"),
                  Step("Value", f"$${shown(value, 6)} {equals(value, 3)}$$")],
        hints=["Write the pair as $(\\sin a, \\cos a)$ with $a = \\omega_i\\,pos$.",
               "angle-addition formulas with $b = k\\,\\omega_i$", f"$b = {k} \\cdot 10000^{{-{2 * i}/{d_model}}}$"],
    )
