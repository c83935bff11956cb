"""LayerNorm by hand: the mean, the variance and a normalized entry, with gain γ and bias β."""

from __future__ import annotations

import math

from quizforge.bank.coinciding import merge_coinciding
from quizforge.bank.question import Misconception, Step
from quizforge.answers.rounding import equals, rounded, shown
from quizforge.bank.seeds import SeedChain
from quizforge.bank.steps import decimal
from quizforge.bank.template import Draft, template


def _reference(x: list[int], gamma: float, beta: float, j: int, ask: str) -> float:
    """The asked figure from torch: the reference LayerNorm's output entry (ε = 0, float64),
    or the mean and biased variance it normalizes with."""
    import torch

    from quizforge.reference.norms import LayerNorm

    t = torch.tensor([x], dtype=torch.float64)
    if ask == "mean":
        return t.mean().item()
    if ask == "variance":
        return t.var(unbiased=False).item()
    norm = LayerNorm(len(x), eps=0.0).double()
    with torch.no_grad():
        norm.weight.fill_(gamma)
        norm.bias.fill_(beta)
        return norm(t)[0, j].item()


@template("norms.layernorm", topic="norms", kind="NAT", marks=2, difficulty=2, title="LayerNorm by hand", light=True)
def layernorm(chain: SeedChain) -> Draft:
    s = chain.stream("params")
    while True:
        d = s.integer(4, 6)
        x = [s.integer(-4, 8) for _ in range(d)]
        gamma = s.choice((1, 2, 0.5, 1.5, 3))
        beta = s.choice((0, 0, 1, -1, 0.5))
        ask = s.choice(("mean", "variance", "output", "output"))
        j = s.integer(0, d - 1)
        mean = sum(x) / d
        var = sum((v - mean) ** 2 for v in x) / d
        if var == 0:
            continue
        z = (x[j] - mean) / math.sqrt(var)
        y = gamma * z + beta
        key = rounded({"mean": mean, "variance": var, "output": y}[ask], 2)
        if abs(key) >= 0.05:
            break
    unbiased = var * d / (d - 1)
    if ask == "mean":
        what, wrong = "the mean $\\mu$", [
            Misconception("ln-mean-of-squares", "averaged the squares", "the mean averages the entries themselves",
                          sum(v * v for v in x) / d),
            Misconception("ln-divided-by-d-minus-1", "divided by d − 1", "the mean divides the sum by d",
                          sum(x) / (d - 1)),
        ]
    elif ask == "variance":
        what, wrong = "the variance $\\sigma^2$ that LayerNorm uses", [
            Misconception("ln-unbiased-variance", "used the unbiased variance", "LayerNorm divides by d, not d − 1",
                          unbiased),
            Misconception("ln-std-for-variance", "gave the standard deviation", "σ² is the square of σ",
                          math.sqrt(var)),
            Misconception("ln-no-centering", "forgot to subtract the mean", "the variance is of x − μ",
                          sum(v * v for v in x) / d),
        ]
    else:
        what, wrong = f"the output entry $y_{{{j + 1}}}$", [
            Misconception("ln-forgot-affine", "forgot γ and β", "the normalized value is then scaled by γ and shifted by β",
                          z) if (gamma, beta) != (1, 0) else None,
            Misconception("ln-unbiased-variance", "used the unbiased variance", "LayerNorm divides by d, not d − 1",
                          gamma * (x[j] - mean) / math.sqrt(unbiased) + beta),
            Misconception("ln-divided-by-variance", "divided by σ², not σ", "normalizing divides by the standard deviation",
                          gamma * (x[j] - mean) / var + beta),
            Misconception("ln-beta-before-gamma", "added β before scaling by γ", "y = γ·x̂ + β",
                          gamma * (z + beta)) if beta and gamma != 1 else None,
        ]
    affine = f"$\\gamma = {gamma}$ and $\\beta = {beta}$ for every dimension"
    return Draft(
        prompt=(f"A LayerNorm over $d = {d}$ features receives $x = ({', '.join(map(str, x))})$. It computes "
                "$y = \\gamma \\cdot (x - \\mu)/\\sqrt{\\sigma^2 + \\epsilon} + \\beta$ with $\\mu$ and $\\sigma^2$ the mean and "
                f"variance over the features (dividing by $d$), $\\epsilon = 0$, and {affine}. "
                f"What is {what}? Give it to 2 decimal places."),
        answer=key, exact={'mean': mean, 'variance': var, 'output': y}[ask], decimals=2, fmt=decimal(2), misconceptions=merge_coinciding(wrong, decimals=2),
        verify=lambda: rounded(_reference(x, gamma, beta, j, ask), 2),
        solution=[Step("Mean", f"$$\\mu = \\frac{{{' + '.join(map(str, x))}}}{{{d}}} {equals(mean, 4)}$$"),
                  Step("Variance", f"$$\\sigma^2 = \\frac{{1}}{{{d}}}\\sum_i (x_i - \\mu)^2 {equals(var, 4)}$$"),
                  Step("Normalize", f"$$\\hat x_{{{j + 1}}} = ({x[j]} - {shown(mean, 4)}) / \\sqrt{{{shown(var, 4)}}} {equals(z, 4)}$$"),
                  Step("Scale and shift", f"$$y_{{{j + 1}}} = {gamma} \\cdot {shown(z, 4)} {'+' if beta >= 0 else '-'} {abs(beta)} {equals(y, 4)}$$"),
                  Step("Asked", f"$${equals({'mean': mean, 'variance': var, 'output': y}[ask], 2)}$$")],
        hints=["Mean first, then the mean squared deviation (divide by d).",
               "$y = \\gamma (x - \\mu)/\\sigma + \\beta$", f"$\\mu {equals(mean, 4)}$"],
    )
