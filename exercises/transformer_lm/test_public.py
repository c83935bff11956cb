"""Visible tests: run `pytest test_public.py` in this folder. The hidden suite checks much more."""

import torch
from torch import nn

from starter import TransformerLM


def small():
    return TransformerLM(vocab_size=50, context_length=8, d_model=16, n_layers=2, n_heads=2, d_ff=64)


def test_submodules_and_logits_shape():
    lm = small()
    assert isinstance(lm.tok_emb, nn.Embedding) and isinstance(lm.pos_emb, nn.Embedding)
    assert isinstance(lm.blocks, nn.ModuleList) and len(lm.blocks) == 2
    assert isinstance(lm.ln_f, nn.LayerNorm) and lm.lm_head.bias is None
    assert lm(torch.randint(50, (3, 5))).shape == (3, 5, 50)


def test_a_state_dict_loads_strictly_into_a_fresh_model():
    lm, other = small(), small()
    other.load_state_dict(lm.state_dict(), strict=True)
    idx = torch.randint(50, (2, 8))
    assert torch.allclose(lm(idx), other(idx))


def test_later_tokens_do_not_change_earlier_logits():
    lm = small().eval()
    idx = torch.randint(50, (1, 6))
    changed = idx.clone()
    changed[0, 4:] = (changed[0, 4:] + 1) % 50
    assert torch.allclose(lm(idx)[:, :4], lm(changed)[:, :4], atol=1e-6)
