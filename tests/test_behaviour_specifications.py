"""Behaviours no test guarded (issue 75: of 72 planted one-line bugs, these survived every test), each written as the
behaviour it specifies: a count claim is the whole or it fails; the learned centres are judged in units of σ; the
extrapolation claim is read at four times the trained length; the seeds that would settle a verdict come from the
spread with its resolution floor; the gate's ``reset_parameters`` re-initialises τ; Rotary turns by the relative
position m − n. And two edges of the verdict rules: identical runs never confirm a size claim, and what another
claim's runs can do to a claim's correction."""
from __future__ import annotations

import math
import random

import numpy as np
import torch

from mope.evidence import corrections, learned_parameters, measures, open_questions, verdict_rules, verdicts
from mope.evidence.estimates import RESOLUTION, estimate, seeds_needed
from mope.model.energy_gate import FutureReadingEnergyGate
from mope.model.positional.rope import Rotary


# --- a count claim ("every pair") is the whole, or it fails -----------------------------------------------------

def test_a_count_claim_fails_when_one_pair_of_one_seed_falls_short_of_the_whole():
    reference = {"stored_product": np.full(1000, 5.0)}
    pushed = {"omega_raw": np.full(1000, 1.0), "sigma_raw": np.full(1000, 4.0)}  # ωσ = 4: every pair below 5
    assert learned_parameters.below_decay_only(pushed, reference) == 1.0
    one_short = {"omega_raw": pushed["omega_raw"], "sigma_raw": np.r_[np.full(999, 4.0), 5.0]}
    share = learned_parameters.below_decay_only(one_short, reference)
    assert share == 0.999  # 999 of 1,000 pairs
    assert verdicts.verdict_every(estimate({0: 1.0, 1: 1.0, 2: 1.0})).outcome == "confirmed"
    short = verdicts.verdict_every(estimate({0: 1.0, 1: 1.0, 2: share}))
    assert short.outcome == "refuted" and short.text == "refuted: 99.9% of pairs; below 100% in seed 2"


# --- the learned centres are judged in units of their pair's σ --------------------------------------------------

def centred_run(seed: int, centre_in_sigmas: float, sigma: float) -> dict:
    pairs = 4
    return {"variant": "PE-MORLET-CENTRED", "seed": seed, "final": {"val_loss": 2.0},
            "learned": {"morlet": {"sigma": [sigma] * pairs, "centre": [centre_in_sigmas * sigma] * pairs}}}


def test_centres_half_a_sigma_into_the_window_have_not_left_the_origin_however_many_positions_that_is():
    # σ = 10 positions: a centre at 5 positions is half a σ, inside the peak the origin prior puts there
    runs = [centred_run(seed, 0.5 + seed / 1000, sigma=10.0) for seed in range(3)]
    shift, _ = open_questions.centres_into_window(runs, None)
    assert shift.values == {0: 0.5, 1: 0.501, 2: 0.502}
    assert verdicts.verdict_mechanism(shift, 1.0, +1).outcome == "refuted"
    wide = [centred_run(seed, 2.0 + seed / 1000, sigma=0.5) for seed in range(3)]  # 2 σ: one position
    assert verdicts.verdict_mechanism(open_questions.centres_into_window(wide, None)[0], 1.0, +1).outcome == "confirmed"


# --- the extrapolation claim is read at four times the trained length -------------------------------------------

def test_extrapolation_is_the_loss_at_four_times_the_trained_length_minus_at_once():
    runs = [{"variant": "PE-MORLET", "seed": seed,
             "final": {"val_loss_full_by_context": {"1x": 2.0, "2x": 1.95, "4x": 2.3 + seed / 100}}}
            for seed in range(3)]
    growth, _ = measures.extrapolation(runs, None)
    assert {seed: round(value, 6) for seed, value in growth.values.items()} == {0: 0.3, 1: 0.31, 2: 0.32}
    assert verdicts.verdict_mechanism(growth, 0.0, -1).outcome == "refuted"  # worse at 4x: it does not generalise


# --- the seeds that would settle a verdict come from the spread with its resolution floor ----------------------

def test_the_seeds_that_would_settle_a_verdict_take_the_spread_at_its_resolution_floor():
    # three seeds that agree to the seventh decimal: their sd says nothing below the numbers' resolution
    agreeing = estimate({0: 0.0005, 1: 0.0005001, 2: 0.0004999})
    assert agreeing.sd < 1e-6 and agreeing.spread == RESOLUTION
    verdict = verdicts.verdict_ordering(agreeing)
    assert verdict.outcome == "undecided"
    assert verdict.seeds_needed == seeds_needed(RESOLUTION, agreeing.mean) > 3
    assert seeds_needed(agreeing.sd, agreeing.mean) == 2  # what the raw sd would have promised


# --- the gate's reset_parameters re-initialises τ ----------------------------------------------------------------

def test_reset_parameters_after_to_empty_of_a_meta_build_gives_the_gates_initial_alpha_and_tau():
    with torch.device("meta"):
        gate = FutureReadingEnergyGate(n_embd=8, n_head=2, warn=False)
    gate.to_empty(device="cpu")
    with torch.no_grad():  # what memory held: anything
        for parameter in gate.parameters():
            parameter.fill_(123.0)
    gate.reset_parameters()
    assert torch.equal(gate.tau, torch.zeros(2)) and torch.equal(gate.alpha, torch.full((2,), 2.0))
    assert not torch.equal(gate.energy.weight, torch.full_like(gate.energy.weight, 123.0))


# --- Rotary turns by the relative position m − n ----------------------------------------------------------------

def test_rotary_scores_depend_on_the_relative_position_query_minus_key_in_its_direction():
    # one channel pair of frequency θ = 1: the query (1, 0) at m and the key (0, 1) at n score sin(m − n)
    rope = Rotary(head_size=2)
    positions = 7
    q = torch.tensor([1.0, 0.0]).expand(1, 1, positions, 2)
    k = torch.tensor([0.0, 1.0]).expand(1, 1, positions, 2)
    rotated_q, rotated_k = rope.rotate(q, k, seq_dim=2)  # (batch, heads, time, head_size)
    scores = (rotated_q @ rotated_k.transpose(-1, -2))[0, 0]
    m, n = torch.meshgrid(torch.arange(positions), torch.arange(positions), indexing="ij")
    torch.testing.assert_close(scores, torch.sin((m - n).float()), atol=1e-5, rtol=0)


# --- identical runs never confirm a size claim -------------------------------------------------------------------

def test_identical_runs_count_as_one_and_never_confirm_a_size_claim():
    copies = estimate({0: 0.119, 1: 0.119, 2: 0.119})  # three copies of one run: sd 0
    size = verdicts.verdict_size(copies, 0.119)
    assert size.outcome == "indicative" and "its 3 seeds give one value (sd 0), as copies of one run do, so they count as one" in size.detail
    direction = verdicts.verdict_direction(copies, 0.119, "cpu")
    assert direction.outcome == "indicative" and direction.judged_on == "direction"
    seeds = verdicts.verdict_size(estimate({0: 0.118, 1: 0.119, 2: 0.120}), 0.119)  # three seeds that differ
    assert seeds.outcome == "confirmed" and seeds.size == "matches"


# --- what another claim's runs can do to a claim's correction ----------------------------------------------------

def test_another_claims_first_runs_only_make_a_claims_correction_less_strict():
    rng = random.Random(75)
    for _ in range(2000):
        family = [(f"claim {i}", rng.choice([1.0, rng.random(), rng.random() / 20])) for i in range(rng.randint(2, 12))]
        planned = [i for i, (_, p) in enumerate(family) if p == 1.0]
        if not planned:
            continue
        before = corrections.holm(family)
        first = rng.choice(planned)
        family[first] = (family[first][0], rng.random() ** 3)  # a planned test at p = 1 gets its runs
        after = corrections.holm(family)
        assert all(after[key] <= before[key] + 1e-12 for key, _ in family if key != family[first][0])


def test_a_later_look_that_moves_another_claims_p_can_make_a_claims_correction_stricter():
    # what the rules say since issue 75: a later look may move another claim's adjusted p either way
    before = corrections.holm([("looked at again", 0.01), ("unrelated", 0.02)])
    after = corrections.holm([("looked at again", 0.30), ("unrelated", 0.02)])
    assert math.isclose(before["unrelated"], 0.02) and math.isclose(after["unrelated"], 0.04)
    assert "either way" in {rule.name: rule for rule in verdict_rules.RULES}["families declared before the runs"].change
