"""Specification of MoPE as released (paper §3.1, Appendix A.3; the released code, book page "The released code")."""
import math

import pytest
import torch

from mope.model.config import ADMISSIBILITY_MODES, GPTConfig, forward_modes
from mope.model.positional import MorletPositions, SinusoidalPositions
from mope.model.positional.morlet import initial_morlet_parameters, project_admissible


@pytest.fixture
def mope():
    return MorletPositions(256)


def test_initial_frequencies_are_geometric_from_1_to_0_99_pi(mope):
    omega = mope.log_omega.exp().double()
    assert omega[0].item() == pytest.approx(1.0, rel=1e-6)
    assert omega[-1].item() == pytest.approx(0.99 * math.pi, rel=1e-6)
    ratios = omega[1:] / omega[:-1]
    assert torch.allclose(ratios, ratios[0].expand_as(ratios), rtol=1e-5)


def test_every_pair_starts_admissible(mope):
    omega, sigma = mope.effective()
    assert (omega * sigma >= 5 - 1e-5).all()


def test_projection_overrides_the_nyquist_clamp_at_init(mope):
    # raw omega_127 = 0.99 pi is clamped to 0.95 pi, then the bound pushes it back to 5 / sigma = 0.99 pi
    omega, _ = mope.effective()
    assert omega[-1].item() == pytest.approx(0.99 * math.pi, rel=1e-5)


def test_position_zero_is_cos_one_sin_zero(mope):
    pe = mope(4)
    expected = torch.tensor([1.0, 0.0]).repeat(128)
    assert torch.equal(pe[0], expected)


def test_no_position_signal_after_twenty_tokens(mope):
    pe = mope(256)
    assert pe[20:].abs().max() < 1e-3
    assert pe[:10].abs().max(dim=1).values.min() > 0.1  # e^(-b^2/50) at sigma = 5


def test_infinite_bandwidth_gives_cos_sin_proposition_1():
    """Proposition 1: sigma -> infinity leaves cos(omega b), sin(omega b); with Vaswani's
    frequencies that is sin/cos PE with the channels of each pair swapped."""
    mope = MorletPositions(64, admissibility="none")
    vaswani = SinusoidalPositions(64)
    with torch.no_grad():
        mope.log_omega.copy_(vaswani.omega.log())
        mope.log_sigma.fill_(40.0)
    pe, reference = mope(300), vaswani(300)
    assert torch.allclose(pe[:, 0::2], reference[:, 1::2], atol=1e-5)
    assert torch.allclose(pe[:, 1::2], reference[:, 0::2], atol=1e-5)


def _gradients(mode: str):
    mope = MorletPositions(8, admissibility=mode)
    with torch.no_grad():  # pairs 0-1 far below the bound, pairs 2-3 far above it
        mope.log_sigma[:2] -= 1.0
        mope.log_sigma[2:] += 1.0
    torch.manual_seed(0)
    (mope(12) * torch.randn(12, 8)).sum().backward()
    # pair 3 starts at 0.99 pi, above the 0.95 pi clamp, whose min() passes no gradient either
    return mope.log_omega.grad[:3], mope.log_sigma.grad[:3]


def test_published_bound_blocks_omega_gradient_where_active():
    grad_omega, grad_sigma = _gradients("published")
    assert torch.all(grad_omega[:2] == 0)
    assert torch.all(grad_omega[2:] != 0)
    assert torch.all(grad_sigma != 0)


def test_straight_through_bound_passes_omega_gradient():
    grad_omega, _ = _gradients("straight_through")
    assert torch.all(grad_omega != 0)


def test_straight_through_and_published_agree_in_the_forward():
    published, straight = MorletPositions(8, "published"), MorletPositions(8, "straight_through")
    for m in (published, straight):
        with torch.no_grad():
            m.log_sigma[:2] -= 1.0
    assert torch.equal(published(30), straight(30))


def test_no_bound_lets_pairs_leave_the_admissible_region():
    free = MorletPositions(8, admissibility="none")
    with torch.no_grad():
        free.log_sigma -= 1.0
    omega, sigma = free.effective()
    assert (omega * sigma < 5).all()


def test_learned_centre_moves_the_envelope():
    centred = MorletPositions(8, learned_centre=True)
    with torch.no_grad():
        centred.centre.fill_(100.0)
    pe = centred(200)
    assert pe[100].abs().max() > 0.9
    assert pe[0].abs().max() < 1e-3


def test_initial_parameters_are_on_the_boundary_to_float32_rounding():
    omega, sigma = initial_morlet_parameters(128)
    assert torch.allclose(omega.double() * sigma.double(), torch.full((128,), 5.0, dtype=torch.float64), rtol=3e-7)


def test_initial_log_parameters_equal_the_released_float32_recipe_bit_for_bit():
    """The released MorletPE: freqs = exp(linspace(log 1, log 0.99 pi, n)) in float32,
    log_omega = log(freqs), log_sigma = log(5 / freqs). The last bit decides which pairs start below
    omega * sigma = 5 (where log omega gets no gradient), so it must be the released one."""
    freqs = torch.exp(torch.linspace(math.log(1.0), math.log(math.pi * 0.99), 128))
    encoding = MorletPositions(256)
    assert encoding.log_omega.dtype == torch.float32
    assert torch.equal(encoding.log_omega.detach(), torch.log(freqs))
    assert torch.equal(encoding.log_sigma.detach(), torch.log(5.0 / freqs))
    # the pairs the released forward projects at step 0 (after the clamps) are the pairs whose log omega gets no
    # gradient; which they are is float32's last bit (21 on the CPUs measured, against 30 for a float64
    # initialisation rounded to float32), so the count is compared with this machine's own arithmetic
    omega = torch.exp(encoding.log_omega.detach()).clamp(max=math.pi * 0.95)
    sigma = torch.exp(encoding.log_sigma.detach()).clamp(min=1e-3)
    below = omega * sigma < 5.0
    assert 0 < below.sum().item() < 128
    weights = torch.randn(64, 256, generator=torch.Generator().manual_seed(0))  # a loss that depends on every omega
    (encoding(64) * weights).sum().backward()
    assert torch.equal(encoding.log_omega.grad == 0, below)


# --- the admissibility modes: one registry (mope.model.config.ADMISSIBILITY_MODES) feeds every reader ----------

def test_every_registered_mode_draws_what_the_registry_says_it_does():
    """A mode that 'projects' draws the published forward below the bound; one that does not draws the
    raw pairs; forward_modes() picks one mode per distinct forward, in the registry's order."""
    drawn = {}
    for name, mode in ADMISSIBILITY_MODES.items():
        module = MorletPositions(8, admissibility=name)
        with torch.no_grad():
            module.log_sigma[:2] -= 1.0  # two pairs below omega * sigma = 5
        omega, sigma = module.effective()
        assert bool((omega * sigma >= 5 - 1e-5).all()) == mode.projects, name
        drawn[name] = module(30)
    assert forward_modes() == ("published", "none")
    for name, mode in ADMISSIBILITY_MODES.items():
        same = [other for other in forward_modes() if torch.equal(drawn[other], drawn[name])]
        assert same == [next(m for m in forward_modes() if ADMISSIBILITY_MODES[m].projects == mode.projects)]
    assert len({mode.label for mode in ADMISSIBILITY_MODES.values()}) == len(ADMISSIBILITY_MODES)


def test_an_unknown_mode_is_refused_in_the_registrys_words_everywhere():
    listed = ", ".join(ADMISSIBILITY_MODES)
    for build in (lambda: MorletPositions(8, admissibility="soft"),
                  lambda: project_admissible(torch.ones(2), torch.ones(2), "soft"),
                  lambda: GPTConfig(absolute="morlet", admissibility="soft")):
        with pytest.raises(ValueError, match=f"unknown admissibility mode 'soft'; valid choices: {listed}$"):
            build()
