"""mope.evidence.analysis: the arithmetic the chapters use beside the stored runs."""
import numpy as np

from mope.evidence import analysis
from mope.model.config import GPTConfig


def test_future_token_sensitivity_separates_published_and_causal_gate():
    shape = GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=16, dropout=0.0)
    published = analysis.future_token_sensitivity("EGA-1", shape, position=5, offset=5, trials=2)
    causal = analysis.future_token_sensitivity("EGA-1-CAUSAL", shape, position=5, offset=5, trials=2)
    assert published[1:10].max() > 0  # the window statistics let a later token move earlier outputs
    assert np.all(causal[:10] == 0) and causal[10:].max() > 0


def test_decay_only_prediction_without_the_bound_leaves_pairs_below_it():
    omega0 = np.array([1.0, 2.0])
    sigma0 = 5.0 / omega0
    factor = analysis.decay_factor("cpu-short")
    bounded = analysis.decay_only_prediction(omega0, sigma0, "cpu-short")
    free = analysis.decay_only_prediction(omega0, sigma0, "cpu-short", admissibility="none")
    assert np.allclose(bounded[0] * bounded[1], 5.0)
    assert np.allclose(free[0] * free[1], 5.0 ** factor)
    kept = analysis.decay_only_prediction(omega0, sigma0, "cpu-short", factor=1.0)
    assert np.allclose(kept[1], sigma0)


def test_on_the_boundary_means_within_the_packages_one_tolerance_of_omega_sigma_5():
    from mope.model.positional.morlet import BOUNDARY_TOL

    sigma = np.full(4, 2.0)
    omega = (5.0 + np.array([0.0, -0.9, 0.9, 1.1]) * BOUNDARY_TOL) / sigma
    assert analysis.on_boundary(omega, sigma).tolist() == [True, True, True, False]
    assert BOUNDARY_TOL == 1e-3  # what chapter 4 states; no stored pair lies between 5e-4 and 1e-3 off the bound
