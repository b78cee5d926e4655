"""``PixelShuffle`` and ``PixelUnshuffle``: trade channels for spatial resolution and back."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arraygrad.nn._functional import sampling as S
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """``(*, C*r*r, H, W)`` -> ``(*, C, H*r, W*r)`` with ``r = upscale_factor``."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        """The shuffled input."""
        return S.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H*r, W*r)`` -> ``(*, C*r*r, H, W)`` with ``r = downscale_factor``."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        """The unshuffled input."""
        return S.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"
