"""The paper-scale GPU script (scripts/gpu_suite.sh) is valid bash and names only registry variants."""
import re
import subprocess
from pathlib import Path

from mope import TABLE_2, VARIANTS
from mope.cli import build_parser
from mope.store.presets import get_preset
from mope.store.results import config_hash

SCRIPT = Path(__file__).parents[1] / "scripts" / "gpu_suite.sh"


def test_script_parses_as_bash():
    subprocess.run(["bash", "-n", str(SCRIPT)], check=True)


def test_script_trains_the_six_models_first_then_registry_controls():
    text = SCRIPT.read_text()
    table2 = re.search(r"^TABLE2=\((.*)\)$", text, re.M).group(1).split()
    controls = re.search(r"^CONTROLS=\((.*)\)$", text, re.M).group(1).split()
    assert table2 == TABLE_2
    assert set(controls) <= set(VARIANTS)
    stages = re.findall(r"^stage (\S+)", text, re.M)
    assert stages[0] == "table2-seed0"


def test_shortened_runs_get_their_own_configuration_hash():
    paper = get_preset("paper")
    short = paper.shortened(30)
    assert (short.steps, short.warmup, short.eval_interval) == (30, 3, 29)
    assert config_hash(paper.shape(), short) != config_hash(paper.shape(), paper)
    assert build_parser().parse_args(["train", "BASE-DOT", "--preset", "paper", "--steps", "30"]).steps == 30
