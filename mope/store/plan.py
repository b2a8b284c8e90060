"""The runs this book plans: the stages of its two training scripts, in the order they run.

``scripts/cpu_suite.sh`` (two CPU cores) and ``scripts/gpu_suite.sh`` (one GPU, the ``paper`` preset) read
their stages from here, and the chapters count a preset's runs against what it plans
(:func:`planned_seeds`), so that a run nobody intends to train is never reported as missing. A stage
trains every variant it names at every seed it names; both scripts skip what is stored.

    python -m mope.store.plan cpu    # a line a stage: preset|variants|seeds|only_if (claims; may be empty)
    python -m mope.store.plan gpu    # a line a stage: name|seeds|variants|beside ("+": beside the one before)
"""
from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass

from mope.model.variants import TABLE_2

KEY_CONTROLS = ("EGA-1-CAUSAL", "EGA-MORLET-CAUSAL", "NOPE", "PE-MORLET-NODECAY", "PE-SINCOS-SCALED")
OTHER_CONTROLS = ("ROPE-ONLY", "ALIBI", "PE-MORLET-FREE", "PE-MORLET-CENTRED", "MORLET-ROPE", "MORLET-ROPE-REL")
# issue 32: the models of the paper's open questions (a learned centre, no bound, Morlet-RoPE) and RoPE alone
OPEN_QUESTIONS = ("PE-MORLET-CENTRED", "PE-MORLET-FREE", "MORLET-ROPE", "MORLET-ROPE-REL", "ROPE-ONLY")


@dataclass(frozen=True)
class Stage:
    preset: str
    variants: tuple[str, ...]
    seeds: tuple[int, ...]
    name: str = ""  # the GPU script's log names its stages
    # trained only once one of these claims is confirmed on the preset (the script asks `python -m mope
    # claims --preset P --confirmed KEY ...`); () = always
    only_if: tuple[str, ...] = ()
    # the claims this stage's seeds look at again after a verdict on earlier seeds: a further look, judged
    # at the sequential threshold (mope.evidence.corrections)
    further_look: tuple[str, ...] = ()
    # the GPU script starts this stage side by side with the one before it (one wave of runs sharing the GPU),
    # so that a window shorter than two runs still trains both
    beside_previous: bool = False


# The claims each stage looks at again, its seeds added after a verdict on the preset's earlier seeds had been
# shown (every claim then judged on the variants it trains: a verdict at n = 3 was on the page, whatever
# claim the seeds were added for). Seeds 3-7 of Table 2 on `cpu`: its claims and Table 3's σ, and the growth of
# PE-MORLET's loss with the context; seeds 3-4 of the key controls: the claims that rest on them.
TABLE_2_LOOK = ("mope-below-base", "mope-beats-sincos", "rope-matches-base", "rope-beats-mope", "rope-beats-sincos",
                "ega-gain", "ega-mope-gain", "ega-mope-best", "interaction", "sigma-set-by-data", "extrapolates")
KEY_CONTROLS_LOOK = ("locality-not-scale", "gain-survives-causal-gate", "every-pair-pushed", "mope-beats-nope")
# Seeds 3-4 on cpu-long were added after "MoPE's deficit shrinks with context" came out undecided at n = 3: a
# second look at it and at every claim those models decide there, both claims across contexts included.
CONTEXT_LOOK = ("deficit-shrinks-with-context", "sincos-gap-grows-with-context")

# The CPU suite, in order of importance. cpu-short comes early because it is cheap (~4 min a run). Seeds
# 3-7 of Table 2 on `cpu` (issue 20) decide the claims three seeds leave open. Issue 29 then trains every
# claim's models at the paper's context (cpu-long); after it, the paper's open questions (issue 32), whose
# claims were fixed before their runs: four models on subword tokens (cpu-bpe), then seeds 1-4 of the
# `cpu` controls that answer the others. Last, seeds 3-4 of the key controls on `cpu`, the five seeds they have
# on `cpu-long`: the claims that rest on them (locality against scale, salience, every pair on the bound, MoPE
# against NOPE) then stand on as many seeds at both contexts. The script trains a stage seed by seed, so that
# every stop leaves its models with the same seeds.
CPU_STAGES = (
    Stage("cpu", (*TABLE_2,), (0,)),
    Stage("cpu-short", (*TABLE_2, "NOPE", "EGA-1-CAUSAL", "PE-SINCOS-SCALED"), (0, 1, 2)),
    Stage("cpu-short", ("EGA-MORLET-CAUSAL", "PE-MORLET-NODECAY", *OTHER_CONTROLS), (0,)),
    Stage("cpu", KEY_CONTROLS, (0,)),
    Stage("cpu", (*TABLE_2,), (1, 2)),
    Stage("cpu", KEY_CONTROLS, (1, 2)),
    Stage("cpu", OTHER_CONTROLS, (0,)),
    Stage("cpu", (*TABLE_2,), (3, 4, 5, 6, 7), further_look=TABLE_2_LOOK),
    Stage("cpu-long", ("BASE-DOT", "PE-MORLET", "PE-SINCOS", "NOPE"), (0, 1, 2)),
    Stage("cpu-long", ("PE-ROPE", "EGA-1", "EGA-MORLET", "EGA-1-CAUSAL", "EGA-MORLET-CAUSAL", "PE-SINCOS-SCALED",
                       "PE-MORLET-NODECAY"), (0, 1, 2)),
    Stage("cpu-long", (*TABLE_2, "NOPE", "EGA-1-CAUSAL", "EGA-MORLET-CAUSAL", "PE-SINCOS-SCALED", "PE-MORLET-NODECAY"),
          (3, 4), further_look=(*CONTEXT_LOOK, *TABLE_2_LOOK, *KEY_CONTROLS_LOOK)),
    Stage("cpu-bpe", ("BASE-DOT", "PE-MORLET", "PE-SINCOS", "NOPE"), (0, 1, 2, 3, 4)),
    Stage("cpu", OPEN_QUESTIONS, (1, 2, 3, 4)),
    Stage("cpu", KEY_CONTROLS, (3, 4), further_look=KEY_CONTROLS_LOOK),
    # Issue 43: cpu-long at four times the tokens, its three rules (claims across budgets) committed before
    # its first run. The headline first (BASE-DOT, EGA-MORLET), then EGA-1 and PE-MORLET, seeds 0-2; the
    # causal gates only if EGA-1's gain grows with the tokens or EGA-MORLET beats BASE-DOT there (is a gain
    # that appears with tokens salience or the future?).
    Stage("cpu-long-4x", ("BASE-DOT", "EGA-MORLET"), (0, 1, 2)),
    Stage("cpu-long-4x", ("EGA-1", "PE-MORLET"), (0, 1, 2)),
    Stage("cpu-long-4x", ("EGA-1-CAUSAL", "EGA-MORLET-CAUSAL"), (0, 1, 2),
          only_if=("ega-gain-grows-with-tokens", "ega-mope-beats-base-more-tokens")),
    # Issue 59: the paper's protocol on the CPU (float32, about 14 h a run with two side by side), its family
    # (FAMILIES["paper"]) committed before the first of these runs. The headline at three seeds first, then the
    # causal gates (is EGA's gain at the paper's scale salience or the future?), then EGA-1 and PE-MORLET.
    Stage("paper", ("BASE-DOT", "EGA-MORLET"), (1, 2)),
    Stage("paper", ("EGA-1-CAUSAL", "EGA-MORLET-CAUSAL"), (0,)),
    Stage("paper", ("EGA-1", "PE-MORLET"), (1, 2)),
)

# The GPU suite (one H200, 15 minutes a task): the decisive runs first, since a window may end any time. A wave
# of six paper runs side by side takes 270-400 s or more (EGA-MORLET 365 s, the causal gates longer), so one
# window trains one wave: after Table 2's seed 0, issue 59's runs (the headline at three seeds, stored, beside
# the causal gates at seed 0, which the CPU now trains), then the rest.
GPU_STAGES = (
    Stage("paper", (*TABLE_2,), (0,), "table2-seed0"),
    Stage("paper", ("BASE-DOT", "EGA-MORLET"), (1, 2), "headline-seeds12"),
    Stage("paper", ("EGA-1-CAUSAL", "EGA-MORLET-CAUSAL"), (0,), "causal-seed0", beside_previous=True),
    Stage("paper", KEY_CONTROLS, (0,), "controls-seed0"),
    Stage("paper", (*TABLE_2,), (1,), "table2-seed1"),
    Stage("paper", (*TABLE_2,), (2,), "table2-seed2"),
    Stage("paper", ("NOPE", "PE-SINCOS-SCALED"), (1, 2), "controls-seeds12"),
    Stage("paper", ("EGA-1-CAUSAL", "EGA-MORLET-CAUSAL"), (1, 2), "causal-seeds12"),
)

#: Each preset's family: the claims whose tests are corrected together (Holm's correction at 5% over the family,
#: :mod:`mope.evidence.corrections`), declared here before the runs it judges (`paper`'s before its seeds 1-2
#: and its causal gates, `cpu-long-4x`'s and the others' after their runs, a change the rules' history
#: records with the verdicts it moved). A family holds every claim the plan tests on the preset: each claim whose
#: models the plan trains there at two seeds or more (a conditional stage's too), whose rule is a test (not "every
#: pair", a count; not a near-equality off the paper's protocol, which is not judged), and whose home is the preset
#: (a claim across two contexts or two token budgets belongs to the family of its twin with the longer context or
#: the more tokens alone). A planned test without runs counts at p = 1, so that another claim's first runs can only
#: make a claim's correction less strict, never change its family; a later look that moves another claim's p can
#: move a claim's adjusted p either way (Holm's adjusted p is a running maximum over the smaller p-values), never its
#: family (tests/test_verdict_edges.py). One family a preset, the paper's claims and ours
#: together: a reader takes every verdict a preset shows as one set, and the 5% bounds the chance of any false one.
FAMILIES: dict[str, tuple[str, ...]] = {
    "paper": ("mope-below-base", "mope-beats-sincos", "locality-not-scale", "rope-matches-base", "rope-beats-mope",
              "rope-beats-sincos", "ega-gain", "ega-mope-gain", "ega-mope-best", "interaction",
              "gain-survives-causal-gate", "sigma-set-by-data", "mope-beats-nope", "extrapolates"),
    "cpu-long-4x": ("mope-below-base", "ega-gain", "ega-mope-gain", "ega-mope-best", "interaction",
                    "gain-survives-causal-gate", "sigma-set-by-data", "extrapolates",
                    "ega-mope-deficit-shrinks-with-tokens", "ega-mope-beats-base-more-tokens",
                    "ega-gain-grows-with-tokens"),
    "cpu-long": ("mope-below-base", "mope-beats-sincos", "locality-not-scale", "rope-beats-mope", "rope-beats-sincos",
                 "ega-gain", "ega-mope-gain", "ega-mope-best", "interaction", "gain-survives-causal-gate",
                 "sigma-set-by-data", "mope-beats-nope", "extrapolates", "deficit-shrinks-with-context",
                 "sincos-gap-grows-with-context"),
    "cpu": ("mope-below-base", "mope-beats-sincos", "locality-not-scale", "rope-beats-mope", "rope-beats-sincos",
            "ega-gain", "ega-mope-gain", "ega-mope-best", "interaction", "gain-survives-causal-gate",
            "below-without-bound", "sigma-set-by-data", "mope-beats-nope", "extrapolates", "morlet-rope",
            "subword-sigma-beyond-words", "subword-deficit-smaller", "centre-improves-mope", "centres-leave-origin",
            "no-bound-improves-loss", "morlet-rope-rel"),
    "cpu-short": ("mope-below-base", "mope-beats-sincos", "locality-not-scale", "rope-beats-mope", "rope-beats-sincos",
                  "ega-gain", "ega-mope-gain", "ega-mope-best", "interaction", "gain-survives-causal-gate",
                  "sigma-set-by-data", "mope-beats-nope", "extrapolates"),
    "cpu-bpe": ("mope-below-base", "mope-beats-sincos", "mope-beats-nope", "extrapolates"),
}


def family(preset: str) -> tuple[str, ...] | None:
    """The claims of ``preset``'s family (:data:`FAMILIES`), or None where the plan declares none (``smoke``, a
    reader's own configuration): there every claim judged with a test is one of the family."""
    return FAMILIES.get(preset)


def planned_seeds(preset: str) -> dict[str, tuple[int, ...]] | None:
    """{variant: the seeds the scripts plan for it} on ``preset``, or None where no stage trains that preset
    (e.g. ``smoke``, which a reader trains at will)."""
    seeds: dict[str, set[int]] = {}
    for stage in (*CPU_STAGES, *GPU_STAGES):
        if stage.preset == preset and not stage.only_if:  # a conditional stage is planned once it is called for
            for variant in stage.variants:
                seeds.setdefault(variant, set()).update(stage.seeds)
    return {variant: tuple(sorted(s)) for variant, s in seeds.items()} if seeds else None


def looks(presets: Sequence[str], claim: str) -> int:
    """How many looks the plan makes at ``claim`` on ``presets`` (a claim across contexts or budgets: both
    presets it reads): its first verdict, and one more for every stage that records it as a further look."""
    return 1 + sum(stage.preset in presets and claim in stage.further_look for stage in (*CPU_STAGES, *GPU_STAGES))


def stage_lines(which: str) -> list[str]:
    """The stages of one script, a line each, as the script reads them."""
    if which == "cpu":
        return [f"{s.preset}|{' '.join(s.variants)}|{' '.join(map(str, s.seeds))}|{' '.join(s.only_if)}"
                for s in CPU_STAGES]
    if which == "gpu":
        return [f"{s.name}|{' '.join(map(str, s.seeds))}|{' '.join(s.variants)}|{'+' if s.beside_previous else ''}"
                for s in GPU_STAGES]
    raise ValueError(f"unknown suite {which!r}: choose cpu or gpu")


if __name__ == "__main__":
    try:
        print("\n".join(stage_lines(sys.argv[1] if len(sys.argv) > 1 else "")))
    except ValueError as error:
        sys.exit(f"mope.store.plan: {error}")
