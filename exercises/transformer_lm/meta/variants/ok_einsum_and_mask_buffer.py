"""Correct: attention by einsum, the causal mask kept as a non-persistent buffer and cropped to T."""

import math

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, d_model, n_heads):
        super().__init__()
        self.h = n_heads
        self.W_q, self.W_k, self.W_v, self.W_o = (nn.Linear(d_model, d_model) for _ in range(4))

    def forward(self, x, mask=None):
        B, T, D = x.shape
        q, k, v = (w(x).reshape(B, T, self.h, D // self.h) for w in (self.W_q, self.W_k, self.W_v))
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / math.sqrt(D // self.h)
        if mask is not None:
            scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
        out = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), v)
        return self.W_o(out.reshape(B, T, D))


class TransformerBlock(nn.Module):
    def __init__(self, d_model, n_heads, d_ff, dropout=0.0):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d_model), nn.LayerNorm(d_model)
        self.attn = Attention(d_model, n_heads)
        self.ffn = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model))

    def forward(self, x, mask=None):
        x = x + self.attn(self.ln1(x), mask)
        return x + self.ffn(self.ln2(x))


class TransformerLM(nn.Module):
    def __init__(self, vocab_size, context_length, d_model, n_layers, n_heads, d_ff):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(context_length, d_model)
        self.blocks = nn.ModuleList([TransformerBlock(d_model, n_heads, d_ff) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(d_model)
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)
        causal = torch.tril(torch.ones(context_length, context_length)).bool()
        self.register_buffer("causal", causal, persistent=False)

    def forward(self, idx):
        T = idx.size(1)
        x = self.tok_emb(idx) + self.pos_emb.weight[:T]
        for block in self.blocks:
            x = block(x, self.causal[:T, :T])
        return self.lm_head(self.ln_f(x))
