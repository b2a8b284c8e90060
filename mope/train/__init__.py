"""The training layer: running the models.

The corpus (:mod:`mope.train.data`), one run, resumable and data-parallel (:mod:`mope.train.loop`),
many runs (:mod:`mope.train.suite`) and a suite's child runs (:mod:`mope.train.child`). It writes
into the store below it and reads the model; nothing here knows the evidence or the book.
"""
