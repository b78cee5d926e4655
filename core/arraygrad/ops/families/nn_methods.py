"""``hardshrink`` and ``prelu``: the two ``nn.functional`` activations PyTorch also gives
``Tensor`` methods. They are composites of elementwise ops, so they live here in the ops layer
(``nn.functional`` re-exports them: the layers import down, never up)."""

from __future__ import annotations

from arraygrad.amp import state as _amp
from arraygrad.ops import elementwise as ew
from arraygrad.tensor import Tensor

__all__ = ["hardshrink", "prelu", "METHODS"]


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """``x`` where ``|x| > lambd``, else 0."""
    return ew.where(ew.abs(input) > lambd, input, 0.0)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``x`` where positive, else ``weight * x``; ``weight`` has 1 or ``C`` (dim 1) entries."""
    if _amp.on:  # autocast (arraygrad.amp.state)
        input, weight = _amp.cast("prelu", input, weight)
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    count = weight.numel()
    if count != 1 and count != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {count} and channel size = {channels}.")
    w = weight
    if count != 1:  # one slope per channel, broadcast over the trailing dims
        w = weight.reshape((channels,) + (1,) * (input.ndim - 2))
    return ew.where(input > 0, input, w * input)


METHODS = {"hardshrink": hardshrink, "prelu": prelu}
"""``Tensor.hardshrink`` and ``Tensor.prelu``."""
