"""mope.evidence.findings: the introduction's first screen says what the stored runs say, and changes with them."""
import pytest

from mope.evidence import claims, findings, paper
from synthetic_runs import run


def judged(runs_by_preset):
    return {preset: claims.judge_all(preset, runs) for preset, runs in runs_by_preset.items()}


def gate_runs(kept: float):
    """BASE-DOT, EGA-1 (+0.10 on both losses) and EGA-1-CAUSAL keeping ``kept`` of the gain, three seeds."""
    runs = []
    for s in range(3):
        base = 1.60 + 0.003 * s
        runs += [run("BASE-DOT", s, base, full=base), run("EGA-1", s, base - 0.10, full=base - 0.10 + 0.001 * s),
                 run("EGA-1-CAUSAL", s, base, full=base - kept * 0.10 + 0.002 * (s - 1))]
    return runs


def test_the_causal_gate_sentence_follows_the_runs():
    refuted = findings.causal_gate(judged({"cpu": gate_runs(0.0)}))
    assert refuted.startswith("**EGA's gain needs the future.** EGA-1 improves on BASE-DOT by +0.100 on `cpu`")
    assert "it loses all of that gain (keeps 0%, n = 3 seeds)" in refuted and "*refuted: below 0.5*" in refuted
    survives = findings.causal_gate(judged({"cpu": gate_runs(0.9)}))
    assert survives.startswith("**EGA's gain survives a causal gate.**") and "keeps 91% of that gain" in survives
    assert "*confirmed*" in survives
    assert findings.causal_gate(judged({"cpu": []})) is None  # nothing stored: no sentence
    worse = findings.causal_gate(judged({"cpu": gate_runs(-0.05)}))
    assert "it loses all of that gain (keeps -5%, n = 3 seeds)" in worse


def test_the_sincos_sentence_names_the_scale_when_scaled_sincos_beats_mope():
    def sincos(scaled_gap):
        return [r for s in range(3) for r in (run("PE-SINCOS", s, 1.90 + 0.01 * s), run("PE-MORLET", s, 1.70 + 0.001 * s),
                                              run("PE-SINCOS-SCALED", s, 1.70 + scaled_gap + 0.002 * s))]
    scale = findings.sincos_scale(judged({"cpu": sincos(-0.05)}), {"cpu": sincos(-0.05)})
    assert scale.startswith("**MoPE's advantage over sin/cos is the scale of sin/cos.** MoPE beats the published "
                            "sin/cos by +0.209 on `cpu`")
    assert "sin/cos gains +0.258 over the published one and then beats MoPE by 0.049" in scale
    locality = findings.sincos_scale(judged({"cpu": sincos(+0.05)}), {"cpu": sincos(+0.05)})
    assert locality.startswith("**MoPE beats sin/cos through locality.**") and "still trails MoPE by 0.051" in locality


def test_the_reproduction_sentence_measures_the_distance_to_table_2():
    near = [run(name, 0, value + (0.015 if name == "PE-SINCOS" else 0.004), preset="paper")
            for name, value in paper.TABLE_2_VAL.items()]
    text = findings.reproduction({"paper": near})
    assert ("all six models of Table 2 land within 0.015 nats of the paper's losses, 5 of them within its own "
            "run-to-run noise of 0.011") in text and "(1 seed each)" in text
    far = [dict(r, final={**r["final"], "val_loss": r["final"]["val_loss"] + 0.3}) for r in near[:4]]
    assert "4 of the six models of Table 2 land within 0.315 nats" in findings.reproduction({"paper": far})
    assert findings.reproduction({}).startswith("Our code has not yet been run at the paper's own protocol")


def test_the_findings_list_leaves_out_what_has_no_runs_and_numbers_the_rest():
    runs = {"cpu": gate_runs(0.0)}
    text = findings.findings_markdown(judged(runs), runs)
    lines = text.splitlines()
    assert [line[:3] for line in lines] == ["1. ", "2. "]  # the reproduction sentence and the causal gate
    assert "{ref}`stress-causal-gate`" in lines[1]


@pytest.mark.parametrize("kept", [0.0, 0.9])
def test_every_verdict_a_finding_quotes_is_the_claims_verdict(kept):
    runs = {"cpu": gate_runs(kept)}
    found = judged(runs)
    verdict = claims.verdict_of(found["cpu"], "gain-survives-causal-gate")
    assert f"*{verdict.text}*" in findings.causal_gate(found)
