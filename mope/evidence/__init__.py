"""The evidence layer: what the runs say about the paper.

The paper's own numbers (:mod:`mope.evidence.paper`), means, intervals and seeds needed
(:mod:`mope.evidence.estimates`), the claims' verdicts (:mod:`mope.evidence.claims`), the
introduction's sentences (:mod:`mope.evidence.findings`), MoPE's learned parameters against decay
alone (:mod:`mope.evidence.learned_parameters`), the arithmetic of weight decay alone
(:mod:`mope.evidence.weight_decay`), MoPE's correlation kernel and its averages
(:mod:`mope.evidence.kernels`), the n-gram baselines of the loss (:mod:`mope.evidence.baselines`) and
probes of a model's inputs and causality (:mod:`mope.evidence.probes`). It reads the store and the
model; it draws nothing.
"""
