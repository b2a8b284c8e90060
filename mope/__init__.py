"""MoPE: an executable companion to Zeris, *Beyond Sinusoids* (arXiv 2606.01258)."""
from mope.model.config import GPTConfig

__version__ = "0.1.0"
__all__ = ["GPT", "GPTConfig", "TABLE_2", "VARIANTS", "build_model", "get_variant", "variant_config"]

# The model and the variant registry import torch (seconds): loaded when first asked for, so that
# `python -m mope` can take Ctrl-C cleanly while torch loads (see mope.__main__).
_LAZY = {"GPT": "mope.model.gpt", "TABLE_2": "mope.model.variants", "VARIANTS": "mope.model.variants",
         "build_model": "mope.model.variants", "get_variant": "mope.model.variants", "variant_config": "mope.model.variants"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mope' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
