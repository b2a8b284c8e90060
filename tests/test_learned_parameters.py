"""mope.evidence.learned_parameters: MoPE's stored parameters, and where weight decay alone would take them under each preset."""
import numpy as np
import pytest

from mope.evidence import learned_parameters, weight_decay
from synthetic_runs import decayed_morlet, run


def test_decay_only_reference_follows_each_presets_own_schedule():
    short = learned_parameters.decay_only_reference("PE-MORLET-FREE", "cpu-short")
    long = learned_parameters.decay_only_reference("PE-MORLET-FREE", "cpu")
    assert short["factor"] == pytest.approx(0.975, abs=1e-3)  # 5^0.975 = 4.81 on cpu-short
    assert np.median(short["stored_product"]) == pytest.approx(5 ** short["factor"]) == pytest.approx(4.805, abs=1e-3)
    assert long["factor"] == pytest.approx(weight_decay.decay_factor("cpu")) and long["factor"] < short["factor"]
    omega_sigma = short["omega"] * short["sigma"]
    assert np.all(omega_sigma < 5)  # no bound: decay alone takes every pair below it


def test_decay_only_reference_of_the_bounded_and_undecayed_variants():
    bounded = learned_parameters.decay_only_reference("PE-MORLET", "cpu")
    assert learned_parameters.on_boundary(bounded["omega"], bounded["sigma"]).all()  # the bound holds them on ωσ = 5
    undecayed = learned_parameters.decay_only_reference("PE-MORLET-NODECAY", "cpu")
    assert undecayed["factor"] == 1.0 and np.allclose(undecayed["stored_product"], 5)


def test_pairs_pushed_below_the_decay_only_product():
    f = weight_decay.decay_factor("cpu")
    reference = learned_parameters.decay_only_reference("PE-MORLET-FREE", "cpu")
    as_decay = learned_parameters.morlet_arrays(run("PE-MORLET-FREE", 0, 1.5, learned=decayed_morlet(64, f, "none")))
    further = learned_parameters.morlet_arrays(run("PE-MORLET-FREE", 0, 1.5, learned=decayed_morlet(64, f * 0.95, "none")))
    assert learned_parameters.below_decay_only(as_decay, reference) == 0
    assert learned_parameters.below_decay_only(further, reference) == 1


def test_pooled_parameters_average_aligned_pairs_over_seeds():
    runs = [run("EGA-MORLET", s, 1.5, learned=decayed_morlet(8, factor)) for s, factor in enumerate((0.9, 0.8))]
    runs.append(run("BASE-DOT", 0, 1.5))
    pooled = learned_parameters.pooled_morlet(runs, "EGA-MORLET")
    first, second = (learned_parameters.morlet_arrays(r)["sigma"] for r in runs[:2])
    assert pooled["seeds"] == 2 and np.allclose(pooled["sigma"], (first + second) / 2)
    assert learned_parameters.pooled_morlet(runs, "PE-MORLET") is None and learned_parameters.morlet_runs(runs, "BASE-DOT") == {}


def test_on_the_boundary_means_within_the_packages_one_tolerance_of_omega_sigma_5():
    from mope.model.positional.morlet import BOUNDARY_TOL

    sigma = np.full(4, 2.0)
    omega = (5.0 + np.array([0.0, -0.9, 0.9, 1.1]) * BOUNDARY_TOL) / sigma
    assert learned_parameters.on_boundary(omega, sigma).tolist() == [True, True, True, False]
    assert BOUNDARY_TOL == 1e-3  # what chapter 4 states; no stored pair lies between 5e-4 and 1e-3 off the bound
