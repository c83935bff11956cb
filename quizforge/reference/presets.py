"""Published architectures as `ModelConfig`s. Torch-free.

Numbers come from the papers and the released checkpoints; each preset's
`source` says which.
"""

from __future__ import annotations

from quizforge.errors import InputError
from quizforge.reference.config import ModelConfig

_VASWANI = "Vaswani et al. 2017, Table 3 (shared 37,000-token BPE vocabulary, tied embeddings)"
_BERT = "Devlin et al. 2019; counts as in the released checkpoints (with pooler, without MLM head)"
_GPT2 = "Radford et al. 2019; counts as in the released checkpoints (tied head)"
_GPT3 = "Brown et al. 2020, Table 2.1 (context 2048, d_ff = 4 d_model, GPT-2 vocabulary)"


def _vaswani(name: str, d_model: int, n_heads: int, d_ff: int) -> ModelConfig:
    return ModelConfig(
        arch="encoder-decoder", name=name, source=_VASWANI, d_model=d_model, n_heads=n_heads,
        d_ff=d_ff, n_layers=6, vocab_size=37_000, dropout=0.1,  # sinusoidal: no length limit
    )


def _bert(name: str, d_model: int, n_heads: int, n_layers: int) -> ModelConfig:
    return ModelConfig(
        arch="bert", name=name, source=_BERT, d_model=d_model, n_heads=n_heads, d_ff=4 * d_model,
        n_layers=n_layers, vocab_size=30_522, max_len=512, n_token_types=2, pooler=True,
        norm_eps=1e-12, dropout=0.1,
    )


def _gpt(name: str, source: str, d_model: int, n_heads: int, n_layers: int, max_len: int) -> ModelConfig:
    return ModelConfig(
        arch="gpt", name=name, source=source, d_model=d_model, n_heads=n_heads, d_ff=4 * d_model,
        n_layers=n_layers, vocab_size=50_257, max_len=max_len, dropout=0.1,
    )


def _llama(name: str, source: str, d_model: int, n_heads: int, n_kv_heads: int, d_ff: int,
           n_layers: int, max_len: int, eps: float) -> ModelConfig:
    return ModelConfig(
        arch="llama", name=name, source=source, d_model=d_model, n_heads=n_heads,
        n_kv_heads=n_kv_heads, d_ff=d_ff, n_layers=n_layers, vocab_size=32_000, max_len=max_len,
        norm_eps=eps,
    )


PRESETS: dict[str, ModelConfig] = {
    p.name: p
    for p in (
        _vaswani("vaswani-base", 512, 8, 2048),
        _vaswani("vaswani-big", 1024, 16, 4096),
        _bert("bert-base", 768, 12, 12),
        _bert("bert-large", 1024, 16, 24),
        _gpt("gpt2", _GPT2, 768, 12, 12, 1024),
        _gpt("gpt2-medium", _GPT2, 1024, 16, 24, 1024),
        _gpt("gpt2-large", _GPT2, 1280, 20, 36, 1024),
        _gpt("gpt2-xl", _GPT2, 1600, 25, 48, 1024),
        _gpt("gpt3-small", _GPT3, 768, 12, 12, 2048),
        _gpt("gpt3-medium", _GPT3, 1024, 16, 24, 2048),
        _gpt("gpt3-large", _GPT3, 1536, 16, 24, 2048),
        # Table 2.1 lists 24 heads of 128 for XL, which cannot tile d_model = 2048; the
        # parameter count (1.3B) depends only on d_model, so we keep d_head = 128 and use 16 heads.
        _gpt("gpt3-xl", _GPT3 + "; 16 heads of 128, see presets.py", 2048, 16, 24, 2048),
        _gpt("gpt3-2.7b", _GPT3, 2560, 32, 32, 2048),
        _gpt("gpt3-6.7b", _GPT3, 4096, 32, 32, 2048),
        # The table prints d_model = 5140 for 13B; 40 heads of 128 make 5120.
        _gpt("gpt3-13b", _GPT3 + "; d_model 5120 (the table's 5140 is a typo)", 5120, 40, 40, 2048),
        _gpt("gpt3-175b", _GPT3, 12288, 96, 96, 2048),
        _llama("llama-7b", "Touvron et al. 2023 (LLaMA), 7B release", 4096, 32, 32, 11008, 32, 2048, 1e-6),
        _llama("llama2-70b", "Touvron et al. 2023 (Llama 2), 70B release, GQA with 8 KV heads",
               8192, 64, 8, 28672, 80, 4096, 1e-5),
    )
}


def get_preset(name: str) -> ModelConfig:
    key = name.strip().lower()
    if key not in PRESETS:
        from quizforge.suggest import did_you_mean

        hint = did_you_mean(name, PRESETS)
        raise InputError(f"unknown preset {name!r}{hint}; run `quiz calc presets` to list them")
    return PRESETS[key]
