r"""The paper's open questions (§7, §9) as numbers: what the claims on them (the last entries of
:data:`mope.evidence.claims.CLAIMS`, fixed before their runs) measure.

* **Subword tokens.** The runs of a character preset's subword twin
  (:data:`mope.store.presets.TOKENIZATION_PAIRS`, ``cpu`` → ``cpu-bpe``) are read from the store beside
  the character runs the claim is judged on. A σ in tokens is put in characters by the mean characters a
  token covers on the validation split (:meth:`mope.store.presets.TrainConfig.characters_per_token`), a
  loss per token into a loss per character by dividing by it. The word scale is the mean characters a word
  covers on the validation split, its space included (:func:`mope.store.presets.characters_per_word`). Both
  are counted once and stored with the presets: a verdict reads stored runs only, never the data set. "beyond the character-to-word
  scale" is a σ above :data:`WORDS_BEYOND` words, and beyond what weight decay alone gives
  (:func:`mope.evidence.learned_parameters.decay_only_reference`).
* **A learned centre** (PE-MORLET-CENTRED): where the centres $b_{0,i}$ go, in units of their pair's σ.

Each measure returns ``(Estimate over seeds, caveat or None)``, as :class:`mope.evidence.claims.Claim` wants.
"""
from __future__ import annotations

import numpy as np

from mope.evidence import learned_parameters
from mope.evidence.estimates import SHARE_RESOLUTION, Estimate, by_variant, common_seeds, paired, per_seed
from mope.store import results
from mope.store.presets import TOKENIZATION_PAIRS, TrainConfig, characters_per_word, get_preset

#: The sections of the chapter "Paper's open questions" that judge these claims, in its order.
SECTIONS = ("open-subword", "open-centre", "open-bound", "open-rope")
WORDS_BEYOND = 2  # σ beyond the word scale: above two words' worth of characters
SHARE_BEYOND = 0.10  # the share of pairs the subword claim needs there


def subword_twin(cfg: TrainConfig) -> tuple[TrainConfig, list[dict]] | None:
    """The subword twin of a character preset and its current stored runs (None: it has none)."""
    name = TOKENIZATION_PAIRS.get(cfg.name)
    if name is None:
        return None
    twin = get_preset(name)
    return twin, results.load_results(twin)


def share_beyond_words(arrays: dict[str, np.ndarray], reference_sigma: np.ndarray, per_token: float) -> float:
    """The share of pairs whose σ (in tokens, ``per_token`` characters each) covers more than
    ``WORDS_BEYOND`` words and lies above its decay-only value ``reference_sigma``."""
    beyond = arrays["sigma"] * per_token > WORDS_BEYOND * characters_per_word()
    return float(np.mean(beyond & (arrays["sigma"] > reference_sigma)))


def sigma_beyond_words(runs: list[dict], cfg: TrainConfig) -> tuple[Estimate, str | None]:
    """Seed by seed, :func:`share_beyond_words` of PE-MORLET on the subword twin of ``cfg``; the caveat
    gives the threshold in characters and in tokens, the median σ in both, what decay alone reaches,
    and the share on ``runs`` themselves (characters)."""
    twin = subword_twin(cfg)
    found = learned_parameters.morlet_runs(twin[1], "PE-MORLET") if twin else {}
    if not found:
        return Estimate(), None
    bpe = twin[0]
    per_token = bpe.characters_per_token()
    reference = learned_parameters.decay_only_reference("PE-MORLET", bpe)["sigma"]
    share = Estimate({s: share_beyond_words(a, reference, per_token) for s, a in found.items()},
                     resolution=SHARE_RESOLUTION)
    threshold = WORDS_BEYOND * characters_per_word()
    median = float(np.median(np.concatenate([a["sigma"] for a in found.values()])))
    caveat = (f"σ above {threshold:.1f} characters = {threshold / per_token:.2f} tokens ({per_token:.2f} characters a "
              f"token); median σ {median:.2f} tokens = {median * per_token:.1f} characters; decay alone reaches "
              f"{reference.max() * per_token:.1f} characters at most")
    at_characters = learned_parameters.morlet_runs(runs, "PE-MORLET")
    if at_characters:
        character_reference = learned_parameters.decay_only_reference("PE-MORLET", cfg)["sigma"]
        shares = [share_beyond_words(a, character_reference, 1.0) for a in at_characters.values()]
        caveat += f"; at characters ({cfg.name}) {np.mean(shares):.0%} of pairs"
    return share, caveat


def deficit_change(runs: list[dict], cfg: TrainConfig) -> tuple[Estimate, str | None]:
    """Seed by seed, MoPE's deficit against the learned table, L(PE-MORLET) − L(BASE-DOT) on the whole
    validation split in nats a character, at characters (``runs``) minus at subword tokens (the twin's,
    per token divided by the characters a token covers): positive = smaller at subword tokens."""
    twin = subword_twin(cfg)
    if twin is None:
        return Estimate(), None
    at_characters = paired(runs, "PE-MORLET", "BASE-DOT", "val_loss_full").values
    at_tokens = paired(twin[1], "PE-MORLET", "BASE-DOT", "val_loss_full").values
    seeds = common_seeds(at_characters, at_tokens)
    if not seeds:
        return Estimate(), None
    per_token = twin[0].characters_per_token()
    change = per_seed(lambda c, t: c - t / per_token, at_characters, at_tokens)
    mean = lambda values: float(np.mean([values[s] for s in seeds]))
    return change, (f"L(PE-MORLET) − L(BASE-DOT): {mean(at_characters):+.3f} nats a character at characters; "
                    f"{mean(at_tokens):+.3f} nats a token = {mean(at_tokens) / per_token:+.3f} a character at "
                    f"subword tokens (n = {len(seeds)} seed{'s' if len(seeds) > 1 else ''} trained at both)")


def centre_arrays(run: dict) -> dict[str, np.ndarray] | None:
    """A run's learned centres b₀ and σ (tokens), or None when it learned no centre."""
    learned = (run.get("learned") or {}).get("morlet") or {}
    if learned.get("centre") is None:
        return None
    return {"centre": np.asarray(learned["centre"], dtype=float), "sigma": np.asarray(learned["sigma"], dtype=float)}


def centre_runs(runs: list[dict], variant: str = "PE-MORLET-CENTRED") -> dict[int, dict[str, np.ndarray]]:
    """{seed: :func:`centre_arrays`} of the runs of ``variant`` that learned a centre, by seed."""
    found = {r["seed"]: centre_arrays(r) for r in by_variant(runs).get(variant, [])}
    return {seed: arrays for seed, arrays in sorted(found.items()) if arrays is not None}


def centres_into_window(runs: list[dict], cfg: TrainConfig) -> tuple[Estimate, str | None]:
    """Seed by seed, the median over pairs of PE-MORLET-CENTRED's centre b₀ in units of its pair's σ
    (positive: into the window, away from position 0); weight decay alone keeps every centre at 0."""
    found = centre_runs(runs)
    shift = Estimate({s: float(np.median(a["centre"] / a["sigma"])) for s, a in found.items()},
                     resolution=SHARE_RESOLUTION)
    if not found:
        return shift, None
    centres = np.concatenate([a["centre"] for a in found.values()])
    return shift, (f"centres from {centres.min():+.2f} to {centres.max():+.2f} tokens, median {np.median(centres):+.2f}; "
                   "weight decay alone keeps them at 0")
