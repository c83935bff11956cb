"""The reference transformer's pieces that hidden suites compute expected values with (in the
judge, never in the worker). A suite imports only the suites' API, quizforge.challenges, so
these are named here rather than imported from quizforge.reference by each suite."""

from __future__ import annotations

from quizforge.reference.attention import causal_mask, scaled_dot_product_attention
from quizforge.reference.mha import MultiHeadAttention
from quizforge.reference.positional import sinusoidal_table

__all__ = ["MultiHeadAttention", "causal_mask", "scaled_dot_product_attention", "sinusoidal_table"]
