"""The fused (scaled_dot_product_attention) path equals the attention written out."""
import pytest
import torch

from mope import VARIANTS, GPTConfig, build_model

SHAPE = GPTConfig(block_size=40, n_layer=1, n_head=4, n_embd=32, dropout=0.0)


@pytest.mark.parametrize("name", [n for n in VARIANTS if n != "MORLET-ROPE-REL"])
def test_fused_attention_equals_explicit_attention(name):
    attn = build_model(name, SHAPE, seed=0, knowingly_non_causal=True).blocks[0].attn.eval()
    if attn.gate is not None:
        with torch.no_grad():
            attn.gate.energy.weight.normal_(0, 1.0)
    normed = torch.nn.functional.layer_norm(torch.randn(2, 40, 32), (32,))
    q, k, v = attn.qkv(normed)
    hook = attn.positions
    if hook is not None and hasattr(hook, "rotate"):
        q, k = hook.rotate(q, k)
    position_bias = hook.logit_bias(40) if hook is not None and hasattr(hook, "logit_bias") else None
    log_gate = attn.gate.log_gate(normed) if attn.gate is not None else None
    explicit = attn.explicit(q, k, v, position_bias, log_gate, gate_after_dropout=False)
    forward = attn(normed)  # the path training takes (fused, or the key-gated call for the published gate)
    assert torch.allclose(forward, attn.out(explicit.transpose(1, 2).flatten(2)), atol=1e-5)


def test_gate_after_dropout_without_dropout_equals_the_fused_path():
    attn = build_model("EGA-1", SHAPE, seed=0, knowingly_non_causal=True).blocks[0].attn.eval()
    normed = torch.nn.functional.layer_norm(torch.randn(2, 40, 32), (32,))
    q, k, v = attn.qkv(normed)
    log_gate = attn.gate.log_gate(normed)
    renormalised = attn.explicit(q, k, v, None, log_gate, gate_after_dropout=True)
    assert torch.allclose(renormalised, attn.fused(q, k, v, log_gate, 0.0), atol=1e-5)
