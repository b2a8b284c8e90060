"""The store layer: what a run is and where its result is kept.

The named training protocols runs are filed and hashed under (:mod:`mope.store.presets`), the
results on disk with their schema, hashes and what is current (:mod:`mope.store.results`), and the
commit and cleanliness of the code that ran (:mod:`mope.store.code_version`). It imports only the model
layer below it.
"""
