"""A key/value cache for autoregressive decoding.

Only the n_kv_heads key and value heads are stored, which is where multi-query
and grouped-query attention save memory.
"""

from __future__ import annotations

import torch
from torch import Tensor


class LayerKVCache:
    """Keys and values seen so far by one layer's self-attention: (B, n_kv_heads, n, d_head) each."""

    def __init__(self, dtype: torch.dtype | None = None) -> None:
        self.dtype = dtype
        self.k: Tensor | None = None
        self.v: Tensor | None = None

    @property
    def length(self) -> int:
        return 0 if self.k is None else self.k.shape[-2]

    def append(self, k: Tensor, v: Tensor) -> tuple[Tensor, Tensor]:
        """Store the new positions; return all cached keys and values in the compute dtype."""
        store = self.dtype or k.dtype
        if not store.is_floating_point and k.device.type != "meta":
            raise ValueError(f"a {store} KV cache needs quantization scales; it is modelled on 'meta' only")
        k_new, v_new = k.to(store), v.to(store)
        self.k = k_new if self.k is None else torch.cat((self.k, k_new), dim=-2)
        self.v = v_new if self.v is None else torch.cat((self.v, v_new), dim=-2)
        return self.k.to(k.dtype), self.v.to(v.dtype)

    @property
    def nbytes(self) -> int:
        return sum(t.numel() * t.element_size() for t in (self.k, self.v) if t is not None)


class KVCache:
    """One `LayerKVCache` per decoder layer."""

    def __init__(self, n_layers: int, dtype: torch.dtype | None = None) -> None:
        self.layers = [LayerKVCache(dtype) for _ in range(n_layers)]

    def __getitem__(self, i: int) -> LayerKVCache:
        return self.layers[i]

    @property
    def length(self) -> int:
        return self.layers[0].length if self.layers else 0

    @property
    def nbytes(self) -> int:
        return sum(layer.nbytes for layer in self.layers)
