"""What the book does not know yet (the page ``book/unknowns.md``): the runs of the paper's protocol its plan trains
that are not stored, what each would decide and why it is missing, and the runs in progress, their validation curve
beside the stored ones, marked as in progress, with no verdict.

Everything here is computed: the missing runs from the plan (:func:`mope.store.plan.planned_seeds`, the GPU suite's
stages) and the store's current runs; what each would decide from the claims document's records (the claims whose
test names the model, with their plain words now), and, for the two causal gates, the question they alone answer;
why each is missing from the stages the GPU windows have trained and the stored CPU rehearsal's cost; the runs in
progress from their records (:mod:`mope.store.in_progress`), which no verdict reads. Stored text (a device, a commit)
is shown as text (:func:`mope.book.run_records.stored_text`).
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

import numpy as np

from mope.book.figure_style import book_style, colour, legend_below, panels
from mope.book.run_records import stored_code, stored_text
from mope.evidence import bottom_line, paper_gate
from mope.evidence.estimates import history
from mope.store import plan
from mope.store.presets import get_preset
from mope.store.results import device_kind, device_name

PUBLISHED = "paper"
CAUSAL = ("EGA-MORLET-CAUSAL", "EGA-1-CAUSAL")
#: The stored curves a causal gate in progress is drawn beside: its published gate's, and the learned table's.
STORED_BESIDE = {"EGA-MORLET-CAUSAL": ("EGA-MORLET", "BASE-DOT"), "EGA-1-CAUSAL": ("EGA-1", "BASE-DOT")}


def stored_beside(variant: str | None) -> tuple[str, str]:
    """The two stored models a run of ``variant`` in progress is set beside (the headline's two for any other)."""
    return STORED_BESIDE.get(variant, STORED_BESIDE["EGA-MORLET-CAUSAL"])


#: What the two causal gates alone can answer at the paper's scale, in plain words.
QUESTIONS = {
    "EGA-MORLET-CAUSAL": "whether MoPE with a gate that cannot see the future still has a lower loss than the learned "
                         "table at the paper's scale, and how much of the gate's gain on MoPE a gate that sees only the "
                         "past keeps there",
    "EGA-1-CAUSAL": "what share of the energy gate's gain over the learned table (EGA-1's) a gate that sees only the "
                    "past keeps at the paper's scale: whether that gain is the salience the paper names or the future",
}
Records = Mapping[str, dict]  # {claim key: record of the claims document}


def missing(stored: Sequence[dict], preset: str = PUBLISHED) -> dict[str, list[int]]:
    """{variant: the seeds the plan trains on ``preset`` that are not stored}, the causal gates first, then in the
    plan's order; a variant with every planned seed stored is left out."""
    have = {(run["variant"], run["seed"]) for run in stored}
    planned = plan.planned_seeds(preset) or {}
    order = [*(v for v in CAUSAL if v in planned), *(v for v in planned if v not in CAUSAL)]
    gaps = {variant: [seed for seed in planned[variant] if (variant, seed) not in have] for variant in order}
    return {variant: seeds for variant, seeds in gaps.items() if seeds}


def names_model(test: str, variant: str) -> bool:
    """Whether a claim's ``test`` names ``variant`` itself (EGA-1, not EGA-1-CAUSAL)."""
    return re.search(rf"(?<![\w-]){re.escape(variant)}(?![\w-])", test) is not None


def open_claims(records: Records, variant: str, preset: str = PUBLISHED) -> list[dict]:
    """The records of the claims the plan tests on ``preset`` whose test names ``variant`` and that are not settled:
    those of its family (:data:`mope.store.plan.FAMILIES`), and those decided by a count ("every pair"), which no
    family holds; a claim across two scales is left to its own."""
    return [r for r in records.values() if (r["family"] == preset or r["kind"] == "every")
            and names_model(r["test"], variant) and r["outcome"] not in bottom_line.SETTLED]


def would_decide(records: Records, variant: str) -> str:
    """What the missing runs of ``variant`` would decide: the causal gates' question, and the open claims whose test
    names it, each with its plain words now."""
    claims = "; ".join(f"“{r['claim']}” (now: {r['plain']})" for r in open_claims(records, variant))
    parts = [QUESTIONS[variant]] if variant in QUESTIONS else []
    if claims:
        parts.append(f"{'the claim' if len(open_claims(records, variant)) == 1 else 'the claims'} {claims}")
    return ", and ".join(parts) if parts else "no claim of the paper's as stated (a control's seeds)"


def gpu_stages(stored: Sequence[dict], variants: Sequence[str] = CAUSAL) -> tuple[list[str], str | None]:
    """(the GPU suite's stages whose runs are all stored from a GPU, the first stage that trains a missing run of
    ``variants``), in the suite's order: a stage whose runs the CPU trained is not GPU time."""
    on_gpu = {(run["variant"], run["seed"]) for run in stored if "cuda" in run["provenance"].get("device", "")}
    have = {(run["variant"], run["seed"]) for run in stored}
    done = [stage.name for stage in plan.GPU_STAGES if all((v, s) in on_gpu for v in stage.variants for s in stage.seeds)]
    first = next((stage.name for stage in plan.GPU_STAGES
                  if any(v in variants and (v, s) not in have for v in stage.variants for s in stage.seeds)), None)
    return done, first


def hours_left(record: dict) -> float:
    """Hours of steps a run in progress has left at the seconds a step its record measured."""
    return (record["steps"] - record["step"]) * record["timing"]["seconds_per_step"] / 3600


def cpu_cost(record: dict | None, stored: Sequence[dict] = ()) -> str:
    """E.g. "about 20 hours on a CPU, at the 14.5 s a step the run in training (EGA-MORLET-CAUSAL, 2 threads on AMD
    EPYC) has averaged": a causal gate's run of the paper's protocol on the CPU, at the pace of the one in training
    (``record``, where its last stretch computed); without one, the wall time a causal gate of ``stored`` took on
    a CPU, every stretch of it ("about 20 hours on a CPU, as EGA-MORLET-CAUSAL seed 0 did (2 threads on AMD EPYC)");
    without either,
    at the stored rehearsal's pace (:func:`~mope.evidence.bottom_line.cpu_hours`: the learned table and MoPE, whose
    steps cost less than a causal gate's)."""
    def on(threads, description) -> str:  # "2 threads on AMD EPYC"
        cpu = device_name(description or "")
        return " ".join(filter(None, [f"{threads} thread{'s' if threads > 1 else ''}" if isinstance(threads, int) else "",
                                      f"on {cpu}" if cpu else ""]))

    if record is not None:
        pace = record["timing"]["seconds_per_step"]
        last = (record.get("segments") or [{}])[-1]
        where = ", ".join(filter(None, [record["variant"], on(last.get("threads"), last.get("device"))]))
        return (f"about {record['steps'] * pace / 3600:.0f} hours on a CPU, at the {pace:.1f} s a step the run in "
                f"training ({where}) has averaged")
    done = [r for r in stored if r["variant"] in CAUSAL and r["provenance"].get("wall_time_s") and all(
        device_kind(part.get("device")) == "cpu" for part in r["provenance"].get("segments") or [r["provenance"]])]
    if done:
        run = min(done, key=lambda r: (CAUSAL.index(r["variant"]), r["seed"]))
        where = on(run["provenance"].get("threads"), run["provenance"]["device"])
        return (f"about {run['provenance']['wall_time_s'] / 3600:.0f} hours on a CPU, as {run['variant']} seed "
                f"{run['seed']} did" + (f" ({where})" if where else ""))
    hours = bottom_line.cpu_hours()
    return f"more than {hours}" if hours else "many hours on a CPU"


def answer(records: Records, stored: Sequence[dict], progress: Sequence[dict]) -> str:
    """The page's opening, in plain words: the decisive runs missing at the paper's scale, what they would decide,
    why they are missing, and how far the one in training has come."""
    gaps = missing(stored)
    causal = [v for v in CAUSAL if v in gaps]
    if not causal:
        return ("**Every causal gate the plan trains at the paper's scale is stored.** What the rest of its plan "
                "leaves open is listed below.")
    headline = records.get("ega-mope-gain") or {}
    gain = bottom_line.lower_by(headline, "EGA-MORLET") if headline.get("n") else None
    published = (f" With the published gate, which reads future tokens (a language model cannot), MoPE's loss is "
                 f"{bottom_line.below_or_above(gain)} the learned table's there ({bottom_line.where(PUBLISHED, headline['n'])}, "
                 "random-batch validation loss)." if gain is not None else "")
    runs = "; ".join(f"{variant}, {bottom_line.seeds_words(gaps[variant])}: {would_decide(records, variant)}" for variant in causal)
    found = paper_gate.trained(stored, records.get(paper_gate.SHARE), name_seeds=False)  # the missing runs follow
    scale = f"There (`{PUBLISHED}`: {bottom_line.scale_in_words(PUBLISHED)})"
    if found:  # some seeds stored: what they find, then the seeds that would test it
        seeds = max(sum(run["variant"] == v for run in stored) for v in CAUSAL)
        text = (f"**At the paper's scale, the book has a gate that cannot see the future on "
                f"{'one seed' if seeds == 1 else f'{seeds} seeds'} only, too few to test.** {scale}, {found}.{published}"
                f" Missing: {runs}.")
    else:
        text = (f"**The book does not know yet whether the paper's headline survives a gate that cannot see the future "
                f"at the paper's scale.** {scale} the runs that would say it are not stored.{published} Missing: {runs}.")
    done, first = gpu_stages(stored, causal)
    trained = f"trained the stages {', '.join(f'`{name}`' for name in done)} of `scripts/gpu_suite.sh`" if done else \
        "trained none of the stages of `scripts/gpu_suite.sh`"
    training = [r for r in progress if r["variant"] in causal]
    text += (f" Why: they are planned for a GPU, and the GPU time lent so far {trained}, not `{first}`, the first "
             f"that trains one of them; without one a run takes {cpu_cost(training[0] if training else None, stored)}, longer than a working "
             "session, so it lives on its checkpoints and is resumed until it is stored.")
    if training:
        text += " In training now: " + "; ".join(
            f"{r['variant']} seed {r['seed']}, step {r['step']:,} of {r['steps']:,} (about {hours_left(r):.0f} hours "
            "of steps left; below, in progress, no verdict)" for r in training) + "."
    else:
        text += " No record of a causal gate in training is stored."
    return text


def missing_list(records: Records, stored: Sequence[dict]) -> str:
    """Every missing run of the paper's plan, a bullet a model: its seeds and what they would decide."""
    gaps = missing(stored)
    if not gaps:
        return f"Every run the plan trains at `{PUBLISHED}` is stored."
    return "\n".join(f"- **{variant}**, {bottom_line.seeds_words(seeds)}: {would_decide(records, variant)}. Planned for a GPU "
                     f"({stages_words(variant, seeds)} of `scripts/gpu_suite.sh`)."
                     for variant, seeds in gaps.items())


def stages_words(variant: str, seeds: Sequence[int]) -> str:
    """"stage `causal-seed0`", "stages `table2-seed1`, `table2-seed2`": the GPU stages that train ``seeds`` of
    ``variant``, each named once, in the suite's order."""
    names = list(dict.fromkeys(stage.name for seed in seeds for stage in plan.GPU_STAGES
                               if variant in stage.variants and seed in stage.seeds))
    return f"stage{'s' if len(names) != 1 else ''} {', '.join(f'`{name}`' for name in names)}"


def progress_lines(progress: Sequence[dict], stored: Sequence[dict]) -> str:
    """Each run in progress in words: its step of the total, its last evaluation beside the stored models' at the same
    step, its seconds a step (and what they are measured over), its stretches and when its record was written."""
    if not progress:
        return (f"No run of `{PUBLISHED}` is in progress: no record is stored under `results/in_progress/{PUBLISHED}/` "
                "(`python -m mope progress` writes one from each checkpoint).")
    lines = []
    for r in progress:
        last = r["evaluations"][-1] if r["evaluations"] else None
        beside = ""
        if last is not None:
            means = {v: mean_at(stored, v, last["step"]) for v in stored_beside(r["variant"])}
            beside = "; ".join(f"{v} {value:.3f}" for v, value in means.items() if value is not None)
            beside = f" (at that step, stored: {beside}, mean over seeds)" if beside else ""
        evaluated = (f"its last evaluation, at step {last['step']:,}, a validation loss of {last['val_loss']:.3f}{beside}"
                     if last else "no evaluation yet")
        stretches = "; ".join(f"steps {s['from_step']:,}–{s['to_step']:,} on {stored_text(s.get('device', 'a device not recorded'))}"
                              f" from commit {stored_code(str(s.get('git_commit'))[:7]) if s.get('git_commit') else 'not recorded'}"
                              for s in r["segments"])
        lines.append(f"- **{r['variant']} seed {r['seed']}** (in progress, no verdict): step {r['step']:,} of "
                     f"{r['steps']:,}, {len(r['evaluations'])} evaluation{'s' if len(r['evaluations']) != 1 else ''}, "
                     f"{evaluated}. {r['timing']['seconds_per_step']:.2f} s a step: "
                     f"{stored_text(r['timing']['measured_over'])}. Stretches: {stretches}. "
                     f"Record written {stored_text(r['written'])}, from its checkpoint of {stored_text(r['checkpoint_saved'])}.")
    return "\n".join(lines)


def mean_at(stored: Sequence[dict], variant: str, step: int) -> float | None:
    """The mean over seeds of ``variant``'s stored random-batch validation loss at ``step`` (None where none has it)."""
    values = [h[step] for h in history(stored, variant).values() if step in h]
    return sum(values) / len(values) if values else None


def in_progress_title(record: dict) -> str:
    return f"{record['variant']} seed {record['seed']}: in progress,\nstep {record['step']:,} of {record['steps']:,}, no verdict"


def _stored_curves(ax, stored: Sequence[dict], first: int, variants: Sequence[str]) -> None:
    """The stored ``variants``' validation loss from step ``first`` on: the mean over seeds, the band their range."""
    for variant in variants:
        seeds = history(stored, variant)
        steps = sorted(s for s in set.intersection(*(set(h) for h in seeds.values())) if s >= first) if seeds else []
        if steps:
            values = np.array([[h[s] for s in steps] for h in seeds.values()])
            ax.plot(steps, values.mean(axis=0), color=colour(variant),
                    label=f"{variant} (stored, {len(seeds)} seed{'s' if len(seeds) != 1 else ''})")
            ax.fill_between(steps, values.min(axis=0), values.max(axis=0), color=colour(variant), alpha=0.2, lw=0)


def plot_in_progress(progress: Sequence[dict], stored: Sequence[dict], preset: str = PUBLISHED):
    """One panel a run in progress: its random-batch validation loss at each evaluation it reached (dashed, its
    marks hollow) beside its published gate's stored runs and BASE-DOT's (:func:`stored_beside`: mean over seeds, the
    band their range), from the first evaluation after step 0 on, the whole run's steps on the axis; titled in
    progress, with no verdict. With no run in progress, the headline's stored curves alone, titled so."""
    cfg = get_preset(preset)
    with book_style():
        fig, axes = panels(max(1, len(progress)), height=3.0)
        for ax, record in zip(axes, progress or [None]):
            _stored_curves(ax, stored, cfg.eval_interval, stored_beside(record and record["variant"]))
            if record is None:
                ax.set_title(f"no run of {preset!r} in progress")
            else:
                reached = [e for e in record["evaluations"] if e["step"] >= cfg.eval_interval]
                ax.plot([e["step"] for e in reached], [e["val_loss"] for e in reached], ls="--", marker="o", ms=4,
                        mfc="white", color=colour(record["variant"]), label=f"{record['variant']} (in progress)")
                if not reached:
                    ax.text(0.97, 0.95, f"no evaluation after step 0 yet\n(the next at step {cfg.eval_interval:,})",
                            ha="right", va="top", transform=ax.transAxes, bbox={"facecolor": "white", "edgecolor": "none"})
                ax.axvline(record["step"], color="0.4", lw=0.8, ls=":")
                ax.set_title(in_progress_title(record))
            ax.set(xlabel="step", ylabel="validation loss (nats/char)", xlim=(0, cfg.steps))
            ax.grid(alpha=0.3)
        legend_below(fig, axes)
    return fig
