"""The claims on the paper's open questions (mope.evidence.open_questions, the last entries of CLAIMS): each
rule decides constructed runs as its `test` text states."""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mope.evidence import claims, open_questions
from mope.evidence.weight_decay import decay_factor
from mope.store.presets import TOKENIZATION_PAIRS, characters_per_word, get_preset
from mope.store.results import write_result
from synthetic_runs import decayed_morlet, morlet, run

BPE = get_preset("cpu-bpe")
NEW = ("subword-sigma-beyond-words", "subword-deficit-smaller", "centre-improves-mope", "centres-leave-origin",
       "no-bound-improves-loss", "morlet-rope-rel")


def records(runs, preset="cpu"):
    return {r["key"]: r for r in claims.claim_records(preset, runs, longer=[])}


def subword_morlet(sigmas: dict[int, float]):
    """PE-MORLET's parameters as decay alone leaves them under cpu-bpe, but pairs ``i`` at σ = sigmas[i]
    tokens (on the bound ωσ = 5)."""
    omega0, sigma0 = (np.asarray(decayed_morlet(64, decay_factor(BPE))["morlet"][k]) for k in ("omega_raw", "sigma_raw"))
    for pair, sigma in sigmas.items():
        omega0[pair], sigma0[pair] = 5 / sigma, sigma
    return morlet(omega0, sigma0)


def test_the_new_claims_stand_together_and_their_numbers_are_computed():
    keys = [c.key for c in claims.CLAIMS]
    assert keys[keys.index(NEW[0]):][:len(NEW)] == list(NEW)  # in order, after the paper's own (then the token budget's)
    beyond = claims.get_claim("subword-sigma-beyond-words")
    words, per_token = characters_per_word(), BPE.characters_per_token()
    threshold = open_questions.WORDS_BEYOND * words
    for number in (f"{words:.2f}", f"{threshold:.1f} characters", f"{threshold / per_token:.2f} tokens",
                   f"{per_token:.2f} characters a token", f"above {open_questions.SHARE_BEYOND:.0%}"):
        assert number in beyond.test, number
    assert (beyond.threshold, beyond.side) == (0.10, 1)
    assert f"{per_token:.2f} characters a token" in claims.get_claim("subword-deficit-smaller").test
    assert TOKENIZATION_PAIRS == {"cpu": "cpu-bpe"}


@pytest.mark.usefixtures("families_of_the_runs")
def test_sigma_beyond_two_words_in_characters_decides_the_subword_claim(store):
    per_token = BPE.characters_per_token()
    threshold_in_tokens = 2 * characters_per_word() / per_token  # 4.74 tokens
    # a quarter of the pairs at 5 tokens (11.7 characters): beyond two words; others at 4.5 (10.5 characters): not
    broad = {**{i: 5.0 for i in range(16)}, **{i: 4.5 for i in range(16, 32)}}
    assert 4.5 < threshold_in_tokens < 5.0
    for seed in range(3):
        write_result(run("PE-MORLET", seed, 3.6, learned=subword_morlet(broad), preset=BPE))
    found = records([])["subword-sigma-beyond-words"]
    assert (found["ours"], found["n"], found["outcome"]) == (0.25, 3, "confirmed")
    assert found["caveat"].startswith("σ above 11.1 characters = 4.74 tokens (2.33 characters a token)")
    for seed in range(3):  # no pair beyond 4.5 tokens: none beyond two words
        write_result(run("PE-MORLET", seed, 3.6, learned=subword_morlet({i: 4.5 for i in range(32)}), preset=BPE))
    assert (records([])["subword-sigma-beyond-words"]["ours"], records([])["subword-sigma-beyond-words"]["outcome"]) == (
        0.0, "refuted")
    assert records([], "cpu-short")["subword-sigma-beyond-words"]["outcome"] == "not_run"  # no subword twin


def claims_json(args: list[str], env: dict) -> dict | list:
    completed = subprocess.run([sys.executable, "-m", "mope", "claims", *args], env=env, capture_output=True,
                               text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout)


def test_the_verdicts_come_from_the_stored_runs_alone_without_the_data_set(store, tmp_path):
    """Issue 44: with $MOPE_DATA_DIR unset, an empty home (no cached copy) and no network (every download
    sent through a proxy where nothing listens), ``claims --preset cpu --json`` and ``claims --standing
    --json`` print what they print with the data, the subword claims decided on stored runs."""
    cpu, broad = get_preset("cpu"), {**{i: 5.0 for i in range(16)}, **{i: 4.5 for i in range(16, 32)}}
    for seed in range(3):
        write_result(run("BASE-DOT", seed, 1.66, full=1.66 + 0.002 * seed, preset=cpu))
        write_result(run("PE-MORLET", seed, 1.79, full=1.79 + 0.003 * seed, preset=cpu))
        write_result(run("BASE-DOT", seed, 3.6, full=3.60 + 0.002 * seed, preset=BPE))
        write_result(run("PE-MORLET", seed, 3.7, full=3.74 + 0.001 * seed, learned=subword_morlet(broad), preset=BPE))
    (home := tmp_path / "home").mkdir()
    offline = {key: value for key, value in os.environ.items() if key not in ("MOPE_DATA_DIR", "XDG_CACHE_HOME")}
    offline.update(HOME=str(home), **{name: "http://127.0.0.1:9" for name in
                                      ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")})
    offline.pop("no_proxy", None), offline.pop("NO_PROXY", None)
    verdicts = claims_json(["--preset", "cpu", "--json"], offline)
    outcomes = {record["key"]: record["outcome"] for record in verdicts["claims"]}
    assert outcomes["subword-sigma-beyond-words"] == outcomes["subword-deficit-smaller"] == "confirmed"
    assert verdicts == claims_json(["--preset", "cpu", "--json"], dict(os.environ))
    assert claims_json(["--standing", "--json"], offline) == claims_json(["--standing", "--json"], dict(os.environ))


def test_a_pair_beyond_two_words_counts_only_above_where_decay_alone_leaves_it():
    arrays = {"sigma": np.array([6.0, 6.0, 1.0, 1.0])}
    assert open_questions.share_beyond_words(arrays, np.array([5.0, 7.0, 0.5, 0.5]), per_token=2.33) == 0.25


def test_the_deficit_is_compared_in_nats_a_character(store):
    per_token = BPE.characters_per_token()
    characters = [r for s in range(3) for r in (run("BASE-DOT", s, 1.66, full=1.66 + 0.002 * s),
                                                run("PE-MORLET", s, 1.79, full=1.79 + 0.003 * s))]
    for seed in range(3):  # a deficit of 0.14 nats a token: 0.06 a character, smaller than 0.13
        write_result(run("BASE-DOT", seed, 3.6, full=3.60 + 0.002 * seed, preset=BPE))
        write_result(run("PE-MORLET", seed, 3.7, full=3.74 + 0.001 * seed, preset=BPE))
    smaller = records(characters)["subword-deficit-smaller"]
    assert smaller["ours"] == pytest.approx(0.13 + 0.001 - (0.14 - 0.001) / per_token, abs=1e-6)
    assert smaller["outcome"] == "confirmed" and smaller["loss"] == "val_whole"
    assert smaller["caveat"].startswith("L(PE-MORLET) − L(BASE-DOT): +0.131 nats a character at characters; +0.139 nats a token")
    for seed in range(3):  # 0.40 nats a token: 0.17 a character, larger than at characters
        write_result(run("PE-MORLET", seed, 4.0, full=4.00 + 0.001 * seed, preset=BPE))
    assert records(characters)["subword-deficit-smaller"]["outcome"] == "refuted"


@pytest.mark.usefixtures("families_of_the_runs")
def test_centres_moved_into_the_window_by_more_than_sigma_confirm_and_centres_at_the_origin_refute():
    def centred(seed, shift):
        learned = decayed_morlet(64, decay_factor("cpu"))
        sigma = np.asarray(learned["morlet"]["sigma"])
        learned["morlet"]["centre"] = list(shift * sigma + 0.01 * seed)
        return run("PE-MORLET-CENTRED", seed, 1.77 - 0.001 * seed, learned=learned)

    pe = [run("PE-MORLET", s, 1.79 + 0.001 * s) for s in range(3)]
    into = records(pe + [centred(s, 1.5) for s in range(3)])
    assert into["centres-leave-origin"]["outcome"] == "confirmed" and into["centres-leave-origin"]["ours"] > 1.4
    assert into["centre-improves-mope"]["outcome"] == "confirmed"
    assert into["centres-leave-origin"]["caveat"].endswith("weight decay alone keeps them at 0")
    origin = records(pe + [centred(s, -0.2) for s in range(3)])["centres-leave-origin"]
    assert origin["outcome"] == "refuted" and origin["verdict"] == "refuted: below 1"
    assert records(pe)["centres-leave-origin"]["outcome"] == "not_run"


@pytest.mark.usefixtures("families_of_the_runs")
def test_the_bound_and_morlet_rope_claims_are_orderings_of_the_loss():
    runs = [r for s in range(3) for r in (run("PE-MORLET", s, 1.79 + 0.002 * s), run("PE-MORLET-FREE", s, 1.80 + 0.002 * s),
                                          run("ROPE-ONLY", s, 1.59 + 0.001 * s), run("MORLET-ROPE-REL", s, 1.58 + 0.001 * s))]
    found = records(runs)
    assert found["no-bound-improves-loss"]["outcome"] == "refuted" and found["no-bound-improves-loss"]["ours"] == pytest.approx(-0.01)
    assert found["morlet-rope-rel"]["outcome"] == "confirmed" and found["morlet-rope-rel"]["ours"] == pytest.approx(0.01)


def test_no_decay_only_pair_and_no_pair_of_the_stored_character_runs_reaches_two_words():
    """What the subword claim's reason says of its threshold."""
    from mope.evidence import learned_parameters
    from mope.store import results

    threshold = open_questions.WORDS_BEYOND * characters_per_word()
    decay_only = learned_parameters.decay_only_reference("PE-MORLET", BPE)["sigma"]
    assert decay_only.max() * BPE.characters_per_token() < threshold
    stored = learned_parameters.morlet_runs(results.load_results("cpu"), "PE-MORLET")
    if not stored:
        pytest.skip("no stored cpu runs of PE-MORLET")
    assert max(arrays["sigma"].max() for arrays in stored.values()) < threshold


def test_the_chapter_shows_the_subword_runs_once_they_are_stored(store, monkeypatch):
    """Chapter 7 as Colab runs it, on a store that holds `cpu` and `cpu-bpe` runs of BASE-DOT and PE-MORLET:
    the subword σ is drawn, the losses at both tokenizations are tabled and both subword claims are judged."""
    import nbformat
    from nbclient import NotebookClient

    from mope.book import colab_notebook
    from mope.store import plan

    cpu = get_preset("cpu")
    for seed in range(2):
        for preset, base, mope, learned in ((cpu, 1.66, 1.79, decayed_morlet(64, decay_factor(cpu))),
                                            (BPE, 3.60, 3.70, subword_morlet({i: 5.0 for i in range(16)}))):
            history = [{"step": step, "lr": 0.0, "train_loss": loss, "val_loss": loss}
                       for step, loss in ((0, 7.0), (100, mope - 0.01), (200, mope))]
            write_result(run("BASE-DOT", seed, base, full=base + 0.001 * seed, preset=preset))
            write_result(run("PE-MORLET", seed, mope, full=mope + 0.002 * seed, learned=learned, preset=preset,
                             history=history))
    monkeypatch.setenv("MOPE_PRESET", "cpu")
    monkeypatch.setenv("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    page = Path(__file__).resolve().parents[1] / "notebooks" / "07_open_questions.md"
    notebook = colab_notebook.colab_notebook(page)
    NotebookClient(notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(page.parent)}}).execute()
    assert colab_notebook.rendering_problems(notebook) == []
    shown = "\n".join(output["data"].get("text/markdown", "") for cell in notebook.cells
                      for output in cell.get("outputs", []) if "data" in output)
    planned = sum(len(seeds) for seeds in plan.planned_seeds("cpu-bpe").values())
    assert f"`cpu-bpe` 4 stored of {planned} planned" in shown  # the runs it reads: 2 of the 4 models the plan trains, seeds 0 and 1
    assert "Each model's loss per character at both tokenizations" in shown
    assert "| PE-MORLET | 1.791 ± 0.001 (n=2) | 3.701 ± 0.001 (n=2) | 1.585 ± 0.001 (n=2) |" in shown
    assert "a stored subword run's last validation loss lies at most 0.010 nats above its lowest" in shown
    for words in ("At subword tokens MoPE's σ reaches beyond the character-to-word scale",
                  "MoPE's deficit against the learned table is smaller at subword tokens"):
        line = next(line for line in shown.splitlines() if line.startswith(f"* {words}"))
        assert "(n=2)" in line, line
