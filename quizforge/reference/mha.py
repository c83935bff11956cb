"""Multi-head attention with separate W_q, W_k, W_v, W_o; GQA and MQA through n_kv_heads."""

from __future__ import annotations

from torch import Tensor, nn

from quizforge.reference.attention import ScaledDotProductAttention
from quizforge.reference.kv_cache import LayerKVCache
from quizforge.reference.positional import RotaryEmbedding


class MultiHeadAttention(nn.Module):
    """h query heads of width d_head, sharing n_kv_heads key/value heads.

    n_kv_heads = n_heads is standard MHA, 1 is multi-query attention (Shazeer 2019),
    anything in between is grouped-query attention (Ainslie et al. 2023).
    """

    accounting_component = "attention"

    def __init__(self, d_model: int, n_heads: int, n_kv_heads: int | None = None,
                 d_head: int | None = None, bias: bool = True, dropout: float = 0.0,
                 rope: RotaryEmbedding | None = None) -> None:
        super().__init__()
        n_kv_heads = n_heads if n_kv_heads is None else n_kv_heads
        if d_head is None:
            if d_model % n_heads:
                raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
            d_head = d_model // n_heads
        if n_heads % n_kv_heads:
            raise ValueError(f"n_heads={n_heads} is not divisible by n_kv_heads={n_kv_heads}")
        self.n_heads, self.n_kv_heads, self.d_head = n_heads, n_kv_heads, d_head
        self.W_q = nn.Linear(d_model, n_heads * d_head, bias=bias)
        self.W_k = nn.Linear(d_model, n_kv_heads * d_head, bias=bias)
        self.W_v = nn.Linear(d_model, n_kv_heads * d_head, bias=bias)
        self.W_o = nn.Linear(n_heads * d_head, d_model, bias=bias)
        self.attention = ScaledDotProductAttention(dropout)
        self.rope = rope

    def _split(self, x: Tensor, heads: int) -> Tensor:  # (B, n, heads*d_head) -> (B, heads, n, d_head)
        B, n, _ = x.shape
        return x.view(B, n, heads, self.d_head).transpose(1, 2)

    def forward(self, query: Tensor, key: Tensor | None = None, value: Tensor | None = None,
                mask: Tensor | None = None, cache: LayerKVCache | None = None) -> tuple[Tensor, Tensor]:
        """query (B, n_q, d_model), key/value (B, n_k, d_model); self-attention when key is None.

        mask: bool, broadcastable to (B, n_heads, n_q, n_k); True = may attend.
        Unbatched (n, d_model) inputs are accepted too.
        Returns (output (B, n_q, d_model), weights (B, n_heads, n_q, n_k)).
        """
        key = query if key is None else key
        value = key if value is None else value
        unbatched = query.dim() == 2
        if unbatched:
            query, key, value = query[None], key[None], value[None]
        q = self._split(self.W_q(query), self.n_heads)  # (B, h, n_q, d_head)
        k = self._split(self.W_k(key), self.n_kv_heads)  # (B, kv, n_k, d_head)
        v = self._split(self.W_v(value), self.n_kv_heads)
        if self.rope is not None:
            offset = cache.length if cache is not None else 0
            q, k = self.rope(q, offset), self.rope(k, offset)
        if cache is not None:
            k, v = cache.append(k, v)
        group = self.n_heads // self.n_kv_heads
        if group > 1:  # each key/value head serves `group` query heads
            k, v = k.repeat_interleave(group, dim=1), v.repeat_interleave(group, dim=1)
        out, weights = self.attention(q, k, v, mask)  # (B, h, n_q, d_head), (B, h, n_q, n_k)
        B, _, n_q, _ = out.shape
        out = self.W_o(out.transpose(1, 2).reshape(B, n_q, self.n_heads * self.d_head))
        if unbatched:
            return out[0], weights[0]
        return out, weights
