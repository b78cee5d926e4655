"""Pooling layers for 1, 2 and 3 spatial dims: max, average, adaptive, power-average, unpooling.

Each layer stores its arguments as PyTorch's does (the same attributes and
``repr``) and calls the N-d functional in ``arraygrad.nn._functional.pooling``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from arraygrad.nn._functional import pooling as P
from arraygrad.nn.modules.module import Module

if TYPE_CHECKING:
    from arraygrad.tensor import Tensor

    _IntOrTuple = int | tuple[int, ...]
    _SizeOrNone = int | None | tuple[int | None, ...]

__all__ = [
    "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "LPPool1d", "LPPool2d", "LPPool3d",
    "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d",
]


def _ntuple(value: Any, n: int) -> tuple[Any, ...]:
    """PyTorch's ``_single``/``_pair``/``_triple``: a sequence as a tuple, else ``n`` copies."""
    if isinstance(value, (list, tuple)):
        return tuple(value)
    return (value,) * n


class _MaxPoolNd(Module):
    """Max over each window (``stride`` defaults to ``kernel_size``; padding counts as -inf)."""

    _fn: Any

    def __init__(self, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                 padding: _IntOrTuple = 0, dilation: _IntOrTuple = 1,
                 return_indices: bool = False, ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Any:
        """Pooled values (and flat indices with ``return_indices``)."""
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """1-D max pooling over ``(N, C, L)`` or ``(C, L)``."""

    _fn = staticmethod(P.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    """2-D max pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _fn = staticmethod(P.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    """3-D max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _fn = staticmethod(P.max_pool3d)


class AvgPool1d(Module):
    """1-D average pooling; PyTorch's ``AvgPool1d`` keeps its arguments as 1-tuples and has
    no ``divisor_override``."""

    def __init__(self, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                 padding: _IntOrTuple = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _ntuple(kernel_size, 1)
        self.stride = _ntuple(stride if stride is not None else kernel_size, 1)
        self.padding = _ntuple(padding, 1)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        """The pooled averages."""
        return P.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class _AvgPoolNd(Module):
    """Mean over each window, with PyTorch's ``count_include_pad``/``divisor_override`` rules."""

    _fn: Any

    def __init__(self, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                 padding: _IntOrTuple = 0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        """The pooled averages."""
        return type(self)._fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(_AvgPoolNd):
    """2-D average pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _fn = staticmethod(P.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    """3-D average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _fn = staticmethod(P.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    """Average pooling to a fixed output size (``None`` in a position keeps that size)."""

    _fn: Any

    def __init__(self, output_size: _SizeOrNone) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        """The input averaged into ``output_size`` bins."""
        return type(self)._fn(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of ``(N, C, L)`` or ``(C, L)``."""

    _fn = staticmethod(P.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of ``(N, C, H, W)`` or ``(C, H, W)``."""

    _fn = staticmethod(P.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    """Adaptive average pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _fn = staticmethod(P.adaptive_avg_pool3d)


class _AdaptiveMaxPoolNd(Module):
    """Max over adaptive bins to a fixed output size (and flat indices with ``return_indices``)."""

    _fn: Any

    def __init__(self, output_size: _SizeOrNone, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = output_size
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        """The maximum of each bin (and its flat index with ``return_indices``)."""
        return type(self)._fn(input, self.output_size, self.return_indices)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of ``(N, C, L)`` or ``(C, L)``."""

    _fn = staticmethod(P.adaptive_max_pool1d)


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of ``(N, C, H, W)`` or ``(C, H, W)``."""

    _fn = staticmethod(P.adaptive_max_pool2d)


class AdaptiveMaxPool3d(_AdaptiveMaxPoolNd):
    """Adaptive max pooling of ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _fn = staticmethod(P.adaptive_max_pool3d)


class _LPPoolNd(Module):
    """Power-average pooling: ``(sum over the window of x ** norm_type) ** (1 / norm_type)``."""

    _fn: Any

    def __init__(self, norm_type: float, kernel_size: _IntOrTuple,
                 stride: _IntOrTuple | None = None, ceil_mode: bool = False) -> None:
        super().__init__()
        self.norm_type = norm_type
        self.kernel_size = kernel_size
        self.stride = stride
        self.ceil_mode = ceil_mode

    def forward(self, input: Tensor) -> Tensor:
        """The ``norm_type``-norm of each window."""
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)

    def extra_repr(self) -> str:
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPoolNd):
    """1-D power-average pooling over ``(N, C, L)`` or ``(C, L)``."""

    _fn = staticmethod(P.lp_pool1d)


class LPPool2d(_LPPoolNd):
    """2-D power-average pooling over ``(N, C, H, W)`` or ``(C, H, W)``."""

    _fn = staticmethod(P.lp_pool2d)


class LPPool3d(_LPPoolNd):
    """3-D power-average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``."""

    _fn = staticmethod(P.lp_pool3d)


class _MaxUnpoolNd(Module):
    """The partial inverse of max pooling: values back at their indices, zeros elsewhere."""

    _n = 2
    _fn: Any

    def __init__(self, kernel_size: _IntOrTuple, stride: _IntOrTuple | None = None,
                 padding: _IntOrTuple = 0) -> None:
        super().__init__()
        n = self._n
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride if (stride is not None) else kernel_size, n)
        self.padding = _ntuple(padding, n)

    def forward(self, input: Tensor, indices: Tensor,
                output_size: Sequence[int] | None = None) -> Tensor:
        """Scatter ``input`` to ``indices`` (from the matching ``MaxPool`` with
        ``return_indices=True``) in a zero output of ``output_size`` (default: the pooled
        input's size)."""
        return type(self)._fn(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``."""

    _n = 1
    _fn = staticmethod(P.max_unpool1d)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``."""

    _n = 2
    _fn = staticmethod(P.max_unpool2d)


class MaxUnpool3d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool3d``."""

    _n = 3
    _fn = staticmethod(P.max_unpool3d)
