"""The model layer: what the network is.

Every architectural choice and the names each may take (:mod:`mope.model.config`), the positional
encodings (:mod:`mope.model.positional`), the energy gate (:mod:`mope.model.energy_gate`), attention
(:mod:`mope.model.attention`), the GPT (:mod:`mope.model.gpt`) and the named models
(:mod:`mope.model.variants`). It imports nothing of the layers above (store, train, evidence, book,
command line); the test suite checks the direction (``tests/test_layers.py``, the contract in
``pyproject.toml``).
"""
