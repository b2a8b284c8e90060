"""The evidence layer: what the runs say about the paper.

The paper's own numbers (:mod:`mope.evidence.paper`), means, intervals and seeds needed
(:mod:`mope.evidence.estimates`), the paper's claims and ours (:mod:`mope.evidence.claims`), what each
measures (:mod:`mope.evidence.measures`), the rules that judge them (:mod:`mope.evidence.verdicts`), the
corrections a preset's verdicts must survive (:mod:`mope.evidence.corrections`), each claim's standing across
the presets (:mod:`mope.evidence.standings`), the introduction's sentences (:mod:`mope.evidence.findings`),
MoPE's learned parameters against decay alone (:mod:`mope.evidence.learned_parameters`), the arithmetic of
weight decay alone (:mod:`mope.evidence.weight_decay`), MoPE's correlation kernel and its averages
(:mod:`mope.evidence.kernels`), the n-gram baselines of the loss (:mod:`mope.evidence.baselines`) and probes
of a model's inputs and causality (:mod:`mope.evidence.probes`). It reads the store and the model; it draws
nothing.
"""
