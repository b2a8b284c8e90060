"""Specification: relative schemes score by offset only; the absolute Morlet-RoPE does not."""
import pytest
import torch

from mope.model.positional import ALiBi, MorletRotary, RelativeMorletRotary, Rotary, alibi_slopes


def constant_content(length: int, head_size: int, seed: int = 0):
    """The same query and the same key vector at every position: any change of score is position."""
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(head_size, generator=g).expand(1, 1, length, head_size)
    k = torch.randn(head_size, generator=g).expand(1, 1, length, head_size)
    return q, k


def is_toeplitz(scores: torch.Tensor, atol: float) -> bool:
    """scores[i, j] == scores[i + s, j + s] for every shift s."""
    return torch.allclose(scores[1:, 1:], scores[:-1, :-1], atol=atol)


def test_rope_scores_depend_only_on_the_offset():
    q, k = constant_content(64, 32)
    q, k = Rotary(32, seq_dim=2).rotate(q, k)
    scores = (q @ k.transpose(-1, -2))[0, 0]
    assert is_toeplitz(scores, atol=1e-4)
    assert not torch.allclose(scores[0, 1], scores[0, 5])  # but they do depend on it


def test_relative_morlet_rope_scores_depend_only_on_the_offset():
    hook = RelativeMorletRotary(32, seq_dim=2)
    q, k = hook.rotate(*constant_content(64, 32))
    assert is_toeplitz(hook.scores(q, k)[0, 0], atol=1e-4)


def test_relative_morlet_rope_with_infinite_bandwidth_is_rope():
    hook = RelativeMorletRotary(32, seq_dim=2)
    with torch.no_grad():
        hook.log_sigma.fill_(30.0)
    q, k = hook.rotate(*constant_content(16, 32))
    assert torch.allclose(hook.scores(q, k), (q @ k.transpose(-1, -2)) / 32**0.5, atol=1e-5)


def test_relative_morlet_rope_scores_take_either_layout_and_refuse_a_shape_they_cannot_read():
    """The scores of (batch, heads, time, head_size) and of (batch, time, heads, head_size) are the same logits;
    a head of another width, or a 4-D layout left unnamed, is refused with the module's name (a mismatched width
    was an IndexError, an unnamed layout scored heads as time)."""
    g = torch.Generator().manual_seed(0)
    q, k = RelativeMorletRotary(16, seq_dim=2).rotate(torch.randn(2, 4, 10, 16, generator=g),
                                                     torch.randn(2, 4, 10, 16, generator=g))
    by_heads = RelativeMorletRotary(16, seq_dim=2).scores(q, k)
    by_time = RelativeMorletRotary(16, seq_dim=1).scores(q.transpose(1, 2), k.transpose(1, 2))
    assert by_heads.shape == (2, 4, 10, 10) and torch.equal(by_heads, by_time)
    with pytest.raises(ValueError, match=r"RelativeMorletRotary: q must be .*head_size=16.*\(2, 4, 10, 40\)"):
        RelativeMorletRotary(16, seq_dim=2).scores(torch.randn(2, 4, 10, 40), torch.randn(2, 4, 10, 40))
    with pytest.raises(ValueError, match="say which: seq_dim=2 or seq_dim=1"):
        RelativeMorletRotary(16).scores(q, k)
    with pytest.raises(ValueError, match="RelativeMorletRotary: offset must be"):
        RelativeMorletRotary(16, seq_dim=2).scores(q, k, offset=-1)
    with pytest.raises(ValueError, match="RelativeMorletRotary: 2 queries at offset 1 against 10 keys put a key"):
        RelativeMorletRotary(16, seq_dim=2).scores(q[:, :, :2], k, offset=1)


def by_the_formula(head_size: int, base: float = 10000.0) -> tuple[torch.Tensor, torch.Tensor]:
    """θ_j = base^(−2j/d_k) and the initial σ_j = 5/θ_j, float64, written out here (not read from the package)."""
    theta = torch.tensor([base ** (-2 * j / head_size) for j in range(head_size // 2)], dtype=torch.float64)
    return theta, 5 / theta


def rotated_by_hand(x: torch.Tensor, positions: torch.Tensor, theta: torch.Tensor) -> torch.Tensor:
    """Channel pair (2j, 2j+1) of x (..., T, d_k) at position b, as a complex number, times e^{iθ_j b}."""
    pairs = torch.view_as_complex(x.double().unflatten(-1, (-1, 2)).contiguous())
    turned = pairs * torch.polar(torch.ones_like(theta), positions[:, None] * theta)
    return torch.view_as_real(turned).flatten(-2)


def test_morlet_rope_rotates_each_pair_and_scales_it_by_its_gaussian_at_the_position():
    """MorletRotary (Eq. of §7 as read here): pair j of a query or key at position b turned by θ_j b and scaled by
    e^{−b²/2σ_j²}, σ_j from 5/θ_j; queries at offset … and keys ending where they end. Each side is scaled by its
    own position (the envelope on q alone, a halved exponent, or a flipped sign fails)."""
    g = torch.Generator().manual_seed(3)
    hook = MorletRotary(8, seq_dim=2)
    theta, sigma = by_the_formula(8)
    assert torch.allclose(hook.log_sigma.exp().double(), sigma, rtol=1e-6)
    with torch.no_grad():
        hook.log_sigma.copy_(torch.tensor([0.5, 1.0, 1.6, 2.2]))  # every pair's envelope matters over 12 positions
    sigma = hook.log_sigma.detach().double().exp()
    q, k = torch.randn(2, 3, 4, 8, generator=g), torch.randn(2, 3, 12, 8, generator=g)
    rotated_q, rotated_k = hook.rotate(q, k, offset=8)  # queries at 8 … 11, keys at 0 … 11
    for x, got, positions in ((q, rotated_q, torch.arange(8, 12.0)), (k, rotated_k, torch.arange(0, 12.0))):
        positions = positions.double()
        envelope = torch.exp(-positions[:, None] ** 2 / (2 * sigma**2)).repeat_interleave(2, dim=-1)
        assert torch.allclose(got.double(), rotated_by_hand(x, positions, theta) * envelope, atol=1e-5)


def test_relative_morlet_rope_scores_are_each_pairs_dot_product_damped_by_its_gaussian_of_the_offset():
    """RelativeMorletRotary.scores: Σ_j (q_j · k_j) e^{−(i−k)²/4σ_j²} / √d_k, pair by pair, σ_j from 5/θ_j, queries
    at offset … against keys ending where they end (no envelope, a /2σ² exponent or a flipped sign fails)."""
    g = torch.Generator().manual_seed(4)
    hook = RelativeMorletRotary(8, seq_dim=2)
    theta, sigma = by_the_formula(8)
    assert torch.allclose(hook.log_sigma.exp().double(), sigma, rtol=1e-6)
    with torch.no_grad():
        hook.log_sigma.copy_(torch.tensor([0.3, 0.9, 1.4, 2.0]))
    sigma = hook.log_sigma.detach().double().exp()
    q, k = torch.randn(2, 3, 4, 8, generator=g), torch.randn(2, 3, 10, 8, generator=g)
    offsets = torch.arange(6, 10.0).double()[:, None] - torch.arange(0, 10.0).double()[None, :]  # queries at 6 … 9
    pairwise = torch.einsum("bhipc,bhkpc->bhpik", q.double().unflatten(-1, (-1, 2)), k.double().unflatten(-1, (-1, 2)))
    damped = pairwise * torch.exp(-offsets**2 / (4 * sigma[:, None, None] ** 2))
    expected = damped.sum(dim=2) / 8**0.5
    assert torch.allclose(hook.scores(q, k, offset=6).double(), expected, atol=1e-5)
    rope = (q @ k.transpose(-1, -2)) / 8**0.5
    assert not torch.allclose(hook.scores(q, k, offset=6), rope, atol=1e-2)  # the envelope does damp


def test_absolute_morlet_rope_has_an_origin_prior():
    q, k = MorletRotary(32, seq_dim=2).rotate(*constant_content(64, 32))
    scores = (q @ k.transpose(-1, -2))[0, 0]
    assert not is_toeplitz(scores, atol=1e-3)


def test_alibi_slopes_for_eight_heads():
    assert torch.allclose(alibi_slopes(8), torch.tensor([2.0 ** -h for h in range(1, 9)]))


def test_alibi_slopes_for_six_heads_follow_press_et_al():
    # 4 slopes of the 4-head sequence, then every other slope of the 8-head sequence
    expected = [2.0 ** -2, 2.0 ** -4, 2.0 ** -6, 2.0 ** -8, 2.0 ** -1, 2.0 ** -3]
    assert torch.allclose(alibi_slopes(6), torch.tensor(expected))


def test_alibi_key_bias_equals_the_distance_penalty_after_softmax():
    length, slopes = 10, alibi_slopes(4)
    scores = torch.randn(1, 4, length, length)
    i = torch.arange(length)
    distance = (i[:, None] - i[None, :]).float()
    mask = torch.full((length, length), float("-inf")).triu(1)
    penalised = torch.softmax(scores - slopes[:, None, None] * distance + mask, -1)
    key_biased = torch.softmax(scores + ALiBi(4).logit_bias(length) + mask, -1)
    assert torch.allclose(penalised, key_biased, atol=1e-6)
