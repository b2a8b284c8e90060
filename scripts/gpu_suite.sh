#!/usr/bin/env bash
# Paper-scale results on one CUDA machine (issue 5): the six models of Table 2 and the key controls at
# the `paper` preset (L6 H8 d256 T256, 5,001 iterations, batch 64, bf16 autocast).
#
#   bash scripts/gpu_suite.sh              # on the GPU machine; results in $RESULTS_DIR, packed into $OUT
#   bash scripts/gpu_suite.sh --rehearse   # on a CPU: the same stages with the smoke preset
#
# Needs python3 with torch, numpy and tqdm (the device image has them; nothing is installed there),
# the repository on PYTHONPATH, and TinyShakespeare under $MOPE_DATA_DIR (default: ./data, a gitignored
# copy carried with the working tree, since the device reaches no network).
#
# The paper's runs are the book's evidence, so they must come from committed code. First, here, in a
# clean checkout, `python -m mope stamp` writes .source-stamp.json (the commit and its files' hashes,
# gitignored); the device call carries it with the data (carry: ["data", ".source-stamp.json"]) and
# begins with `mv .git /tmp/` : the copy that reaches the device holds the .git of the commit the
# session started from, so against that git every later commit looks like uncommitted changes, while
# without it the copy checks itself against the stamp. The script stops at once if the copy does not
# match.
#
# Results are written to $RESULTS_DIR (default /tmp/mope-results, outside $OUT, which the device empties
# before each call), so a second call on the still-warm machine skips what the first one finished and
# resumes its runs in flight from their checkpoints (/tmp/mope-checkpoints). Every 15 s and at the end the
# store is packed into $OUT/paper-results.tgz: the device returns files at most two folders below $OUT,
# and what is under $OUT comes back even when the call is stopped at its limit. Unpack it here with
# `tar xzf paper-results.tgz -C results`.
#
# Stages run in order of importance, each as one `python -m mope suite` with a job a run, at most $JOBS
# (several runs share the GPU: small models leave it idle between kernels); a stage the plan marks "beside"
# runs side by side with the one before it, in one wave. A wave is only started while at least $STAGE_MIN_S
# seconds are left before $DEADLINE_S; a finished run is written at once, so a timeout loses only the runs
# still in flight.
#
# Measured on one H200 (2026-11-30, torch 2.11, commit 2394572): the six of Table 2 side by side took
# 262 s (BASE-DOT, PE-SINCOS, PE-MORLET), 297 s (PE-ROPE) and 326 s (EGA-1, EGA-MORLET) each, wall
# clock, evaluations included (~280-340k tokens/s each); three controls side by side 141 s each
# (~660k tokens/s). A 15-minute device budget thus holds Table 2 seed 0 and about three controls, with
# one machine start; the call that followed on the warm machine failed, taking its checkpoints with it.
# Measured again (2026-12-04, commit 3833ac6, fused AdamW): seed 0 of the six side by side 256-320 s each; the
# wave of issue 59, six side by side, 272 s (BASE-DOT) and 365 s (EGA-MORLET) a run, while the two causal
# gates beside them had not finished after 396 s: give such a wave 450 s.
# Rehearse on the CPU first: `--rehearse` runs every stage with the smoke preset (JOBS=2, a few
# minutes on 2 shared cores).
#
# What is stored (results/paper): seed 0 of the six, NOPE and PE-SINCOS-SCALED. A stored run is skipped
# at once, so the next window starts with the decisive wave (issue 59): BASE-DOT and EGA-MORLET seeds 1-2
# beside EGA-1-CAUSAL and EGA-MORLET-CAUSAL seed 0, six runs; then PE-MORLET-NODECAY seed 0, seeds 1-2 of
# the six, NOPE and PE-SINCOS-SCALED seeds 1-2. Since the loop's CUDA fast paths (no per-step host sync, fused AdamW on
# CUDA; issue 21) each run records provenance.throughput (tokens/s after the first step, MFU against the
# H200's bf16 peak): compare it with the 280-340k tokens/s per run measured before them.
# MOPE_FUSED_ADAMW=0 restores the optimizer of the stored seed-0 runs.
set -euo pipefail
cd "$(dirname "$0")/.."

PRESET=paper
if [[ "${1:-}" == "--rehearse" ]]; then PRESET=smoke; fi
OUT="${OUT:-/tmp/mope-gpu-out}"
JOBS="${JOBS:-6}"
DEADLINE_S="${DEADLINE_S:-480}"   # seconds from start after which no stage is started
STAGE_MIN_S="${STAGE_MIN_S:-340}" # a stage needs at least this long (one paper run, 6 in parallel: 262-326 s)
export MOPE_DATA_DIR="${MOPE_DATA_DIR:-$PWD/data}"
RESULTS_DIR="${RESULTS_DIR:-/tmp/mope-results}"
export MOPE_RESULTS_DIR="$RESULTS_DIR"
export MOPE_CHECKPOINT_DIR="${MOPE_CHECKPOINT_DIR:-/tmp/mope-checkpoints}"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1
PY="${PYTHON:-python3}"
mkdir -p "$OUT" "$RESULTS_DIR"
# A fresh machine starts with an empty store: give it the repository's stored runs of the preset first, or it
# trains them again (as the window of 2026-12-04 did with Table 2's seed 0); a warm machine's own are kept.
if [[ -d "results/$PRESET" ]]; then cp -rn "results/$PRESET" "$RESULTS_DIR/"; fi
START=$(date +%s)
log() { echo "[gpu_suite +$(( $(date +%s) - START ))s] $*" | tee -a "$OUT/gpu_suite.log"; }
pack() { tar czf "$OUT/paper-results.tgz.part" -C "$RESULTS_DIR" . && mv "$OUT/paper-results.tgz.part" "$OUT/paper-results.tgz"; }
( while sleep 15; do pack; done ) &
PACKER=$!
trap 'kill $PACKER 2>/dev/null || true; pack' EXIT

log "preset=$PRESET jobs=$JOBS deadline=${DEADLINE_S}s out=$OUT"
"$PY" - <<'PY' 2>&1 | tee -a "$OUT/gpu_suite.log"
import platform, torch
print("python", platform.python_version(), "torch", torch.__version__, "cuda", torch.cuda.is_available())
if torch.cuda.is_available():
    p = torch.cuda.get_device_properties(0)
    print("gpu", p.name, f"{p.total_memory / 2**30:.0f} GiB", "count", torch.cuda.device_count(),
          "bf16", torch.cuda.is_bf16_supported())
from mope.train.data import load_dataset
data = load_dataset()
print("data: vocab", data.vocab_size, "train", len(data.train), "val", len(data.val))
PY
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv | tee -a "$OUT/gpu_suite.log" || true

# The code that will run: its commit, and whether it differs from it (stop now rather than have every
# paper run refused; a rehearsal's smoke runs count either way).
if ! "$PY" - "$PRESET" <<'PY' 2>&1 | tee -a "$OUT/gpu_suite.log"
import sys
from mope.errors import UserError
from mope.store.presets import get_preset
from mope.store.code_version import check_committed, source_state
commit, dirty = source_state()
print("source", commit[:12], "differs from its commit (or has no stamp)" if dirty else "clean")
try:
    check_committed(get_preset(sys.argv[1]))
except UserError as error:
    sys.exit(f"mope: {error}")
PY
then
    log "stop: run 'python -m mope stamp' in a clean checkout and carry .source-stamp.json"
    exit 2
fi

stage() {  # stage NAME SEEDS... -- VARIANTS...   (one `mope suite`, as many jobs as runs, at most $JOBS)
    local name="$1"; shift
    local seeds=(); while [[ "$1" != "--" ]]; do seeds+=("$1"); shift; done; shift
    local jobs=$(( ${#seeds[@]} * $# )); (( jobs > JOBS )) && jobs=$JOBS
    log "stage $name: seeds ${seeds[*]} variants $* (jobs $jobs)"
    "$PY" -m mope suite --preset "$PRESET" --seeds "${seeds[@]}" --jobs "$jobs" --variants "$@" --no-progress \
        2>&1 | tee -a "$OUT/gpu_suite.log" || log "stage $name failed (continuing)"
}

# The stages, in order, are those of mope/store/plan.py (GPU_STAGES), a line each: name|seeds|variants|beside.
# A stage marked beside ("+") starts together with the one before it: a wave shares the GPU. A wave is only
# started while at least $STAGE_MIN_S seconds are left before $DEADLINE_S.
plan=$("$PY" -m mope.store.plan gpu)
mapfile -t STAGES <<< "$plan"
wave=()
run_wave() {
    (( ${#wave[@]} )) || return 0
    local left=$(( DEADLINE_S - ($(date +%s) - START) ))
    if (( left < STAGE_MIN_S )); then log "skip wave ${wave[*]%%|*}: ${left}s left before the deadline"; wave=(); return 0; fi
    local pids=() line name seeds variants
    for line in "${wave[@]}"; do
        IFS="|" read -r name seeds variants _ <<< "$line"
        # shellcheck disable=SC2086  # word splitting of the lists is intended
        stage "$name" $seeds -- $variants &
        pids+=($!)
    done
    wait "${pids[@]}" || true
    wave=()
}
for line in "${STAGES[@]}"; do
    [[ "$line" == *"|+" ]] || run_wave
    wave+=("$line")
done
run_wave
log "done; results:"
find "$RESULTS_DIR" -name '*.json' | sort | tee -a "$OUT/gpu_suite.log"
"$PY" - "$RESULTS_DIR" <<'PY' 2>&1 | tee -a "$OUT/gpu_suite.log"
import json, pathlib, sys
for f in sorted(pathlib.Path(sys.argv[1]).rglob("seed*.json")):
    r = json.loads(f.read_text()); p = r["provenance"]
    print(f"{r['variant']:18s} seed {r['seed']}: {p['tokens_per_s']:,.0f} tokens/s, wall {p['wall_time_s']:.0f}s on {p['device']}")
PY
"$PY" -m mope table --preset "$PRESET" --results-dir "$RESULTS_DIR" 2>&1 | tee -a "$OUT/gpu_suite.log" || true
