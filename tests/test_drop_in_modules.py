"""The modules a researcher lifts into a model of their own (issue 56): reachable from the top level, each with its
own docstring (its equation, shapes and a five-line example that runs), the published gate named for what it does
and warning when built."""
from __future__ import annotations

import doctest
import re
import warnings
from pathlib import Path

import pytest
import torch

import mope
from mope.model.energy_gate import FutureLeakWarning

DROP_IN = ("MorletPositions", "SinusoidalPositions", "LearnedPositions", "Rotary", "ALiBi", "MorletRotary",
           "CausalEnergyGate", "FutureReadingEnergyGate")


def example(cls) -> str:
    """The code of the "Example::" block of ``cls``'s docstring."""
    block = cls.__doc__.split("Example::", 1)[1]
    lines = [line for line in block.splitlines()[1:]]
    return "\n".join(line[8:] for line in lines if line.strip())


@pytest.mark.parametrize("name", DROP_IN)
def test_each_drop_in_module_is_at_the_top_level_with_its_own_docstring_shapes_and_a_running_example(name):
    cls = getattr(mope, name)
    assert name in mope.__all__ and issubclass(cls, torch.nn.Module)
    doc = cls.__doc__ or ""
    assert "Shapes:" in doc and "Example::" in doc and ":param " in doc, name
    assert "$" in doc.split("Example::")[0], name  # its equation, before the example (whose code has its own '=')
    code = example(cls)
    assert 3 <= len(code.splitlines()) <= 7 and f"from mope import {name}" in code
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureLeakWarning)
        namespace: dict = {}
        exec(compile(code, f"<example of {name}>", "exec"), namespace)  # the example runs as printed
    if any("forward" in klass.__dict__ for klass in cls.__mro__ if klass is not torch.nn.Module):
        assert "Define the computation performed at every call" not in cls.forward.__doc__  # torch's boilerplate


def test_every_example_of_a_positional_module_runs_as_printed():
    """The modules of :mod:`mope.model.positional` beyond the top level's (the relative Morlet-RoPE) keep a running
    example too."""
    from mope.model import positional

    shown = [name for name in positional.__all__ if "Example::" in (getattr(positional, name).__doc__ or "")]
    assert "RelativeMorletRotary" in shown
    for name in shown:
        exec(compile(example(getattr(positional, name)), f"<example of {name}>", "exec"), {})


TINY = mope.GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=8)


def test_the_gate_that_reads_the_future_says_so_when_built_and_the_causal_one_does_not():
    with pytest.warns(FutureLeakWarning, match="reads the tokens after it"):
        mope.FutureReadingEnergyGate(16, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mope.CausalEnergyGate(16, 2)
        mope.FutureReadingEnergyGate(16, 2, warn=False)
    assert not mope.FutureReadingEnergyGate.causal and mope.CausalEnergyGate.causal


@pytest.mark.parametrize("name", ["EGA-1", "EGA-MORLET"])
def test_a_model_that_reads_the_future_warns_when_built_unless_the_caller_reproduces_the_paper_knowingly(name):
    """Issue 74: the README's build_model("EGA-MORLET") built the leaking model without a word."""
    with pytest.warns(FutureLeakWarning, match=f"{name} standardises .* build {name}-CAUSAL for a language model, or "
                                               "pass knowingly_non_causal=True"):
        mope.build_model(name, TINY)
    with pytest.warns(FutureLeakWarning, match=r"GPTConfig\(gate='ega'\) standardises .*gate='ega_causal'"):
        mope.GPT(mope.variant_config(name, TINY))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mope.build_model(name, TINY, knowingly_non_causal=True)
        mope.GPT(mope.variant_config(name, TINY), knowingly_non_causal=True)
        for causal in ("EGA-1-CAUSAL", "EGA-MORLET-CAUSAL", "PE-MORLET", "BASE-DOT"):
            mope.build_model(causal, TINY)


def test_the_old_name_of_the_published_gate_is_a_deprecated_alias_that_warns():
    """EnergyGate was renamed FutureReadingEnergyGate in 0.2.0 (CHANGELOG.md); the old name still imports, and says so."""
    with pytest.warns(DeprecationWarning, match="EnergyGate is deprecated since mope 0.2.0: it is FutureReadingEnergyGate"):
        from mope.model.energy_gate import EnergyGate
    assert EnergyGate is mope.FutureReadingEnergyGate
    with pytest.warns(FutureLeakWarning):
        EnergyGate(16, 2)
    assert "EnergyGate" not in mope.__all__ and "EnergyGate" in (Path(__file__).parents[1] / "CHANGELOG.md").read_text()


def test_the_repository_ships_the_licence_its_metadata_names_and_ignores_what_an_install_leaves():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    assert "MIT License" in (root / "LICENSE").read_text() and '\nlicense = "MIT"\n' in (root / "pyproject.toml").read_text()
    ignored = (root / ".gitignore").read_text().splitlines()
    assert "build/" in ignored and "dist/" in ignored and (root / "mope" / "py.typed").is_file()


def test_gradients_of_mope_and_both_gates_check_in_float64():
    """Issue 56: `.double()` left the MoPE table float32, and gradcheck failed; the dtype follows the module (float32
    at least, so bf16 autocast still computes MoPE in float32). The module's own forward, its parameters as inputs."""
    from torch.func import functional_call

    torch.manual_seed(0)
    pos = mope.MorletPositions(8, admissibility="none").double()
    assert pos(5).dtype == torch.float64
    parameters = (pos.log_omega.detach().clone().requires_grad_(), pos.log_sigma.detach().clone().requires_grad_())
    assert torch.autograd.gradcheck(
        lambda log_omega, log_sigma: functional_call(pos, {"log_omega": log_omega, "log_sigma": log_sigma}, (5,)),
        parameters)
    for gate in (mope.CausalEnergyGate(8, 2).double(), mope.FutureReadingEnergyGate(8, 2, warn=False).double()):
        with torch.no_grad():
            gate.tau.fill_(0.3)
        normed = torch.randn(2, 5, 8, dtype=torch.float64, requires_grad=True)
        assert gate.log_gate(normed).dtype == torch.float64
        assert torch.autograd.gradcheck(gate.log_gate, (normed,))


def test_the_own_model_page_shows_every_drop_in_module_expanded():
    """The page "MoPE and EGA in your own model" documents each drop-in module in place (not folded into the API
    page's dropdowns), the package's own list of them being the one this test names."""
    assert mope.DROP_IN_MODULES == DROP_IN
    page = (Path(__file__).parents[1] / "notebooks" / "own_model.md").read_text()
    section = page.split("## The modules, one by one", 1)[1]
    assert re.findall(r"^\.\. autoclass:: mope\.(\w+)$", section, re.MULTILINE) == list(DROP_IN)
    assert "{dropdown}" not in section


def test_the_version_is_one_in_pyproject_the_package_and_the_changelogs_latest_heading():
    import tomllib

    root = Path(__file__).parents[1]
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    headings = re.findall(r"^## (\S+)$", (root / "CHANGELOG.md").read_text(), re.MULTILINE)
    assert version == mope.__version__ == headings[0]
    numbers = [tuple(map(int, heading.split("."))) for heading in headings]
    assert numbers == sorted(set(numbers), reverse=True)  # newest first, each version once


def mope_norms(n_embd: int, length: int = 64) -> torch.Tensor:
    """The norm of MoPE's encoding at each position 0 … length−1 at initialisation, in float64."""
    return mope.MorletPositions(n_embd).double()(length).norm(dim=-1)


def test_mopes_reach_and_amplitude_in_its_docstring_are_computed():
    """Issue 74: the numbers help(MorletPositions) gives of its reach at initialisation are the module's own."""
    doc = " ".join(mope.MorletPositions.__doc__.split())
    norms = mope_norms(128)
    sigma = mope.MorletPositions(128).effective()[1]
    assert f"between {sigma.min():.1f} and {sigma.max():.0f}" in doc and sigma.max() <= 5 + 1e-6
    assert (f"is {norms[0]:.1f} at b = 0, {norms[10]:.2f} at b = 10, {norms[20]:.1e} at b = 20 and {norms[63]:.1e} at "
            "b = 63") in doc
    first_below = int((norms < 1e-3 * norms[0]).nonzero()[0])
    assert f"below a thousandth of its norm at b = 0 from b = {first_below} on" in doc
    assert torch.all(norms[first_below:] < 1e-3 * norms[0])
    token = 0.02 * 128 ** 0.5  # the norm of an embedding drawn N(0, 0.02^2), in expectation
    assert f"norm is √(d/2), {norms[0] / token:.0f} times" in doc and torch.isclose(norms[0], torch.tensor(64.0).double().sqrt())
    from mope.model.positional.sincos import EMBEDDING_MATCHED_AMPLITUDE

    matched = mope.MorletPositions(128, amplitude=EMBEDDING_MATCHED_AMPLITUDE)(1)[0]
    assert torch.isclose(matched.square().mean().sqrt(), torch.tensor(0.02))  # each channel's RMS at b = 0
