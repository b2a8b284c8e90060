"""mope.evidence.kernels: MoPE's correlation kernel and its averages (Appendix A.1)."""
import numpy as np

from mope.evidence import kernels


def test_the_kernel_is_the_correlation_of_z_and_its_averages_integrate_it():
    omega, sigma, taus = 0.7, 6.0, np.arange(-5, 6)
    b = np.arange(40)
    z = kernels.complex_positions(omega, sigma, np.arange(50))
    assert np.allclose(np.real(np.conj(z[b]) * z[b + 5]), kernels.morlet_kernel(b, 5, omega, sigma))
    window = kernels.averaged_kernel(omega, sigma, taus, length=200, reduce="sum")
    explicit = [kernels.morlet_kernel(np.arange(max(0, -t), 200 - max(0, t)), t, omega, sigma).sum() for t in taus]
    assert np.allclose(window, explicit)
    grid, step = np.linspace(0, 80, 80_001, retstep=True)
    for tau in (0.0, 3.0):
        values = kernels.morlet_kernel(grid, tau, omega, sigma)
        assert np.isclose(step * (values.sum() - values[0] / 2), kernels.half_line_kernel(omega, sigma, tau), rtol=1e-6)
        values = kernels.morlet_kernel(grid - 40, tau, omega, sigma)
        assert np.isclose(step * values.sum(), kernels.line_kernel(omega, sigma, tau), rtol=1e-6)


def test_a_frequency_above_nyquist_aliases_to_its_fold_with_the_sine_negated():
    alias = float(kernels.alias_frequency(4.0))
    assert np.isclose(alias, 2 * np.pi - 4.0)
    positions = np.arange(32)
    assert np.allclose(kernels.complex_positions(4.0, 9.0, positions),
                       np.conj(kernels.complex_positions(alias, 9.0, positions)))
