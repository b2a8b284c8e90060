"""scripts/cpu_suite.sh: its stages (mope.store.plan.CPU_STAGES) list without error, name only presets and
variants that exist, and keep the order the plan promises."""
import os
import re
import subprocess
import sys
from pathlib import Path

from mope.model.variants import VARIANTS
from mope.store.presets import PRESETS

ROOT = Path(__file__).resolve().parents[1]
STAGE = re.compile(r"^== stage (\d+): preset (\S+), seeds ([\d ]+): (.*)$")


def listing() -> list[str]:
    """The lines of ``cpu_suite.sh --list``."""
    done = subprocess.run(["bash", str(ROOT / "scripts" / "cpu_suite.sh"), "--list"], capture_output=True, text=True,
                          timeout=60, env=os.environ | {"PYTHON": sys.executable})
    assert done.returncode == 0 and not done.stderr, done.stderr  # e.g. a list of variants never defined
    return done.stdout.splitlines()


def stages() -> list[tuple[str, list[int], list[str]]]:
    found = []
    for line in listing():
        match = STAGE.match(line)
        if match:
            found.append((match[2], [int(s) for s in match[3].split()], match[4].split()))
    return found


def test_every_stage_names_a_preset_and_variants_that_exist():
    listed = stages()
    assert listed
    for preset, seeds, variants in listed:
        assert preset in PRESETS and seeds and variants, (preset, seeds, variants)
        assert set(variants) <= set(VARIANTS), set(variants) - set(VARIANTS)


def test_the_open_questions_come_after_the_cpu_long_runs():
    listed = stages()
    last_long = max(i for i, (preset, _, _) in enumerate(listed) if preset == "cpu-long")
    subword = [i for i, (preset, _, _) in enumerate(listed) if preset == "cpu-bpe"]
    assert subword and min(subword) > last_long
    assert listed[subword[0]][1:] == ([0, 1, 2, 3, 4], ["BASE-DOT", "PE-MORLET", "PE-SINCOS", "NOPE"])
    controls = ["PE-MORLET-CENTRED", "PE-MORLET-FREE", "MORLET-ROPE", "MORLET-ROPE-REL", "ROPE-ONLY"]
    later = [i for i, stage in enumerate(listed) if stage == ("cpu", [1, 2, 3, 4], controls)]
    assert later and later[0] > last_long


def test_the_script_lists_the_plans_stages_in_order_then_the_sweep():
    from mope.store.plan import CPU_STAGES

    assert [(preset, seeds, variants) for preset, seeds, variants in stages()] == [
        (stage.preset, list(stage.seeds), list(stage.variants)) for stage in CPU_STAGES]
    numbered = [line for line in listing() if line.startswith("== stage ")]
    assert len(numbered) == len(CPU_STAGES) + 1
    assert numbered[-1] == f"== stage {len(CPU_STAGES) + 1}: the sweep behind the cpu preset"


def test_the_plan_gives_each_presets_seeds_and_none_for_a_preset_no_script_trains():
    import pytest

    from mope.store.plan import planned_seeds, stage_lines

    assert planned_seeds("cpu-long")["EGA-MORLET"] == (0, 1, 2, 3, 4)  # issue 29: five seeds at T = 256
    assert planned_seeds("paper")["BASE-DOT"] == (0, 1, 2)
    assert "PE-MORLET-FREE" not in planned_seeds("cpu-long")
    assert planned_seeds("smoke") is None
    with pytest.raises(ValueError, match="choose cpu or gpu"):
        stage_lines("tpu")
