#!/usr/bin/env bash
# The CPU evidence of the book, in order of importance (issue 10): every stage is one
# `python -m mope suite --jobs 2`, which skips what is stored and current, so an interrupted suite
# carries on where it stopped when started again.
#
#   bash scripts/cpu_suite.sh            # all stages, two runs side by side (one torch thread each)
#   bash scripts/cpu_suite.sh --list     # print the stages only
#   FIRST_STAGE=3 bash scripts/cpu_suite.sh   # start at the third stage (another checkout runs the first ones)
#   CHECKPOINT_INTERVAL=50 bash scripts/cpu_suite.sh   # checkpoint more often than the presets do (a machine that
#                                                        # stops the runs between sessions loses less of them)
#
# Run it from a committed, clean checkout (a stored run records `git_dirty`; the book's numbers come
# from clean runs only), e.g. a worktree of main: `git worktree add --detach ../runs main`, then in
# ../runs: `PYTHONPATH=$PWD MOPE_DATA_DIR=... bash scripts/cpu_suite.sh` (PYTHONPATH makes the
# worktree's own `mope` win over an editable install of another checkout). Commit results/ as runs
# finish. Timing: a `cpu` run takes ~13-16 min with two side by side on two quiet cores.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
JOBS="${JOBS:-2}"
FIRST_STAGE="${FIRST_STAGE:-1}"
INTERVAL=(${CHECKPOINT_INTERVAL:+--checkpoint-interval "$CHECKPOINT_INTERVAL"})

# The stages, in order of importance, are those of mope/store/plan.py (CPU_STAGES, with the reasons for
# their order), a line each: preset|variants|seeds|only_if (a stage trained only once one of those claims is
# confirmed on its preset). "sweep" comes last: it re-runs whatever is missing or
# stale of the stored sweep that chose `cpu` (scripts/sweep_cpu_preset.py), on which no verdict rests.
plan=$("$PYTHON" -m mope.store.plan cpu)
mapfile -t STAGES <<< "$plan"
STAGES+=("sweep||")

for index in "${!STAGES[@]}"; do
    (( index + 1 >= FIRST_STAGE )) || continue
    IFS="|" read -r preset variants seeds only_if <<< "${STAGES[$index]}"
    if [[ "$preset" == "sweep" ]]; then
        echo "== stage $((index + 1)): the sweep behind the cpu preset"
        [[ "${1:-}" == "--list" ]] || "$PYTHON" scripts/sweep_cpu_preset.py --jobs "$JOBS"
        continue
    fi
    echo "== stage $((index + 1)): preset $preset, seeds $seeds: $variants"
    if [[ -n "${only_if:-}" ]]; then
        echo "   only if one of these is confirmed on $preset: $only_if"
        if [[ "${1:-}" == "--list" ]]; then continue; fi
        # shellcheck disable=SC2086  # word splitting of the list is intended
        if ! "$PYTHON" -m mope claims --preset "$preset" --confirmed $only_if; then
            echo "   not called for: skipped"
            continue
        fi
    fi
    if [[ "${1:-}" == "--list" ]]; then continue; fi
    for seed in $seeds; do  # seed by seed: every model gets a seed before any model gets the next
        # shellcheck disable=SC2086  # word splitting of the list is intended
        "$PYTHON" -m mope suite --preset "$preset" --jobs "$JOBS" --variants $variants --seeds "$seed" --no-progress "${INTERVAL[@]}"
    done
done
