"""mope.evidence.probes: probes of a freshly built model."""
import numpy as np

from mope.evidence import probes
from mope.model.config import GPTConfig


def test_future_token_sensitivity_separates_published_and_causal_gate():
    shape = GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=16, dropout=0.0)
    published = probes.future_token_sensitivity("EGA-1", shape, position=5, offset=5, trials=2)
    causal = probes.future_token_sensitivity("EGA-1-CAUSAL", shape, position=5, offset=5, trials=2)
    assert published[1:10].max() > 0  # the window statistics let a later token move earlier outputs
    assert np.all(causal[:10] == 0) and causal[10:].max() > 0
