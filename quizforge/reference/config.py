"""The one config dataclass that describes every reference model and component.

Torch-free on purpose: the CLI validates sizes and resolves presets before
anything heavy is imported.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from quizforge.errors import InputError

# Whole models, then the single components `quiz calc --arch` can build alone.
MODEL_ARCHS = ("encoder-decoder", "bert", "gpt", "llama")
COMPONENT_ARCHS = ("mha", "ffn", "layernorm", "rmsnorm", "encoder-layer", "decoder-layer")
ARCHS = MODEL_ARCHS + COMPONENT_ARCHS

NORMS = ("layernorm", "rmsnorm")
MAX_LAYERS = 1024
# The largest size of each field quizforge builds: well above any published model, and small
# enough that no tensor of a model or of its activations can overflow torch's 64-bit sizes.
MAX_SIZES = {"d_model": 2**17, "n_heads": 2**17, "n_kv_heads": 2**17, "d_head": 2**17, "d_ff": 2**20,
             "vocab_size": 2**22, "max_len": 2**24, "n_token_types": 2**10}
# The flag a field comes in by, where the names differ.
FLAG_OF = {"vocab_size": "vocab"}
ACTIVATIONS = ("relu", "gelu", "swiglu")
POSITIONALS = ("sinusoidal", "learned", "rope", "none")

# What each architecture family means when a field is left as None.
_ARCH_DEFAULTS: dict[str, dict[str, object]] = {
    "encoder-decoder": dict(norm="layernorm", activation="relu", positional="sinusoidal",
                            bias=True, tied=True, norm_first=False),
    "bert": dict(norm="layernorm", activation="gelu", positional="learned",
                 bias=True, tied=True, norm_first=False),
    "gpt": dict(norm="layernorm", activation="gelu", positional="learned",
                bias=True, tied=True, norm_first=True),
    "llama": dict(norm="rmsnorm", activation="swiglu", positional="rope",
                  bias=False, tied=False, norm_first=True),
}
_COMPONENT_DEFAULTS: dict[str, object] = dict(
    norm="layernorm", activation="relu", positional="none", bias=True, tied=True, norm_first=False
)


@dataclass(frozen=True)
class ModelConfig:
    """Hyperparameters of a reference model, or of one component when `arch` names one.

    Fields left as None take the architecture's convention (see `_ARCH_DEFAULTS`).
    `d_head` defaults to d_model / n_heads; `n_kv_heads` defaults to n_heads (plain MHA).
    """

    arch: str
    d_model: int
    n_heads: int = 1
    d_ff: int = 0
    n_layers: int = 1
    n_kv_heads: int | None = None
    d_head: int | None = None
    vocab_size: int = 0
    max_len: int = 0
    # encoder-decoder only; n_layers is used for both stacks when these are None
    n_encoder_layers: int | None = None
    n_decoder_layers: int | None = None
    n_token_types: int = 0  # BERT segment embeddings
    pooler: bool = False  # BERT [CLS] pooler
    norm: str | None = None
    activation: str | None = None
    positional: str | None = None
    bias: bool | None = None
    tied: bool | None = None  # output head shares the token embedding
    norm_first: bool | None = None  # pre-norm when True
    norm_eps: float = 1e-5
    rope_base: float = 10000.0
    dropout: float = 0.0
    name: str = field(default="", compare=False)
    source: str = field(default="", compare=False)  # where the published numbers come from

    def __post_init__(self) -> None:
        if self.arch not in ARCHS:
            raise InputError(f"unknown architecture {self.arch!r}; choose one of {', '.join(ARCHS)}")
        defaults = _ARCH_DEFAULTS.get(self.arch, _COMPONENT_DEFAULTS)
        if self.arch in NORMS:  # the norm components are their own norm
            object.__setattr__(self, "norm", self.arch)
        for key, value in defaults.items():
            if getattr(self, key) is None:
                object.__setattr__(self, key, value)
        if self.n_kv_heads is None:
            object.__setattr__(self, "n_kv_heads", self.n_heads)
        self._validate()
        if self.d_head is None:
            object.__setattr__(self, "d_head", self.d_model // self.n_heads)

    def _validate(self) -> None:
        for name, most in MAX_SIZES.items():
            value = getattr(self, name)
            if isinstance(value, int) and value > most:
                raise InputError(f"{value:,} is more than the {most:,} quizforge builds",
                                 param=FLAG_OF.get(name, name))
        _positive("d_model", self.d_model)
        _positive("n_heads", self.n_heads)
        _positive("n_kv_heads", self.n_kv_heads)
        _positive("n_layers", self.n_layers)
        for name in ("n_encoder_layers", "n_decoder_layers", "d_head"):
            if getattr(self, name) is not None:
                _positive(name, getattr(self, name))
        if self.d_head is None and self.d_model % self.n_heads:
            raise InputError(f"d_model={self.d_model} is not divisible by n_heads={self.n_heads}")
        if self.n_heads % self.n_kv_heads:
            raise InputError(f"n_heads={self.n_heads} is not divisible by n_kv_heads={self.n_kv_heads}")
        # Each layer is a Python object even on 'meta'; real models stay far below this.
        layers = max(self.n_layers, self.n_encoder_layers or 0, self.n_decoder_layers or 0)
        if layers > MAX_LAYERS:
            raise InputError(f"{layers:,} layers is more than the {MAX_LAYERS:,} quizforge builds")
        for name in ("max_len", "n_token_types"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 0:
                raise InputError(f"{name} must be a whole number >= 0, got {getattr(self, name)!r}")
        if self.uses_ffn:
            _positive("d_ff", self.d_ff)
        if self.is_model:
            _positive("vocab_size", self.vocab_size)
            if self.positional == "learned":
                _positive("max_len", self.max_len)
        if self.positional == "rope" and (self.d_head or self.d_model // self.n_heads) % 2:
            raise InputError("rotary embeddings need an even head dimension")
        for name, value, allowed in (
            ("norm", self.norm, NORMS),
            ("activation", self.activation, ACTIVATIONS),
            ("positional", self.positional, POSITIONALS),
        ):
            if value not in allowed:
                raise InputError(f"unknown {name} {value!r}; choose one of {', '.join(allowed)}")
        if not 0.0 <= self.dropout < 1.0:
            raise InputError(f"dropout must be in [0, 1), got {self.dropout}")

    # --- derived quantities -------------------------------------------------
    @property
    def is_model(self) -> bool:
        return self.arch in MODEL_ARCHS

    @property
    def uses_ffn(self) -> bool:
        return self.arch not in ("mha", "layernorm", "rmsnorm")

    @property
    def d_attn(self) -> int:
        """Width of the concatenated heads: h * d_head (equal to d_model unless d_head is set)."""
        return self.n_heads * self.d_head

    @property
    def encoder_layers(self) -> int:
        return self.n_encoder_layers if self.n_encoder_layers is not None else self.n_layers

    @property
    def decoder_layers(self) -> int:
        return self.n_decoder_layers if self.n_decoder_layers is not None else self.n_layers

    @property
    def is_decoder_only(self) -> bool:
        return self.arch in ("gpt", "llama")

    @property
    def kv_cache_layers(self) -> int:
        """Layers whose self-attention keys and values are cached during generation."""
        if self.arch == "encoder-decoder":
            return self.decoder_layers
        if self.arch == "decoder-layer":
            return 1
        return self.n_layers

    def with_(self, **changes: object) -> "ModelConfig":
        """A copy with some fields changed. d_head and n_kv_heads that were left at their
        defaults (d_model / n_heads, n_heads) are derived again rather than carried over."""
        if "d_head" not in changes and self.d_head * self.n_heads == self.d_model:
            changes["d_head"] = None
        if "n_kv_heads" not in changes and self.n_kv_heads == self.n_heads:
            changes["n_kv_heads"] = None
        if changes.get("arch", self.arch) != self.arch:  # the new family's conventions, unless given
            for key in _COMPONENT_DEFAULTS:
                changes.setdefault(key, None)
        return replace(self, **changes)

    def describe(self) -> dict[str, object]:
        """The fields that matter for this arch, for tables and JSON."""
        keep = {"arch", "d_model", "n_heads", "n_kv_heads", "d_head", "bias"}
        if self.uses_ffn:
            keep |= {"d_ff", "activation"}
        if self.arch not in ("mha", "ffn"):
            keep |= {"norm", "norm_first"}
        if self.is_model:
            keep |= {"n_layers", "vocab_size", "max_len", "positional", "tied"}
        if self.arch == "encoder-decoder":
            keep |= {"n_encoder_layers", "n_decoder_layers"}
            keep.discard("n_layers")
        if self.arch == "bert":
            keep |= {"n_token_types", "pooler"}
        out: dict[str, object] = {}
        for f in fields(self):
            if f.name in keep:
                out[f.name] = getattr(self, f.name)
        if self.arch == "encoder-decoder":
            out["n_encoder_layers"] = self.encoder_layers
            out["n_decoder_layers"] = self.decoder_layers
        return out


def _positive(name: str, value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise InputError(f"{name} must be a positive integer, got {value!r}")
