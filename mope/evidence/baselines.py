"""Count-based n-gram baselines: the loss levels a character model's validation loss is read against.

:func:`ngram_baselines` fits a unigram and a bigram model on the train split by counting (add-one
smoothing) and gives their validation cross-entropies in nats/char.
"""
from __future__ import annotations

import torch


def ngram_baselines(data) -> dict[str, float]:
    """Validation cross-entropy (nats/char) of count-based unigram and bigram models fit on the train split.

    These are the plateaus a small character model passes through: a model whose loss sits at the
    unigram level has learned only character frequencies, one at the bigram level only the previous
    character. Add-one smoothing keeps unseen pairs finite.
    """
    vocab = data.vocab_size
    train, val = data.train, data.val
    unigram = torch.bincount(train, minlength=vocab).double() + 1
    unigram_nll = -(unigram / unigram.sum()).log()[val].mean().item()
    pairs = torch.bincount(train[:-1] * vocab + train[1:], minlength=vocab * vocab).double().view(vocab, vocab) + 1
    bigram = pairs / pairs.sum(dim=1, keepdim=True)
    bigram_nll = -bigram.log()[val[:-1], val[1:]].mean().item()
    return {"unigram": unigram_nll, "bigram": bigram_nll}
