"""Hidden suite for `generate(model, idx, max_new_tokens, temperature=1.0, top_k=None, generator=None)`.

The model is built in the worker from a description (quizforge/challenges/models.py):
its logits for the next token depend on the last token alone, through a table, and it
refuses a context longer than its block_size. With a seeded generator crossing the wire
by its state, the submission's samples must be exactly the reference's; a different
sequence that matches a classic mistake (greedy decoding, temperature after the softmax,
top-k keeping k + 1, the first position's logits) is named.
"""

from __future__ import annotations

import torch

from quizforge.challenges import checks
from quizforge.challenges.models import TableLM

NAME = "generate"
VOCAB = 10


def table(seed, scale=2.0):
    return checks.randn(checks.seeded(seed), VOCAB, VOCAB, scale=scale)


def sampler(seed: int) -> torch.Generator:
    """The generator handed to generate(): its state, like every input, comes from the grading's seed."""
    return checks.seeded(f"sampling {seed}")


def spec(logits, block_size=None):
    found = {"kind": "table", "table": logits}
    if block_size is not None:
        found["block_size"] = block_size
    return found


def reference(logits, idx, n, temperature=1.0, top_k=None, seed=0, block_size=None, *, position=-1,
              temperature_after=False, extra_k=0, greedy=False):
    model = TableLM(logits, block_size)
    gen = sampler(seed)
    for _ in range(n):
        context = idx if block_size is None else idx[:, -block_size:]
        step = model(context)[:, position, :]
        if not temperature_after:
            step = step / temperature
        if top_k is not None:
            kth = torch.topk(step, min(top_k + extra_k, VOCAB), dim=-1).values[:, -1:]
            step = step.masked_fill(step < kth, float("-inf"))
        probs = torch.softmax(step, dim=-1)
        if temperature_after:
            probs = probs / temperature
        nxt = probs.argmax(dim=-1, keepdim=True) if greedy else torch.multinomial(probs, 1, generator=gen)
        idx = torch.cat((idx, nxt), dim=1)
    return idx


def known_mistakes(logits, idx, n, temperature, top_k, seed, block_size):
    args = (logits, idx, n, temperature, top_k, seed, block_size)
    found = [
        ("the tokens are chosen greedily (argmax): sample them with torch.multinomial(probs, 1, generator=generator)",
         reference(*args, greedy=True)),
        ("the logits of the first position are used: the next token comes from the last position, logits[:, -1, :]",
         reference(*args, position=0)),
    ]
    if temperature != 1.0:
        found.append(("the temperature is applied after the softmax, where it changes nothing once probabilities "
                      "are normalised: divide the logits by it before the softmax",
                      reference(*args, temperature_after=True)))
    if top_k is not None:
        found.append((f"top_k={top_k} keeps {top_k + 1} tokens: keep exactly the k largest logits",
                      reference(*args, extra_k=1)))
    return found


def run(submission, logits, idx, n, *, temperature=None, top_k=None, seed=0, block_size=None):
    kwargs = {"generator": sampler(seed)}
    if temperature is not None:
        kwargs["temperature"] = temperature
    if top_k is not None:
        kwargs["top_k"] = top_k
    shown = checks.describe_call(NAME, "model", idx, n, **kwargs)
    answer = checks.attempt(shown, submission.call_with_model, NAME, spec(logits, block_size), idx, n, **kwargs)
    out = checks.expect_tensor(answer["value"], "your tokens", shape=(idx.shape[0], idx.shape[1] + n),
                               dtype=torch.long)
    return out, answer["calls"]


def check(submission, logits, idx, n, *, temperature=None, top_k=None, seed=0, block_size=None, hint=""):
    out, calls = run(submission, logits, idx, n, temperature=temperature, top_k=top_k, seed=seed,
                     block_size=block_size)
    assert torch.equal(out[:, :idx.shape[1]], idx), "the prompt must come back unchanged at the start of the output"
    t = 1.0 if temperature is None else temperature
    expected = reference(logits, idx, n, t, top_k, seed, block_size)
    if torch.equal(out, expected):
        return out, calls
    for description, wrong in known_mistakes(logits, idx, n, t, top_k, seed, block_size):
        if not torch.equal(wrong, expected) and torch.equal(out, wrong):
            raise AssertionError(f"your tokens: {description}")
    step = int((out != expected).any(dim=0).nonzero()[0])
    raise AssertionError(f"your tokens differ from the reference's from position {step} on, with the same seeded "
                         "generator" + (f" — {hint}" if hint else ""))


def prompt(seed, batch=3, length=2):
    return torch.randint(VOCAB, (batch, length), generator=checks.seeded(seed))


def test_returns_the_prompt_and_the_new_tokens(submission):
    out, _ = run(submission, table(1), prompt(1), 4)
    assert torch.equal(out[:, :2], prompt(1))


def test_exact_samples_under_a_seed(submission):
    check(submission, table(2), prompt(2), 6, hint="divide the last position's logits by the temperature, "
          "softmax, then torch.multinomial(probs, 1, generator=generator)")


def test_temperature(submission):
    check(submission, table(3), prompt(3), 6, temperature=0.5)


def test_high_temperature(submission):
    check(submission, table(4), prompt(4), 6, temperature=3.0)


def test_top_k(submission):
    check(submission, table(5), prompt(5), 6, top_k=3)


def test_top_k_of_one_is_greedy(submission):
    logits = table(6)
    out, _ = check(submission, logits, prompt(6), 5, top_k=1)
    assert torch.equal(out, reference(logits, prompt(6), 5, greedy=True))


def test_crops_to_block_size(submission):
    long_prompt = prompt(7, length=6)
    _, calls = check(submission, table(7), long_prompt, 4, block_size=4,
                     hint="give the model only the last model.block_size tokens")
    assert calls and all(shape[1] <= 4 for shape in calls), (
        f"the model was called with contexts of {sorted({s[1] for s in calls})} tokens; its block_size is 4")


def test_a_model_without_block_size_sees_everything(submission):
    check(submission, table(8), prompt(8, length=12), 3)


def test_zero_new_tokens(submission):
    out, _ = run(submission, table(9), prompt(9), 0)
    assert torch.equal(out, prompt(9))


def test_the_generator_decides_the_samples(submission):
    first, _ = run(submission, table(10), prompt(10), 8, seed=123)
    again, _ = run(submission, table(10), prompt(10), 8, seed=123)
    assert torch.equal(first, again), ("two runs with the same seeded generator gave different tokens: pass "
                                       "generator=generator to torch.multinomial")


def test_distribution(submission):
    # 4000 one-token continuations of one prompt: their frequencies follow softmax(logits / T).
    logits = table(11, scale=1.0)
    token = checks.integer(checks.seeded(12), 0, VOCAB - 1)
    start = torch.full((4000, 1), token, dtype=torch.long)
    out, _ = run(submission, logits, start, 1, temperature=0.7, seed=5)
    counts = torch.bincount(out[:, 1], minlength=VOCAB).double() / 4000
    expected = torch.softmax(logits[token].double() / 0.7, dim=-1)
    # Five standard deviations of each frequency (plus a little): an honest sampler fails about once in
    # a million gradings, whatever the seed; a wrong temperature is off by far more.
    allowed = 0.005 + 5 * (expected * (1 - expected) / 4000).sqrt()
    worst = float((counts - expected).abs().max())
    assert bool(((counts - expected).abs() <= allowed).all()), (
        f"the sampled frequencies differ from softmax(logits / temperature) by up to {worst:.3f}; "
        "sample from the probabilities, with the temperature applied to the logits")
