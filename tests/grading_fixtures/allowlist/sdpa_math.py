# Attack (issue #20, item 3): the unfused SDPA kernel, which returns the output and the weights.
import torch


def scaled_dot_product_attention(Q, K, V, mask=None):
    return torch._scaled_dot_product_attention_math(Q, K, V, attn_mask=mask)
