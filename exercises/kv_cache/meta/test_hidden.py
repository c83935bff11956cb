"""Hidden suite for `CachedCausalSelfAttention(d_model, n_heads)`.

forward(x, cache=None) -> (out, cache): x holds the next T_new tokens; cache, whatever the
submission returned last time (plain tensors), holds the keys and values of the tokens
before them. Feeding a sequence in chunks of any sizes must give the outputs of one causal
pass over the whole sequence, which the reference below computes in float64.
"""

from __future__ import annotations

import math

import pytest
import torch

from quizforge.challenges import checks

NAME = "CachedCausalSelfAttention"
ATOL, RTOL = 1e-5, 1e-4
PROJECTIONS = ("W_q", "W_k", "W_v", "W_o")


def random_state(seed, d_model):
    gen = checks.seeded(seed)
    state = {}
    for name in PROJECTIONS:
        state[f"{name}.weight"] = checks.randn(gen, d_model, d_model, scale=d_model ** -0.5)
        state[f"{name}.bias"] = checks.randn(gen, d_model, scale=0.1)
    return state


def attend(state, x, n_heads, chunks=None, *, causal_within="yes", keep_cache=True):
    """Outputs for x fed in `chunks` (sizes), the reference or one of the classic mistakes."""
    s = {k: v.double() for k, v in state.items()}
    x = x.double()
    B, T, d = x.shape
    dh = d // n_heads
    lin = lambda name, t: t @ s[f"{name}.weight"].T + s[f"{name}.bias"]  # noqa: E731
    split = lambda t: t.view(B, -1, n_heads, dh).transpose(1, 2)  # noqa: E731
    outs, past_k, past_v, start = [], None, None, 0
    for size in chunks or [T]:
        part = x[:, start:start + size]
        q, k, v = split(lin("W_q", part)), split(lin("W_k", part)), split(lin("W_v", part))
        if past_k is not None and keep_cache:
            k, v = torch.cat((past_k, k), dim=2), torch.cat((past_v, v), dim=2)
        n_k = k.shape[2]
        scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
        if causal_within == "yes":
            allowed = torch.ones(size, n_k, dtype=torch.bool).tril(n_k - size)
        elif causal_within == "no_offset":
            allowed = torch.ones(size, n_k, dtype=torch.bool).tril()
        else:
            allowed = torch.ones(size, n_k, dtype=torch.bool)
        scores = scores.masked_fill(~allowed, float("-inf"))
        heads = torch.softmax(scores, dim=-1) @ v
        outs.append(lin("W_o", heads.transpose(1, 2).reshape(B, size, d)))
        past_k, past_v, start = k, v, start + size
    return torch.cat(outs, dim=1)


def known_mistakes(state, x, n_heads, chunks):
    return [
        ("a chunk of several new tokens is not masked causally: within the chunk, token i may not see the "
         "new tokens after it", attend(state, x, n_heads, chunks, causal_within="none")),
        ("the causal mask ignores the cached tokens: new token i sits at position len(cache) + i, so it may "
         "see every cached key and the new ones up to itself", attend(state, x, n_heads, chunks,
                                                                        causal_within="no_offset")),
        ("the cache is not used: the keys and values of earlier calls must be concatenated before the new ones",
         attend(state, x, n_heads, chunks, keep_cache=False)),
    ]


def feed(submission, d_model, n_heads, state, x, chunks):
    """The submission's outputs for x fed in chunks, passing back the cache it returns."""
    module = checks.construct(submission, NAME, d_model, n_heads)
    checks.load_parameters(module, NAME, state)
    cache, outs, start = None, [], 0
    for size in chunks:
        part = x[:, start:start + size]
        kwargs = {} if cache is None else {"cache": cache}
        result = checks.forward(module, NAME, part, **kwargs, hint="return (out, cache)")
        out, cache = checks.expect_pair(result, f"{NAME}.forward(x, cache)")
        outs.append(checks.expect_tensor(out, "your output", shape=part.shape, dtype=part.dtype))
        start += size
    return torch.cat(outs, dim=1)


def check(submission, chunks, *, seed, d_model=8, n_heads=2, batch=2, hint=""):
    state = random_state(seed, d_model)
    x = checks.randn(checks.seeded(seed + 1), batch, sum(chunks), d_model)
    out = feed(submission, d_model, n_heads, state, x, chunks)
    checks.assert_values(out, attend(state, x, n_heads), what="your outputs", atol=ATOL, rtol=RTOL, hint=hint,
                         mistakes=known_mistakes(state, x, n_heads, chunks))
    return state, x, out


def test_one_pass_is_causal_attention(submission):
    check(submission, [6], seed=10, hint="token i attends to tokens 0..i")


def test_token_by_token_matches_one_pass(submission):
    check(submission, [1] * 6, seed=20, hint="each call's keys and values join the cache")


CHUNKS = {"3-2-4": [3, 2, 4], "1-5": [1, 5], "4-1-1": [4, 1, 1], "2-2-2-2": [2, 2, 2, 2]}


@pytest.mark.parametrize("chunks", CHUNKS.values(), ids=CHUNKS.keys())
def test_chunks_of_any_size(submission, chunks):
    check(submission, chunks, seed=30 + len(chunks))


def test_more_heads(submission):
    check(submission, [2, 3], seed=40, d_model=16, n_heads=4)


def test_future_tokens_change_nothing(submission):
    state, x, out = check(submission, [3, 3], seed=50)
    changed = x.clone()
    changed[:, 4:] += checks.randn(checks.seeded(52), 2, 2, 8)
    again = feed(submission, 8, 2, state, changed, [3, 3])
    checks.assert_values(again[:, :4], out[:, :4], what="the outputs before the changed tokens", atol=ATOL,
                         rtol=RTOL, hint="a token may not attend to the tokens after it")


def test_a_fresh_cache_starts_over(submission):
    # Two sequences through one module: the second, fed with cache=None, must not see the first.
    state = random_state(60, 8)
    module = checks.construct(submission, NAME, 8, 2)
    checks.load_parameters(module, NAME, state)
    first = checks.randn(checks.seeded(61), 1, 4, 8)
    second = checks.randn(checks.seeded(62), 1, 3, 8)
    checks.forward(module, NAME, first)
    out, _ = checks.expect_pair(checks.forward(module, NAME, second), f"{NAME}.forward(x)")
    out = checks.expect_tensor(out, "your output", shape=second.shape, dtype=second.dtype)
    checks.assert_values(out, attend(state, second, 2), what="your output for a new sequence", atol=ATOL, rtol=RTOL,
                         hint="keep the cache only in what forward returns, not in the module")


def test_parameters(submission):
    module = checks.construct(submission, NAME, 8, 2)
    shapes = checks.attempt(f"{NAME}(8, 2).named_parameters()", module.parameter_shapes)
    expected = {f"{n}.{k}": ([8, 8] if k == "weight" else [8]) for n in PROJECTIONS for k in ("weight", "bias")}
    assert {k: list(v) for k, v in shapes.items()} == expected, (
        f"{NAME}(8, 2) should have four nn.Linear(8, 8) named {', '.join(PROJECTIONS)}; it has {shapes}")
