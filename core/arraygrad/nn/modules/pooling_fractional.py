"""``FractionalMaxPool2d`` and ``FractionalMaxPool3d`` (see
``arraygrad.nn._functional.pooling_fractional``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from arraygrad.nn._functional import pooling_fractional as _fp
from arraygrad.nn.modules.module import Module
from arraygrad.nn.modules.pooling import _ntuple

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

__all__ = ["FractionalMaxPool2d", "FractionalMaxPool3d"]


class _FractionalMaxPoolNd(Module):
    _n: int
    _fn: Any

    def __init__(self, kernel_size: Any, output_size: Any = None, output_ratio: Any = None,
                 return_indices: bool = False, _random_samples: Tensor | None = None) -> None:
        super().__init__()
        n, name = self._n, type(self).__name__
        self.kernel_size = _ntuple(kernel_size, n)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = _ntuple(output_size, n) if output_size is not None else None
        self.output_ratio = _ntuple(output_ratio, n) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a "
                             "pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor) -> Any:
        """The pooled input (``(output, indices)`` with ``return_indices``); fresh random
        offsets on each call unless ``_random_samples`` was given."""
        return type(self)._fn(input, self.kernel_size, self.output_size, self.output_ratio,
                              self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    """2-D fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` inputs."""

    _n = 2
    _fn = staticmethod(_fp.fractional_max_pool2d)


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    """3-D fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)`` inputs."""

    _n = 3
    _fn = staticmethod(_fp.fractional_max_pool3d)
