import torch


def scaled_dot_product_attention(Q, K, V, mask=None):
    Q = Q * Q.shape[-1] ** -0.5
    scores = torch.matmul(Q, K.transpose(-1, -2))
    if mask is not None:
        scores = torch.where(mask, scores, torch.tensor(float("-inf"), dtype=scores.dtype))
    weights = torch.nn.functional.softmax(scores, dim=-1)
    return torch.matmul(weights, V), weights
