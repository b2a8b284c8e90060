"""scripts/cpu_suite.sh: its stages list without error, name only presets and variants that exist, and keep
the order its header promises."""
import re
import subprocess
from pathlib import Path

from mope.model.variants import VARIANTS
from mope.store.presets import PRESETS

ROOT = Path(__file__).resolve().parents[1]
STAGE = re.compile(r"^== stage (\d+): preset (\S+), seeds ([\d ]+): (.*)$")


def stages() -> list[tuple[str, list[int], list[str]]]:
    done = subprocess.run(["bash", str(ROOT / "scripts" / "cpu_suite.sh"), "--list"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and not done.stderr, done.stderr  # e.g. a list of variants never defined
    found = []
    for line in done.stdout.splitlines():
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
