"""The evidence layer: what the runs say about the paper.

The paper's own numbers (:mod:`mope.evidence.paper`), means, intervals and seeds needed
(:mod:`mope.evidence.estimates`), the claims' verdicts (:mod:`mope.evidence.claims`), the
introduction's sentences (:mod:`mope.evidence.findings`), MoPE's learned parameters against decay
alone (:mod:`mope.evidence.learned_parameters`) and the mathematics chapter's arithmetic
(:mod:`mope.evidence.analysis`). It reads the store and the model; it draws nothing.
"""
