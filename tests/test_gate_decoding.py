"""Decoding with the causal gate (issue 74): ``CausalEnergyGate.step`` keeps each layer's key energies and running
sums and returns the new query's row of log g, equal to the last row of ``log_gate`` of the window so far; a decoder
written on the page "MoPE and EGA in your own model" generates through it as its full forward computes; a token costs
O(T) work, where the whole window's gate costs O(T^2).

The cost is counted, not timed: the elements every torch operation writes (a dispatch mode sees each one), which is
what the work is proportional to and the same on any machine, loaded or idle. ``benchmarks/gate_decoding.py`` prints
the seconds."""
from __future__ import annotations

import math
from pathlib import Path

import jupytext
import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode
from torch.utils._pytree import tree_flatten

import mope
from loading import load
from mope.model.energy_gate import GateCache

PAGE = Path(__file__).resolve().parents[1] / "notebooks" / "own_model.md"


def far_from_uniform(gate: mope.CausalEnergyGate) -> mope.CausalEnergyGate:
    with torch.no_grad():
        gate.energy.weight.normal_(0, 1.0)
        gate.alpha.fill_(3.0)
        gate.tau.fill_(0.3)
    return gate


def test_each_step_is_the_last_row_of_the_gate_of_the_window_so_far():
    torch.manual_seed(0)
    gate = far_from_uniform(mope.CausalEnergyGate(32, 4))
    normed = torch.randn(2, 128, 32)
    with torch.no_grad():
        cache = None
        for t in range(normed.size(1)):
            row, cache = gate.step(normed[:, t:t + 1], cache)
            assert row.shape == (2, 4, 1, t + 1) and cache.length == t + 1
            assert torch.allclose(row, gate.log_gate(normed[:, :t + 1])[..., -1:, :], atol=1e-5, rtol=1e-5), t
        assert torch.equal(gate.step(normed)[0], gate.log_gate(normed))  # no cache: the whole window's gate
        first, cache = gate.step(normed[:, :50])  # a prompt at once, then the rest
        rest, _ = gate.step(normed[:, 50:], cache)
        assert torch.allclose(rest, gate.log_gate(normed)[:, :, 50:], atol=1e-5, rtol=1e-5)


def test_a_cache_of_another_batch_is_refused_by_name():
    gate = mope.CausalEnergyGate(16, 2)
    _, cache = gate.step(torch.randn(3, 4, 16))
    with pytest.raises(ValueError, match=r"CausalEnergyGate.step: the cache holds \(batch, n_head\) = \(3, 2\)"):
        gate.step(torch.randn(1, 1, 16), cache)


def page_namespace() -> dict:
    """The page's decoder and its ``decode``, as the page defines them."""
    cells = [cell.source for cell in jupytext.read(PAGE).cells if cell.cell_type == "code"]
    namespace: dict = {}
    for marker in ("class Decoder", "def decode"):
        (source,) = [source for source in cells if marker in source]
        exec(compile(source, f"<own_model.md: {marker}>", "exec"), namespace)
    return namespace


def test_the_pages_decoder_feeds_128_tokens_through_the_caches_as_its_full_forward_computes():
    page = page_namespace()
    torch.manual_seed(0)
    model = page["Decoder"](mope.MorletPositions(32), vocab=65, d=32, heads=2, layers=2, gated=True).eval()
    for block in model.blocks:
        far_from_uniform(block.gate)
    idx = torch.randint(65, (2, 128))
    with torch.no_grad():
        caches: list = []
        stepped = torch.cat((page["decode"](model, idx[:, :5], caches), page["decode"](model, idx[:, 5:], caches)), 1)
        full = model(idx)
    assert len(caches) == len(model.blocks) == 2
    assert all(isinstance(gate_cache, GateCache) and gate_cache.length == 128 for _, _, gate_cache in caches)
    assert stepped.shape == full.shape and torch.allclose(stepped, full, atol=1e-5)


class ElementsWritten(TorchDispatchMode):
    """Counts the elements of every tensor that the torch operations inside it return."""

    def __init__(self):
        super().__init__()
        self.elements = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        self.elements += sum(t.numel() for t in tree_flatten(out)[0] if isinstance(t, torch.Tensor))
        return out


def work_of_one_token(gate: mope.CausalEnergyGate, length: int, cached: bool) -> int:
    """Elements written to give the row of log g of token ``length`` (its last): by ``step`` from a cache of the
    ``length - 1`` keys before, or by ``log_gate`` of the whole window (the only route without a cache)."""
    normed = torch.randn(1, length, gate.n_embd)
    with torch.no_grad():
        _, cache = gate.step(normed[:, :-1])
        with ElementsWritten() as counter:
            if cached:
                gate.step(normed[:, -1:], cache)
            else:
                gate.log_gate(normed)[..., -1, :]
    return counter.elements


def test_a_decoded_token_costs_work_linear_in_the_context_where_the_whole_windows_gate_costs_quadratic():
    """At T = 256 and 2,048 (8x): a step's work grows at most 10x, the whole window's more than 50x (T^2: 64x)."""
    gate = mope.CausalEnergyGate(64, 4)
    step = {length: work_of_one_token(gate, length, cached=True) for length in (256, 2048)}
    window = {length: work_of_one_token(gate, length, cached=False) for length in (256, 2048)}
    assert step[2048] / step[256] <= 10, step
    assert window[2048] / window[256] > 50, window
    assert math.log(step[2048] / step[256], 8) <= 1.05 and math.log(window[2048] / window[256], 8) >= 1.9
    assert window[2048] > 100 * step[2048]  # the cache saves two orders of magnitude at 2,048 tokens


def test_the_benchmark_times_both_routes(capsys):
    """The script runs (tiny lengths, one round); its seconds are printed, never asserted."""
    module = load("gate_decoding", Path("benchmarks/gate_decoding.py"))
    threads = torch.get_num_threads()
    try:
        results = module.main(["--lengths", "16", "32", "--rounds", "1", "--repeats", "1", "--width", "16", "--heads", "2"])
    finally:
        torch.set_num_threads(threads)
    assert set(results) == {16, 32} and all(value > 0 for row in results.values() for value in row.values())
    assert "window/step" in capsys.readouterr().out
