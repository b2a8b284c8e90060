"""MoPE: an executable companion to Zeris, *Beyond Sinusoids* (arXiv 2606.01258)."""
import sys as _sys

def _end_interrupted(signum, frame) -> None:
    """SIGINT while ``python -m mope`` starts or exits: one line, exit code 130, never a traceback."""
    import os

    os.write(2, b"mope: interrupted\n")
    os._exit(130)  # an interrupted command's exit code (mope.cli.EXIT_INTERRUPTED)


def _starting_as_command() -> bool:
    """Whether this import is ``python -m mope`` starting: runpy imports the package while sys.argv[0] is "-m"."""
    argv = getattr(_sys, "orig_argv", [])
    return _sys.argv[:1] == ["-m"] and ("-mmope" in argv or ("-m", "mope") in zip(argv, argv[1:]))


if _starting_as_command():  # from this first line on, Ctrl-C is handled (mope.__main__ takes over from here)
    import _signal  # built in: `signal` would import enum first

    if _signal.getsignal(_signal.SIGINT) != _signal.SIG_IGN:  # started with `&` by a script: keep it so
        _signal.signal(_signal.SIGINT, _end_interrupted)

__version__ = "0.2.4"
#: The drop-in modules for a model of your own (torch only): positions added to the embeddings, attention hooks,
#: gates; the page "MoPE and EGA in your own model" shows each one's documentation.
DROP_IN_MODULES = ("MorletPositions", "SinusoidalPositions", "LearnedPositions", "Rotary", "ALiBi", "MorletRotary",
                   "CausalEnergyGate", "FutureReadingEnergyGate")
__all__ = [
    *DROP_IN_MODULES,
    # the book's GPT and its variants
    "GPT", "GPTConfig", "TABLE_2", "VARIANTS", "build_model", "get_variant", "variant_config",
]

# Nothing is imported here (the variant registry imports torch, seconds; even the configuration's
# dataclasses take tens of milliseconds): each name is loaded when first asked for, so that
# `python -m mope` takes Ctrl-C cleanly from its first line (see mope.__main__).
_LAZY = {"MorletPositions": "mope.model.positional.morlet", "SinusoidalPositions": "mope.model.positional.sincos",
         "LearnedPositions": "mope.model.positional.learned", "Rotary": "mope.model.positional.rope",
         "ALiBi": "mope.model.positional.alibi", "MorletRotary": "mope.model.positional.morlet_rope",
         "CausalEnergyGate": "mope.model.energy_gate", "FutureReadingEnergyGate": "mope.model.energy_gate",
         "GPT": "mope.model.gpt", "GPTConfig": "mope.model.config", "TABLE_2": "mope.model.variants",
         "VARIANTS": "mope.model.variants", "build_model": "mope.model.variants", "get_variant": "mope.model.variants",
         "variant_config": "mope.model.variants"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mope' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
