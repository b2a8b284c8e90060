"""The paper-scale GPU script (scripts/gpu_suite.sh) is valid bash and names only registry variants."""
import subprocess
from pathlib import Path

from mope import TABLE_2, VARIANTS
from mope.cli import build_parser
from mope.store.presets import get_preset
from mope.store.results import config_hash

SCRIPT = Path(__file__).parents[1] / "scripts" / "gpu_suite.sh"


def test_script_parses_as_bash():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_script_trains_the_plans_stages_the_six_models_first_then_registry_controls():
    from mope.store.plan import GPU_STAGES, stage_lines

    assert "-m mope.store.plan gpu" in SCRIPT.read_text()
    assert {stage.preset for stage in GPU_STAGES} == {"paper"}
    assert (GPU_STAGES[0].name, list(GPU_STAGES[0].variants), GPU_STAGES[0].seeds) == ("table2-seed0", TABLE_2, (0,))
    assert all(set(stage.variants) <= set(VARIANTS) and stage.seeds and stage.name for stage in GPU_STAGES)
    assert stage_lines("gpu")[0] == "table2-seed0|0|" + " ".join(TABLE_2) + "|"


def test_one_window_trains_issue_59s_headline_seeds_beside_the_causal_gates():
    """The wave after Table 2's seed 0 is six runs that share the GPU: BASE-DOT and EGA-MORLET at seeds 1-2 and
    the two causal gates at seed 0; the script starts a stage marked "+" together with the one before it."""
    from mope.store.plan import stage_lines

    lines = stage_lines("gpu")
    assert lines[1:3] == ["headline-seeds12|1 2|BASE-DOT EGA-MORLET|", "causal-seed0|0|EGA-1-CAUSAL EGA-MORLET-CAUSAL|+"]
    assert not lines[3].endswith("|+")
    assert '[[ "$line" == *"|+" ]] || run_wave' in SCRIPT.read_text()


def test_shortened_runs_get_their_own_configuration_hash():
    paper = get_preset("paper")
    short = paper.shortened(30)
    assert (short.steps, short.warmup, short.eval_interval) == (30, 3, 29)
    assert config_hash(paper.shape(), short) != config_hash(paper.shape(), paper)
    assert build_parser().parse_args(["train", "BASE-DOT", "--preset", "paper", "--steps", "30"]).steps == 30


def test_a_fresh_machine_starts_from_the_stored_runs_so_it_never_trains_them_again(tmp_path):
    """The script copies results/<preset> into its store before any stage (without overwriting a warm
    machine's): run that line alone in a scratch checkout."""
    line = next(l for l in SCRIPT.read_text().splitlines() if l.startswith('if [[ -d "results/$PRESET" ]]'))
    stored = tmp_path / "results" / "paper" / "BASE-DOT"
    stored.mkdir(parents=True)
    (stored / "seed0.json").write_text("stored")
    store = tmp_path / "store"
    (store / "paper" / "EGA-1").mkdir(parents=True)
    (store / "paper" / "EGA-1" / "seed1.json").write_text("warm")
    subprocess.run(["bash", "-c", f'PRESET=paper; RESULTS_DIR="{store}"; {line}'], cwd=tmp_path, check=True)
    assert (store / "paper" / "BASE-DOT" / "seed0.json").read_text() == "stored"
    assert (store / "paper" / "EGA-1" / "seed1.json").read_text() == "warm"
