"""The GATE DA syllabus topics each template exercises.

GATE DA names multi-layer perceptrons and feed-forward networks but not attention; most of the
bank still drills syllabus skills (matrix products, softmax as a probability distribution,
exponentials and logarithms, counting a network's weights) in a transformer setting. A template
with no tag here is beyond the syllabus. Torch-free and sympy-free: `quiz bank list` reads it.
"""

from __future__ import annotations

# Tag: the syllabus section and topic it stands for.
GATE_DA = {
    "matrices": "Linear Algebra: matrices and their products",
    "probability": "Probability and Statistics: distributions, mean, variance",
    "functions": "Calculus: functions of one variable (exp, log, sin, cos)",
    "mlp": "Machine Learning: multi-layer perceptron, feed-forward neural network",
}

_TAGS: dict[str, tuple[str, ...]] = {
    "dims.d_k": (), "dims.gqa_groups": (), "dims.head_split": (), "dims.shapes": ("matrices",),
    "params.projections": ("mlp", "matrices"), "params.ffn": ("mlp",), "params.norms": (), "params.gqa": (),
    "params.encoder_layer": ("mlp",), "params.decoder_layer": ("mlp",), "params.embeddings": (),
    "params.model": ("mlp",), "params.scaled_model": ("mlp",), "params.small_gpt": ("mlp",),
    "params.gpt3_layer": ("mlp",), "params.gpt3_shaped_layer": ("mlp",), "params.gpt3_table": ("mlp",),
    "params.gpt3_shaped": ("mlp",), "params.transformer_paper": ("mlp",), "params.transformer_shaped": ("mlp",),
    "params.rule_of_thumb": ("mlp",),
    "flops.qk": ("matrices",), "flops.av": ("matrices",), "flops.projections": ("matrices",),
    "flops.layer": ("matrices", "mlp"), "flops.rnn_attention_counts": (), "flops.rnn_vs_attention": (),
    "flops.training": (), "flops.training_days": (),
    "memory.attention_scores": (), "memory.kv_cache": (), "memory.kv_reduction": (),
    "attention.score": ("matrices",), "attention.weight": ("matrices", "probability", "functions"),
    "attention.output": ("matrices", "probability", "functions"), "attention.softmax_axis_bug": ("probability",),
    "softmax.masked_positions": ("probability",), "softmax.masked_weights": ("probability", "functions"),
    "softmax.scaling_effect": ("probability", "functions"), "softmax.variance": ("probability",),
    "positional.pe_value": ("functions",), "positional.relative_shift": ("functions",),
    "positional.rope_angle": ("functions",), "positional.wavelength": ("functions",), "positional.why_needed": (),
    "norms.layernorm": ("probability",),
    "sampling.temperature": ("probability", "functions"), "sampling.top_k": ("probability", "functions"),
    "sampling.top_k_set": ("probability",),
    "concepts.architectures": (), "concepts.bert_gpt": (), "concepts.complexity": (),
    "concepts.efficient_attention": (), "concepts.flash_attention": (), "concepts.layernorm_batchnorm": (),
    "concepts.mqa_gqa": (), "concepts.path_length": (), "concepts.pre_post_norm": (), "concepts.why_sqrt_dk": (),
    "concepts.wo_ffn_role": (),
    "matrices.causal_mask": ("matrices",), "matrices.attention_weights": ("matrices", "probability", "functions"),
    "matrices.attention_output": ("matrices", "probability", "functions"),
}

BEYOND = "beyond the GATE DA syllabus"


def syllabus_tags(template_id: str) -> tuple[str, ...]:
    """The GATE DA topics a template exercises; () when it is beyond the syllabus. A widened
    sibling (`*_wide`) exercises what its narrow template does."""
    base = template_id[: -len("_wide")] if template_id.endswith("_wide") else template_id
    if base not in _TAGS:
        raise KeyError(f"{template_id} has no GATE DA syllabus entry in quizforge/bank/syllabus.py")
    return _TAGS[base]


def in_syllabus(template_id: str) -> bool:
    return bool(syllabus_tags(template_id))


def syllabus_text(template_id: str) -> str:
    """'GATE DA: matrices, probability' or 'beyond the GATE DA syllabus'."""
    tags = syllabus_tags(template_id)
    return f"GATE DA: {', '.join(tags)}" if tags else BEYOND
