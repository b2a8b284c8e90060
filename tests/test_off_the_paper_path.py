"""The drop-in modules off the paper's path (issue 56, item 4): positions from an offset, so that decoding token by
token with a key-value cache gives the full forward's logits for every position scheme; a module built on the meta
device, moved with ``to_empty`` and loaded computes as the original; ``torch.export`` and ``torch.compile`` trace
every module; ``help()`` shows each module's own docstring.

``torch.compile`` runs with ``backend="aot_eager"``: Dynamo's graph capture (``fullgraph=True``: no graph break
allowed) and AOTAutograd's forward and backward graphs, which need no C compiler, so the test runs (and cannot skip)
on any machine that has torch; Inductor's code generation is torch's own, outside what these modules decide."""
from __future__ import annotations

import pydoc
import re
import warnings

import pytest
import torch
from torch import nn

import mope
from mope.model.energy_gate import FutureLeakWarning
from mope.model.positional import RelativeMorletRotary
from mope.model.positional.sincos import EMBEDDING_MATCHED_AMPLITUDE

D, HEADS, VOCAB, BLOCK = 16, 2, 11, 24
INPUT_SCHEMES = {"learned": lambda: mope.LearnedPositions(BLOCK, D), "sincos": lambda: mope.SinusoidalPositions(D),
                 "sincos_scaled": lambda: mope.SinusoidalPositions(D, EMBEDDING_MATCHED_AMPLITUDE),
                 "morlet": lambda: mope.MorletPositions(D, learned_centre=True)}
ATTENTION_SCHEMES = {"rope": lambda hs: mope.Rotary(hs, seq_dim=2), "morlet_rope": lambda hs: mope.MorletRotary(hs, seq_dim=2),
                     "morlet_rope_relative": lambda hs: RelativeMorletRotary(hs, seq_dim=2),
                     "alibi": lambda _: mope.ALiBi(HEADS)}


class CachedDecoder(nn.Module):
    """Two attention layers written against the public modules, with a key-value cache: ``forward(idx, cache)``
    appends the new keys and values to ``cache`` (a list, one (k, v) per layer) and reads the positions from it."""

    def __init__(self, scheme: str):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = INPUT_SCHEMES[scheme]() if scheme in INPUT_SCHEMES else None
        self.hooks = nn.ModuleList(ATTENTION_SCHEMES[scheme](D // HEADS) for _ in range(2)) if self.pos is None else None
        self.norms = nn.ModuleList(nn.LayerNorm(D) for _ in range(2))
        self.qkv = nn.ModuleList(nn.Linear(D, 3 * D) for _ in range(2))
        self.head = nn.Linear(D, VOCAB)

    def forward(self, idx: torch.Tensor, cache: list | None = None) -> torch.Tensor:
        offset = cache[0][0].size(-2) if cache else 0
        x = self.emb(idx) + (self.pos(idx.size(1), offset) if self.pos is not None else 0)
        for layer, (norm, qkv) in enumerate(zip(self.norms, self.qkv)):
            q, k, v = qkv(norm(x)).unflatten(-1, (3, HEADS, -1)).permute(2, 0, 3, 1, 4)
            hook = self.hooks[layer] if self.hooks is not None else None
            if hasattr(hook, "rotate"):
                q, k = hook.rotate(q, k, offset)  # only the new keys: they sit at the queries' positions
            if cache is not None:
                if len(cache) <= layer:
                    cache.append((k[:, :, :0], v[:, :, :0]))
                k, v = (torch.cat(pair, dim=-2) for pair in zip(cache[layer], (k, v)))
                cache[layer] = (k, v)
            scores = hook.scores(q, k) if hasattr(hook, "scores") else q @ k.transpose(-1, -2) * q.size(-1) ** -0.5
            if hasattr(hook, "logit_bias"):
                scores = scores + hook.logit_bias(k.size(-2))
            later = torch.arange(k.size(-2))[None, :] > torch.arange(offset, offset + q.size(-2))[:, None]
            x = x + (torch.softmax(scores.masked_fill(later, float("-inf")), -1) @ v).transpose(1, 2).flatten(2)
        return self.head(x)


def perturbed(module: nn.Module) -> nn.Module:
    """The module with every parameter moved off its initial value (so that a load that does nothing shows)."""
    with torch.no_grad():
        for parameter in module.parameters():
            parameter.add_(0.1 * torch.randn_like(parameter))
    return module


@pytest.mark.parametrize("scheme", [*INPUT_SCHEMES, *ATTENTION_SCHEMES])
def test_decoding_token_by_token_with_a_cache_gives_the_full_forward(scheme):
    torch.manual_seed(0)
    model = perturbed(CachedDecoder(scheme)).eval()
    idx = torch.randint(VOCAB, (2, 20))
    with torch.no_grad():
        full = model(idx)
        cache: list = []
        steps = [model(idx[:, :6], cache)] + [model(idx[:, t:t + 1], cache) for t in range(6, 20)]
    assert torch.allclose(torch.cat(steps, dim=1), full, atol=1e-5), scheme
    assert cache[0][0].shape[-2] == 20


@pytest.mark.parametrize("hook", [mope.Rotary(8, seq_dim=2), mope.MorletRotary(8, seq_dim=2)], ids=["rope", "morlet_rope"])
def test_a_query_shorter_than_its_keys_sits_at_the_last_positions_unless_given_an_offset(hook):
    torch.manual_seed(0)
    q, k = torch.randn(1, 2, 9, 8), torch.randn(1, 2, 9, 8)
    full_q, full_k = hook.rotate(q, k)
    last_q, every_k = hook.rotate(q[:, :, -2:], k)  # every key passed: the default offset is 9 - 2
    assert torch.allclose(last_q, full_q[:, :, -2:]) and torch.allclose(every_k, full_k)
    new_q, new_k = hook.rotate(q[:, :, 4:6], k[:, :, 4:6], offset=4)  # only the new keys, at the queries' positions
    assert torch.allclose(new_q, full_q[:, :, 4:6]) and torch.allclose(new_k, full_k[:, :, 4:6])
    with pytest.raises(ValueError, match=f"^{type(hook).__name__}: 2 queries at offset 1 against 9 keys put a key "
                                         "before position 0"):
        hook.rotate(q[:, :, :2], k, offset=1)  # 9 keys ending at position 2


def test_the_default_offset_is_the_full_forward_of_every_position_module():
    torch.manual_seed(0)
    for name, build in INPUT_SCHEMES.items():
        pos = perturbed(build())
        assert torch.equal(pos(7), pos(7, 0)) and torch.equal(pos(7)[3:], pos(4, 3)), name
    with pytest.raises(ValueError, match="longer than the learned position table"):
        mope.LearnedPositions(BLOCK, D)(2, BLOCK - 1)


def drop_in_modules() -> dict[str, tuple]:
    """Each public module with a call that exercises it: (build, call(module, inputs), inputs)."""
    torch.manual_seed(0)
    x, q, k = torch.randn(2, 7, D), torch.randn(2, HEADS, 7, D // HEADS), torch.randn(2, HEADS, 7, D // HEADS)
    positions = (lambda m, x: x + m(x.size(1)), (x,))
    rotate = (lambda m, q, k: torch.cat(m.rotate(q, k), dim=-1), (q, k))
    gate = (lambda m, x: m.log_gate(x), (x,))
    return {"MorletPositions": (lambda: mope.MorletPositions(D), *positions),
            "SinusoidalPositions": (lambda: mope.SinusoidalPositions(D), *positions),
            "LearnedPositions": (lambda: mope.LearnedPositions(BLOCK, D), *positions),
            "Rotary": (lambda: mope.Rotary(D // HEADS, seq_dim=2), *rotate),
            "MorletRotary": (lambda: mope.MorletRotary(D // HEADS, seq_dim=2), *rotate),
            "RelativeMorletRotary": (lambda: RelativeMorletRotary(D // HEADS, seq_dim=2), lambda m, q, k: m.scores(*m.rotate(q, k)),
                                     (q, k)),
            "ALiBi": (lambda: mope.ALiBi(HEADS), lambda m, x: x[:, None, :HEADS, :] + m.logit_bias(D), (x,)),
            "CausalEnergyGate": (lambda: mope.CausalEnergyGate(D, HEADS), *gate),
            "FutureReadingEnergyGate": (lambda: mope.FutureReadingEnergyGate(D, HEADS, warn=False), *gate)}


MODULES = drop_in_modules()


class Called(nn.Module):
    def __init__(self, module: nn.Module, call):
        super().__init__()
        self.module, self.call = module, call

    def forward(self, *inputs):
        return self.call(self.module, *inputs)


@pytest.mark.parametrize("name", MODULES)
def test_a_meta_device_build_loads_a_state_dict_and_computes_as_the_original(name):
    build, call, inputs = MODULES[name]
    torch.manual_seed(1)
    original = perturbed(build())
    with torch.device("meta"):
        fresh = build()
    fresh.to_empty(device="cpu")  # buffers and parameters now hold whatever memory held
    fresh.load_state_dict(original.state_dict())
    assert torch.equal(call(fresh, *inputs), call(original, *inputs)), name
    with torch.device("meta"):
        reset = build()
    reset.to_empty(device="cpu").reset_parameters()  # what a fresh build computes, without a state dict
    torch.manual_seed(2)
    again = build()
    if not list(again.parameters()) or name in ("MorletPositions", "MorletRotary", "RelativeMorletRotary"):
        assert torch.equal(call(reset, *inputs), call(again, *inputs)), name  # a deterministic initialisation


def meta_builds_loaded(load):
    """(variant, a GPT built on the meta device and loaded by ``load(fresh, state_dict)``, the original it was
    loaded from) for every variant."""
    config = mope.GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=8)
    for variant in mope.VARIANTS:
        torch.manual_seed(0)
        original = perturbed(mope.build_model(variant, config, knowingly_non_causal=True)).eval()
        with torch.device("meta"):
            fresh = mope.build_model(variant, config, knowingly_non_causal=True)
        yield variant, load(fresh, original.state_dict()), original


def test_every_variant_of_the_gpt_builds_on_the_meta_device_and_loads():
    idx = torch.randint(65, (2, 8))

    def load(fresh, weights):
        fresh.to_empty(device="cpu").load_state_dict(weights)
        return fresh

    for variant, fresh, original in meta_builds_loaded(load):
        assert torch.equal(fresh.eval()(idx)[0], original(idx)[0]), variant
    moved = mope.build_model("PE-MORLET", mope.GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=8), knowingly_non_causal=True).to("meta")
    assert moved(idx.to("meta"))[0].shape == (2, 8, 65)  # MoPE's forward once failed there (autocast)


def test_a_meta_device_build_loaded_with_assign_computes_as_the_original():
    """``load_state_dict(..., assign=True)`` makes the state dict's tensors the module's own, and the fixed tables
    (RoPE's θ, the sin/cos ω, ALiBi's slopes) are not in it: they stayed on the meta device and the forward failed.
    They are computed anew: where a GPT's weights are, and on the default device for a drop-in module alone."""
    idx = torch.randint(65, (2, 8))

    def load(fresh, weights):
        fresh.load_state_dict(weights, assign=True)
        return fresh

    for variant, fresh, original in meta_builds_loaded(load):
        assert not [name for name, buffer in fresh.named_buffers() if buffer.is_meta], variant
        assert torch.equal(fresh.eval()(idx)[0], original(idx)[0]), variant
    for name in ("Rotary", "SinusoidalPositions", "ALiBi"):
        build, call, inputs = MODULES[name]
        with torch.device("meta"):
            fresh = build()
        fresh.load_state_dict(build().state_dict(), assign=True)
        assert torch.equal(call(fresh, *inputs), call(build(), *inputs)), name


def test_a_gpt_loaded_with_assign_computes_its_fixed_tables_where_its_weights_are():
    """The tables follow the weights, not the default device: a state dict on the meta device leaves a GPT wholly
    there (the only device besides the CPU on every machine)."""
    config = mope.GPTConfig(n_layer=1, n_head=2, n_embd=16, block_size=8)
    for variant in ("PE-SINCOS", "PE-ROPE", "ALIBI"):
        with torch.device("meta"):
            fresh, weights = mope.build_model(variant, config, knowingly_non_causal=True), mope.build_model(variant, config, knowingly_non_causal=True).state_dict()
        fresh.load_state_dict(weights, assign=True)
        assert {buffer.device.type for buffer in fresh.buffers()} == {"meta"}, variant


@pytest.mark.parametrize("name", MODULES)
def test_torch_export_and_compile_trace_every_module_with_eager_numbers(name):
    build, call, inputs = MODULES[name]
    torch.manual_seed(0)
    model = Called(perturbed(build()), call)
    eager = model(*inputs)
    exported = torch.export.export(model, inputs)
    assert torch.allclose(exported.module()(*inputs), eager, atol=1e-6), name
    torch._dynamo.reset()
    compiled = torch.compile(model, backend="aot_eager", fullgraph=True)
    out = compiled(*inputs)
    assert torch.allclose(out, eager, atol=1e-6), name
    parameters = list(model.parameters())
    if parameters:
        eager_grads = torch.autograd.grad(eager.square().sum(), parameters)
        compiled_grads = torch.autograd.grad(out.square().sum(), parameters)
        assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(eager_grads, compiled_grads)), name


PUBLIC = ("MorletPositions", "SinusoidalPositions", "LearnedPositions", "Rotary", "ALiBi", "MorletRotary",
          "CausalEnergyGate", "FutureReadingEnergyGate")


@pytest.mark.parametrize("name", PUBLIC)
def test_help_shows_each_modules_own_docstring_with_shapes_an_example_and_its_methods(name):
    cls = getattr(mope, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureLeakWarning)
        text = pydoc.render_doc(cls, renderer=pydoc.plaintext)
    assert cls.__doc__.strip().splitlines()[0].strip() in text
    assert "Shapes:" in text and "Example::" in text and f"from mope import {name}" in text
    assert "Define the computation performed at every call" not in text  # torch's boilerplate for forward
    for method in ("forward", "rotate", "scores", "logit_bias", "log_gate", "reset_parameters"):
        if hasattr(cls, method) and getattr(cls, method) is not getattr(nn.Module, method, None):
            assert getattr(cls, method).__doc__, f"{name}.{method} has no docstring"
    assert "reset_parameters" in cls.__dict__ or any("reset_parameters" in k.__dict__ for k in cls.__mro__[1:-1])


def test_docstrings_warn_about_the_published_amplitude_and_the_decay_that_needs_the_optimiser():
    sincos = pydoc.render_doc(mope.SinusoidalPositions, renderer=pydoc.plaintext)
    # the amplitude's size against the embeddings is said; what it does to training is measured on the pages, never
    # claimed here (a docstring's loss once disagreed with the page's; "training stalls" was a verdict no claim makes)
    sincos_words = " ".join(sincos.replace("|", " ").split())  # pydoc opens each line of a class with "|"
    assert "about 35 times the RMS (0.02) of token embeddings" in sincos_words and "MoPE and EGA in your own model" in sincos
    assert "stall" not in sincos
    assert "EMBEDDING_MATCHED_AMPLITUDE" in sincos and not re.search(r"\d\.\d\d nats", sincos)
    morlet = " ".join(pydoc.render_doc(mope.MorletPositions, renderer=pydoc.plaintext).split())
    assert "no_decay_parameters" in morlet and "nanoGPT's grouping" in morlet and "model.parameters()" in morlet
    assert len(mope.MorletPositions(8, weight_decay=False).no_decay_parameters()) == 2
    assert mope.MorletPositions(8).no_decay_parameters() == []  # decayed, as published, by an optimiser that asks
