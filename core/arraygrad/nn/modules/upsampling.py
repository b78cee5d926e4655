"""``Upsample`` and its fixed-mode forms ``UpsamplingNearest2d`` and ``UpsamplingBilinear2d``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arraygrad.nn._functional import sampling as S
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resize ``(N, C, *spatial)`` input to ``size`` or by ``scale_factor`` with ``F.interpolate``.

    ``mode`` is any of ``interpolate``'s (``'nearest'``, ``'linear'``, ``'bilinear'``,
    ``'bicubic'``, ``'trilinear'``, ``'area'``, ``'nearest-exact'``).
    """

    def __init__(self, size: int | tuple[int, ...] | None = None,
                 scale_factor: float | tuple[float, ...] | None = None, mode: str = "nearest",
                 align_corners: bool | None = None,
                 recompute_scale_factor: bool | None = None) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        self.scale_factor: float | tuple[float, ...] | None
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        """The resized input."""
        return S.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = f"scale_factor={self.scale_factor!r}"
        else:
            info = f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour 2-D upsampling (``Upsample(mode='nearest')``)."""

    def __init__(self, size: int | tuple[int, int] | None = None,
                 scale_factor: float | tuple[float, float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear 2-D upsampling with ``align_corners=True`` (PyTorch's historical behaviour)."""

    def __init__(self, size: int | tuple[int, int] | None = None,
                 scale_factor: float | tuple[float, float] | None = None) -> None:
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
