"""The book's bottom line (issue 53): five plain sentences above everything, one per question a reader brings, each
number one of the claims document's, each naming its scale and seeds, no statistics in them."""
from __future__ import annotations

import re

import pytest

from mope.evidence import bottom_line, claims
from mope.store import results
from mope.store.presets import STANDING_PRESETS, get_preset


@pytest.fixture(scope="module")
def stored():
    documents = {preset: claims.claim_records(preset) for preset in STANDING_PRESETS}
    runs = {preset: results.load_results(preset) for preset in STANDING_PRESETS}
    return documents, runs


def record(key, ours, n=8, outcome="confirmed", seeds_needed=None, interval=(0.01, 0.02), paper=None):
    return {"key": key, "test": claims.get_claim(key).test, "ours": ours, "n": n, "outcome": outcome,
            "seeds_needed": seeds_needed, "interval": list(interval), "paper": paper}


def test_the_bottom_line_answers_five_questions_in_plain_words_with_the_documents_numbers(stored):
    documents, runs = stored
    sentences = bottom_line.bottom_line(documents, runs)
    questions = ["**Does MoPE beat the usual position encodings", "**Does the energy gate help",
                 "**Does the paper's headline hold at its own scale", "**What would settle it", "**What to use instead"]
    if not bottom_line.missing_runs(runs):  # every planned run of the headline stored: nothing left to settle it
        questions.remove("**What would settle it")
    assert [s.split("?")[0] for s in sentences] == questions
    text = " ".join(sentences)
    for word in ("Holm", "Pocock", "p =", "adjusted", "confirmed", "refuted", "indicative"):
        assert word not in text, word
    numbers = {f"{abs(r['ours']):.3f}" for records in documents.values() for r in records if r["ours"] is not None}
    numbers |= {f"{r['paper']:.3f}" for records in documents.values() for r in records if r["paper"] is not None}
    shares = {f"{r['ours']:.0%}".replace("-", "−") for records in documents.values() for r in records
              if r["ours"] is not None}
    for number in re.findall(r"(?<![\w.])\d+\.\d{3}(?!\d)", text):
        assert number in numbers, number
    for share in re.findall(r"−?\d+%", text):
        assert share in shares, share
    seeds = {r["seeds_needed"] for records in documents.values() for r in records}
    for count in re.findall(r"about (\d+) seeds would settle it", text):
        assert int(count) in seeds
    for sentence in sentences:  # each names the scale and the seeds it stands on, and links to its evidence
        assert re.search(r"`[a-z0-9-]+`(, | \([^;]+; )(one seed|\d+ seeds)", sentence) or sentence.startswith("**What would")
        assert "{ref}`" in sentence


def test_each_scale_is_said_in_words_from_its_configuration_the_first_time_it_is_named(stored):
    documents, runs = stored
    text = " ".join(bottom_line.bottom_line(documents, runs))
    for preset in set(re.findall(r"`([a-z0-9-]+)`[ ,]", text)) - {"paper"}:  # the paper's own sentence says its scale
        cfg = get_preset(preset)
        described = re.findall(rf"`{preset}` \((\d+) layers, (\d+)-(?:character|token) windows[^,]*, ([\d.]+)M", text)
        assert len(described) == 1, preset  # said once, at its first mention
        assert text.index(f"`{preset}` (") == text.index(f"`{preset}`"), preset
        layers, window, millions = described[0]
        assert (int(layers), int(window)) == (cfg.n_layer, cfg.block_size)
        assert float(millions) == round(cfg.steps * cfg.batch_size * cfg.block_size / 1e6, 1)
    assert "subwords" in bottom_line.scale_in_words("cpu-bpe") and "character" in bottom_line.scale_in_words("cpu")


def test_each_answer_follows_the_records_it_reads():
    usual = {"cpu": {"mope-below-base": record("mope-below-base", 0.13), "rope-beats-mope": record("rope-beats-mope", 0.19),
                     "mope-beats-sincos": record("mope-beats-sincos", 0.18, paper=0.08)}}
    assert "? Only against sin/cos.**" in bottom_line.mope_against_the_usual(usual)
    usual["cpu"]["mope-below-base"] = record("mope-below-base", -0.05)  # MoPE below the learned table too
    assert "? Only against a learned table and sin/cos.**" in bottom_line.mope_against_the_usual(usual)
    usual["cpu"]["rope-beats-mope"] = record("rope-beats-mope", 0.19, outcome="undecided", seeds_needed=9)
    assert "? Not settled.**" in bottom_line.mope_against_the_usual(usual)
    usual["cpu"]["rope-beats-mope"] = record("rope-beats-mope", -0.05)
    text = bottom_line.mope_against_the_usual(usual)
    assert "? Yes.**" in text and "0.050 below that of a learned position table" in text
    gate = {"cpu": {"ega-gain": record("ega-gain", 0.116, paper=0.092)},
            "cpu-long": {"ega-gain": record("ega-gain", 0.007, n=5, outcome="undecided", seeds_needed=32)}}
    text = bottom_line.gate(gate)
    assert text.startswith("**Does the energy gate help? Yes on `cpu`; not settled on `cpu-long`.**")
    assert "lowers the loss by 0.007 on `cpu-long`, 5 seeds (not settled: about 32 seeds would settle it)" in text
    headline = {"paper": {"ega-mope-gain": record("ega-mope-gain", 0.109, n=1, outcome="indicative", paper=0.119)}}
    assert "? Not known yet.**" in bottom_line.paper_scale(headline)
    headline["paper"]["ega-mope-gain"] = record("ega-mope-gain", -0.05, n=3, outcome="refuted", paper=0.119)
    assert "? No.**" in bottom_line.paper_scale(headline) and "0.050 above the learned table's" in bottom_line.paper_scale(headline)


def test_what_would_settle_it_names_the_planned_runs_not_yet_stored_and_goes_once_they_are(stored):
    documents, runs = stored
    records = bottom_line.records_by_preset(documents)
    missing = bottom_line.missing_runs(runs)
    assert missing and all(variant in ("BASE-DOT", "EGA-MORLET") and seed > 0 for variant, seed in missing)
    assert f"({len(missing)} runs;" in bottom_line.what_would_settle_it(records, runs)
    done = dict(runs)
    done["paper"] = runs["paper"] + [{**run, "seed": seed} for variant, seed in missing
                                     for run in runs["paper"] if run["variant"] == variant and run["seed"] == 0]
    assert bottom_line.what_would_settle_it(records, done) is None
