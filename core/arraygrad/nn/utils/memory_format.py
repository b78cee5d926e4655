"""``nn.utils.memory_format``: convert the weights of 2-D/3-D (transposed) convolutions to a
memory format. arraygrad keeps every tensor in the logical row-major layout: the formats are
accepted, the weights keep their values and the model is returned (docs/differences.md)."""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_M = TypeVar("_M")


def _convert(module: Any, kinds: tuple[type, ...]) -> None:
    if isinstance(module, kinds):
        layer: Any = module
        layer.weight.data = layer.weight.detach().contiguous()
    for child in module.children():
        _convert(child, kinds)


def convert_conv2d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """``module`` with its ``Conv2d``/``ConvTranspose2d`` weights in ``memory_format``
    (``channels_last``...): here row-major, which computes the same values."""
    from arraygrad.nn.modules.conv import Conv2d, ConvTranspose2d

    _convert(module, (Conv2d, ConvTranspose2d))
    return module


def convert_conv3d_weight_memory_format(module: _M, memory_format: Any) -> _M:
    """``module`` with its ``Conv3d``/``ConvTranspose3d`` weights in ``memory_format``
    (``channels_last_3d``...): here row-major, which computes the same values."""
    from arraygrad.nn.modules.conv import Conv3d, ConvTranspose3d

    _convert(module, (Conv3d, ConvTranspose3d))
    return module
