"""MoPE: an executable companion to Zeris, *Beyond Sinusoids* (arXiv 2606.01258)."""
from mope.config import GPTConfig
from mope.model import GPT
from mope.variants import TABLE_2, VARIANTS, build_model, get_variant, variant_config

__version__ = "0.1.0"
__all__ = ["GPT", "GPTConfig", "TABLE_2", "VARIANTS", "build_model", "get_variant", "variant_config"]
