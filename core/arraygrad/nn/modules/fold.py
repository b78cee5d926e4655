"""``Fold`` and ``Unfold``: the layer forms of ``F.fold`` (col2im) and ``F.unfold`` (im2col)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arraygrad.nn._functional import conv as C
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

    _IntOrTuple = int | tuple[int, ...]

__all__ = ["Fold", "Unfold"]


class Fold(Module):
    """Sum sliding local blocks ``(N, C*prod(kernel_size), L)`` back into ``(N, C,
    *output_size)`` (arguments kept as given, as PyTorch's)."""

    def __init__(self, output_size: _IntOrTuple, kernel_size: _IntOrTuple,
                 dilation: _IntOrTuple = 1, padding: _IntOrTuple = 0,
                 stride: _IntOrTuple = 1) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        """``F.fold`` with this layer's arguments."""
        return C.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                      self.stride)

    def extra_repr(self) -> str:
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


class Unfold(Module):
    """Extract sliding local blocks: ``(N, C, H, W)`` -> ``(N, C*prod(kernel_size), L)``."""

    def __init__(self, kernel_size: _IntOrTuple, dilation: _IntOrTuple = 1,
                 padding: _IntOrTuple = 0, stride: _IntOrTuple = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        """``F.unfold`` with this layer's arguments."""
        return C.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")
