"""Hidden suite for `TransformerLM(vocab_size, context_length, d_model, n_layers, n_heads, d_ff)`:

    x = tok_emb(idx) + pos_emb(0 … T−1);  x = block(x, causal mask) for each block;  lm_head(ln_f(x))

with the pre-norm TransformerBlock of the transformer_block challenge. A state dict of seeded
values is loaded with strict=True (so every name and shape must match), then the logits are
compared in float64 with the reference below, on full and truncated inputs. A missing causal
mask, missing position embeddings, a skipped ln_f and a post-norm block are named.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from quizforge.challenges import checks

NAME = "TransformerLM"
ATOL, RTOL = 1e-4, 1e-3
PROJECTIONS = ("W_q", "W_k", "W_v", "W_o")
STRICT_HINT = ("the names and shapes must be exactly those of the README, with no other parameter or "
               "persistent buffer")
LENGTH_HINT = "positions and the causal mask follow the input's length T, not context_length"


def expected_shapes(vocab, ctx, d_model, n_layers, d_ff):
    shapes = {"tok_emb.weight": [vocab, d_model], "pos_emb.weight": [ctx, d_model]}
    for i in range(n_layers):
        b = f"blocks.{i}"
        for ln in ("ln1", "ln2"):
            shapes[f"{b}.{ln}.weight"] = [d_model]
            shapes[f"{b}.{ln}.bias"] = [d_model]
        for p in PROJECTIONS:
            shapes[f"{b}.attn.{p}.weight"] = [d_model, d_model]
            shapes[f"{b}.attn.{p}.bias"] = [d_model]
        shapes.update({f"{b}.ffn.0.weight": [d_ff, d_model], f"{b}.ffn.0.bias": [d_ff],
                       f"{b}.ffn.2.weight": [d_model, d_ff], f"{b}.ffn.2.bias": [d_model]})
    shapes.update({"ln_f.weight": [d_model], "ln_f.bias": [d_model], "lm_head.weight": [vocab, d_model]})
    return shapes


def random_state(stream, shapes):
    gen = checks.seeded(stream)
    state = {}
    for name, shape in shapes.items():
        if name.endswith("emb.weight"):
            state[name] = checks.randn(gen, *shape, scale=0.5)
        elif ".ln" in name or name.startswith("ln_f"):
            state[name] = (1 if name.endswith("weight") else 0) + checks.randn(gen, *shape, scale=0.1)
        elif name.endswith("bias"):
            state[name] = checks.randn(gen, *shape, scale=0.1)
        else:
            state[name] = checks.randn(gen, *shape, scale=shape[1] ** -0.5)
    return state


def language_model(state, idx, n_layers, n_heads, *, causal=True, positions=True, final_norm=True, norm="pre"):
    """The reference logits in float64; the switches reproduce the classic mistakes."""
    s = {k: v.double() for k, v in state.items()}
    B, T = idx.shape
    d = s["tok_emb.weight"].shape[1]
    dh = d // n_heads
    x = s["tok_emb.weight"][idx] + (s["pos_emb.weight"][:T] if positions else 0)
    mask = torch.ones(T, T, dtype=torch.bool).tril() if causal else None
    for i in range(n_layers):
        lin = lambda name, t: t @ s[f"blocks.{i}.{name}.weight"].T + s[f"blocks.{i}.{name}.bias"]  # noqa: E731
        ln = lambda name, t: F.layer_norm(t, (d,), s[f"blocks.{i}.{name}.weight"],  # noqa: E731
                                          s[f"blocks.{i}.{name}.bias"], 1e-5)

        def attn(t):
            split = lambda u: u.view(B, T, n_heads, dh).transpose(1, 2)  # noqa: E731
            q, k, v = split(lin("attn.W_q", t)), split(lin("attn.W_k", t)), split(lin("attn.W_v", t))
            scores = q @ k.transpose(-2, -1) / math.sqrt(dh)
            if mask is not None:
                scores = scores.masked_fill(~mask, float("-inf"))
            return lin("attn.W_o", (torch.softmax(scores, -1) @ v).transpose(1, 2).reshape(B, T, d))

        def ffn(t):
            return lin("ffn.2", F.gelu(lin("ffn.0", t)))

        if norm == "pre":
            x = x + attn(ln("ln1", x))
            x = x + ffn(ln("ln2", x))
        else:
            x = ln("ln1", x + attn(x))
            x = ln("ln2", x + ffn(x))
    if final_norm:
        x = F.layer_norm(x, (d,), s["ln_f.weight"], s["ln_f.bias"], 1e-5)
    return x @ s["lm_head.weight"].T


def known_mistakes(state, idx, n_layers, n_heads):
    return [
        ("there is no causal mask: a token may attend only to itself and the tokens before it",
         language_model(state, idx, n_layers, n_heads, causal=False)),
        ("the position embeddings are not added: x = tok_emb(idx) + pos_emb(arange(T))",
         language_model(state, idx, n_layers, n_heads, positions=False)),
        ("ln_f is not applied: the logits are lm_head(ln_f(x))",
         language_model(state, idx, n_layers, n_heads, final_norm=False)),
        ("the blocks are post-norm (LayerNorm after each residual sum): they are the pre-norm blocks of the "
         "transformer_block challenge", language_model(state, idx, n_layers, n_heads, norm="post")),
    ]


CONFIG = (40, 8, 16, 2, 2, 32)  # vocab_size, context_length, d_model, n_layers, n_heads, d_ff


def loaded(submission, stream, config=CONFIG):
    vocab, ctx, d_model, n_layers, n_heads, d_ff = config
    module = checks.construct(submission, NAME, *config)
    state = random_state(stream, expected_shapes(vocab, ctx, d_model, n_layers, d_ff))
    checks.attempt(f"{NAME}{config}.load_state_dict(reference state, strict=True)", module.load_state_dict,
                   state, strict=True, hint=STRICT_HINT)
    return module, state


def check_logits(submission, stream, *, config=CONFIG, batch=2, length=None, hint=""):
    vocab, ctx, d_model, n_layers, n_heads, d_ff = config
    module, state = loaded(submission, stream, config)
    T = ctx if length is None else length
    idx = torch.randint(vocab, (batch, T), generator=checks.seeded(stream + 1))
    out = checks.first_output(checks.forward(module, NAME, idx, hint=hint))
    try:
        out = checks.expect_tensor(out, "your logits", shape=[batch, T, vocab], dtype=torch.float32)
    except AssertionError as exc:
        raise AssertionError(f"{exc}" + (f" — {hint}" if hint else "")) from None
    checks.assert_values(out, language_model(state, idx, n_layers, n_heads), what="your logits", atol=ATOL,
                         rtol=RTOL, hint=hint, mistakes=known_mistakes(state, idx, n_layers, n_heads))
    return module, state, idx


def test_parameters(submission):
    module = checks.construct(submission, NAME, *CONFIG)
    got = checks.attempt(f"{NAME}{CONFIG}.named_parameters()", module.parameter_shapes)
    got = {k: list(v) for k, v in got.items()}
    vocab, ctx, d_model, n_layers, _, d_ff = CONFIG
    expected = expected_shapes(vocab, ctx, d_model, n_layers, d_ff)
    missing, extra = sorted(set(expected) - set(got)), sorted(set(got) - set(expected))
    wrong = sorted(k for k in set(got) & set(expected) if got[k] != expected[k])
    assert not (missing or extra or wrong), (
        f"{NAME}{CONFIG} parameters: missing {missing[:6] or 'none'}, unexpected {extra[:6] or 'none'}, "
        f"wrong shape {wrong[:6] or 'none'} (see the README for the names)")


def test_submodules(submission):
    module = checks.construct(submission, NAME, *CONFIG)
    types = checks.attempt(f"{NAME}{CONFIG}.named_modules()", module.submodule_types)
    nn_ = "torch.nn.modules"
    expected = {"tok_emb": f"{nn_}.sparse.Embedding", "pos_emb": f"{nn_}.sparse.Embedding",
                "blocks": f"{nn_}.container.ModuleList", "ln_f": f"{nn_}.normalization.LayerNorm",
                "lm_head": f"{nn_}.linear.Linear"}
    for i in range(CONFIG[3]):
        expected.update({f"blocks.{i}.ln1": f"{nn_}.normalization.LayerNorm",
                         f"blocks.{i}.ln2": f"{nn_}.normalization.LayerNorm",
                         f"blocks.{i}.ffn.1": f"{nn_}.activation.GELU",
                         **{f"blocks.{i}.attn.{p}": f"{nn_}.linear.Linear" for p in PROJECTIONS}})
    wrong = {k: types.get(k) for k, v in expected.items() if types.get(k) != v}
    assert not wrong, f"these submodules are not what the README asks for: {wrong}"


def test_loads_a_reference_state_dict_strictly(submission):
    loaded(submission, 10)


def test_logits(submission):
    check_logits(submission, 20)


@pytest.mark.parametrize("length", ["one", "half", "all_but_one"])
def test_truncated_inputs(submission, length):
    T = {"one": 1, "half": CONFIG[1] // 2, "all_but_one": CONFIG[1] - 1}[length]
    check_logits(submission, 30, length=T, hint=LENGTH_HINT)


CONFIGS = {"one_layer": (30, 6, 8, 1, 1, 16), "four_heads": (64, 10, 16, 3, 4, 48)}


@pytest.mark.parametrize("config", CONFIGS.values(), ids=CONFIGS.keys())
def test_other_sizes(submission, config):
    check_logits(submission, 40 + config[3], config=config, batch=3)


def test_later_tokens_change_no_earlier_logit(submission):
    module, state, idx = check_logits(submission, 50)
    cut = checks.integer(checks.seeded(51), 1, CONFIG[1] - 1)
    changed = idx.clone()
    changed[:, cut:] = (changed[:, cut:] + 1) % CONFIG[0]
    before = checks.expect_tensor(checks.first_output(checks.forward(module, NAME, idx)), "your logits",
                                  shape=[*idx.shape, CONFIG[0]], dtype=torch.float32)
    after = checks.expect_tensor(checks.first_output(checks.forward(module, NAME, changed)), "your logits",
                                 shape=[*idx.shape, CONFIG[0]], dtype=torch.float32)
    checks.assert_values(after[:, :cut], before[:, :cut], what="the logits before the changed tokens", atol=ATOL,
                         rtol=RTOL, hint="under a causal mask a token may not see the tokens after it")


def test_gradients(submission):
    module, state, idx = check_logits(submission, 60, batch=1)
    vocab, ctx, d_model, n_layers, n_heads, d_ff = CONFIG
    grad_output = checks.randn(checks.seeded(61), 1, ctx, vocab)
    params = {k: v.double().requires_grad_(True) for k, v in state.items()}
    language_model(params, idx, n_layers, n_heads).backward(grad_output.double())
    result = checks.attempt(f"backpropagating through {NAME}.forward", module.backward, [idx], grad_output)
    for name in ("tok_emb.weight", "pos_emb.weight", "blocks.0.attn.W_q.weight", "ln_f.weight", "lm_head.weight"):
        checks.assert_gradient(result["params"].get(name), params[name].grad, wrt=name, dtype=torch.float32,
                               atol=1e-4, rtol=1e-3)
