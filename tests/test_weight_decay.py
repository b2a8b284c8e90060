"""mope.evidence.weight_decay: where AdamW's decay alone takes MoPE's pairs, through the forward's bound."""
import numpy as np

from mope.evidence import weight_decay


def test_decay_only_prediction_without_the_bound_leaves_pairs_below_it():
    omega0 = np.array([1.0, 2.0])
    sigma0 = 5.0 / omega0
    factor = weight_decay.decay_factor("cpu-short")
    bounded = weight_decay.decay_only_prediction(omega0, sigma0, "cpu-short")
    free = weight_decay.decay_only_prediction(omega0, sigma0, "cpu-short", admissibility="none")
    assert np.allclose(bounded[0] * bounded[1], 5.0)
    assert factor < 1 and np.allclose(free[0] * free[1], 5.0 ** factor) and (free[0] * free[1] < 5.0).all()
    kept = weight_decay.decay_only_prediction(omega0, sigma0, "cpu-short", factor=1.0)
    assert np.allclose(kept[1], sigma0)
