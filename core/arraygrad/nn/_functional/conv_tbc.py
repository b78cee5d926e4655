"""``conv_tbc``: a 1-D convolution of a time-first ``(T, B, C)`` sequence (fairseq's layout),
computed as ``conv1d`` of the batch-first view."""

from __future__ import annotations

from arraygrad.nn._functional.conv import conv1d
from arraygrad.tensor import Tensor

__all__ = ["conv_tbc"]


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """Convolve ``input`` ``(time, batch, in_channels)`` with ``weight`` ``(kernel width,
    in_channels, out_channels)``, plus ``bias`` ``(out_channels,)``, padding ``pad`` steps at
    each end: ``(time + 2 * pad - kernel width + 1, batch, out_channels)``."""
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if bias.shape[0] != weight.shape[2]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)
