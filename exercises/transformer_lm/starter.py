"""Challenge: a decoder-only transformer language model. See README.md."""

import torch
from torch import nn


class TransformerBlock(nn.Module):
    """Your pre-norm block from the transformer_block challenge: paste it here, names unchanged."""

    def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.0):
        super().__init__()
        raise NotImplementedError("create ln1, attn (with W_q, W_k, W_v, W_o), ln2 and ffn")

    def forward(self, x: torch.Tensor, mask: torch.Tensor | None = None) -> torch.Tensor:
        raise NotImplementedError("write the block's forward")


class TransformerLM(nn.Module):
    def __init__(self, vocab_size: int, context_length: int, d_model: int, n_layers: int, n_heads: int,
                 d_ff: int):
        super().__init__()
        raise NotImplementedError("create tok_emb, pos_emb, blocks, ln_f and lm_head")

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """idx (B, T) token ids, T <= context_length -> logits (B, T, vocab_size)."""
        raise NotImplementedError("write forward")
