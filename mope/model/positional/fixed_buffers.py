"""Fixed tables of a positional module (frequencies, slopes), kept as buffers outside the state dict.

RoPE's and the sinusoids' frequencies and ALiBi's slopes are functions of the constructor's arguments: kept out of
the state dict, they leave checkpoints as they were, and they are computed again wherever the module's memory is new
(``to_empty`` after a meta-device build, ``load_state_dict``) and kept in float32 at least when the module is cast.
"""
from __future__ import annotations

import torch
from torch import nn


def _refill_fixed_buffers(module: "FixedBuffers", incompatible_keys) -> None:
    """Load-state-dict post hook of :class:`FixedBuffers` (a function of the module, so that the module pickles).
    Tables left on the meta device (``load_state_dict(..., assign=True)`` of a meta-device build assigns only what
    the state dict holds, and they are not in it) are computed anew on the default device; a :class:`~mope.GPT`
    then moves them to the device of its weights."""
    if any(getattr(module, name).is_meta for name in module.fixed_buffers()):
        module.place_fixed_buffers(torch.get_default_device())
    else:
        module.reset_buffers()


class FixedBuffers(nn.Module):
    """A module whose fixed tables (frequencies, slopes) are buffers outside the state dict, so that checkpoints stay
    as they were: :meth:`fixed_buffers` computes them, the constructor registers them with
    :meth:`register_fixed_buffers`, and they are recomputed in place by :meth:`reset_parameters` (after
    ``to_empty``) and after ``load_state_dict``, so that a module built on the meta device, moved and loaded is whole,
    and one loaded with ``assign=True`` too (its tables computed on the default device, or where a GPT's weights are).

    A cast of the module (``model.to(torch.bfloat16)``, ``.half()``, ``.double()``) sets :attr:`output_dtype`, the
    dtype its output takes, and leaves the tables in float32 at least: a frequency rounded to bfloat16 would turn
    position 1,000 by several radians too many."""

    #: the dtype of the module's output: float32 until the module is cast to another floating dtype
    output_dtype = torch.float32

    def fixed_buffers(self) -> dict[str, torch.Tensor]:
        """{name: value} of the module's fixed tables, computed from its constructor's arguments."""
        raise NotImplementedError

    def register_fixed_buffers(self) -> None:
        """Register :meth:`fixed_buffers` (non-persistent) and their recomputation after ``load_state_dict``."""
        for name, value in self.fixed_buffers().items():
            self.register_buffer(name, value, persistent=False)
        self.register_load_state_dict_post_hook(_refill_fixed_buffers)

    def reset_buffers(self) -> None:
        """Recompute the fixed tables in place (on the module's device): after ``to_empty`` their memory is
        uninitialised."""
        with torch.no_grad():
            for name, value in self.fixed_buffers().items():
                getattr(self, name).copy_(value)

    def place_fixed_buffers(self, device: torch.device | str) -> None:
        """Compute the fixed tables anew on ``device``, in place of the tensors they were (on the meta device there
        are no values to copy into)."""
        for name, value in self.fixed_buffers().items():
            setattr(self, name, value.to(device))

    def reset_parameters(self) -> None:
        """Rebuild what the constructor builds (here the fixed tables): the step after ``to_empty`` of a meta-device
        build."""
        self.reset_buffers()

    def _apply(self, fn, recurse=True):
        """``nn.Module``'s, then the cast's floating dtype kept as :attr:`output_dtype` and any table it rounded below
        float32 computed again in float32."""
        super()._apply(fn, recurse)
        for name, exact in self.fixed_buffers().items():
            buffer = getattr(self, name)
            if buffer.is_floating_point():
                self.output_dtype = buffer.dtype
                if torch.finfo(buffer.dtype).bits < 32:
                    setattr(self, name, exact.to(buffer.device))
        return self
